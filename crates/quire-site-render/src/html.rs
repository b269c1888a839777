//! Escaping for HTML text and attributes, and the XML of feeds and sitemaps.

/// Escapes `&`, `<`, `>`, `"` and `'`: safe in text and in quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text);
    out
}

pub fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `text`, escaped, with the byte `ranges` (ascending, on character
/// boundaries) wrapped in `<mark>`: what a search matched.
pub fn push_marked(out: &mut String, text: &str, ranges: &[std::ops::Range<usize>]) {
    let mut at = 0;
    for range in ranges {
        let (Some(before), Some(marked)) = (text.get(at..range.start), text.get(range.clone())) else {
            continue;
        };
        push_escaped(out, before);
        out.push_str("<mark>");
        push_escaped(out, marked);
        out.push_str("</mark>");
        at = range.end;
    }
    push_escaped(out, text.get(at..).unwrap_or_default());
}

/// A URL safe to put in `href`/`src`: `javascript:`, `data:` and other
/// schemes that run or embed code become `#`.
pub fn safe_url(url: &str) -> String {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s);
    let allowed = match scheme {
        None => true,
        Some(s) if s.contains('/') || s.contains('?') || s.contains('#') => true,
        Some(s) => matches!(s, "http" | "https" | "mailto" | "tel"),
    };
    if allowed { escape(url.trim()) } else { "#".to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_urls_are_escaped() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(safe_url("javascript:alert(1)"), "#");
        let mut marked = String::new();
        push_marked(&mut marked, "a <b> deploy c", &[6..12]);
        assert_eq!(marked, "a &lt;b&gt; <mark>deploy</mark> c");
        assert_eq!(safe_url(" JavaScript:alert(1)"), "#");
        assert_eq!(safe_url("data:text/html,x"), "#");
        assert_eq!(
            safe_url("https://example.com/?a=1&b=2"),
            "https://example.com/?a=1&amp;b=2"
        );
        assert_eq!(safe_url("/docs/page#x"), "/docs/page#x");
        assert_eq!(safe_url("mailto:a@b.c"), "mailto:a@b.c");
    }
}
