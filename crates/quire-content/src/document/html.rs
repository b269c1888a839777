//! GitBook's HTML read without a browser: a tag's attributes, an HTML
//! fragment's text, and the one inline HTML form with a meaning of its own
//! (icons). Sites show HTML through a real sanitizer; this is for text
//! (search, PDF, captions) and for recognising what GitBook writes.

/// A start tag's name and attributes (`<mark style="color:red;">` gives
/// `mark` and its one attribute); `None` for end tags, comments and
/// anything that does not parse.
pub fn start_tag(tag: &str) -> Option<(String, Vec<(String, String)>)> {
    let inner = tag.trim().strip_prefix('<')?.strip_suffix('>')?;
    let inner = inner.strip_suffix('/').unwrap_or(inner);
    let name_end = inner.find(|c: char| c.is_whitespace()).unwrap_or(inner.len());
    let name = &inner[..name_end];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return None;
    }
    Some((name.to_ascii_lowercase(), attributes(&inner[name_end..])?))
}

/// The name of an end tag (`</mark>` gives `mark`).
pub fn end_tag(tag: &str) -> Option<String> {
    let name = tag.trim().strip_prefix("</")?.strip_suffix('>')?.trim();
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        .then(|| name.to_ascii_lowercase())
}

/// The icon a GitBook icon tag names: `<i class="fa-github">` gives
/// `github`.
pub fn icon_tag(tag: &str) -> Option<String> {
    let (name, attrs) = start_tag(tag)?;
    if name != "i" {
        return None;
    }
    let class = attrs.iter().find(|(k, _)| k == "class").map(|(_, v)| v.as_str())?;
    let icon = class.split_whitespace().find_map(|c| c.strip_prefix("fa-"))?;
    (!icon.is_empty() && icon.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then(|| icon.to_owned())
}

/// The images an HTML fragment shows: each `<img>`'s `src` and `alt`, in
/// order.
pub fn images(html: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<img") {
        let end = rest[start..].find('>').map_or(rest.len(), |end| start + end + 1);
        if let Some((name, attrs)) = start_tag(&rest[start..end])
            && name == "img"
        {
            let get = |key: &str| attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
            if let Some(src) = get("src").filter(|s| !s.is_empty()) {
                found.push((src, get("alt").unwrap_or_default()));
            }
        }
        rest = &rest[end..];
    }
    found
}

/// Elements whose end starts a new line of text.
const LINE_ENDS: [&str; 17] = [
    "p",
    "div",
    "tr",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figcaption",
    "summary",
    "details",
    "table",
    "blockquote",
    "pre",
    "br",
];

/// The text of an HTML fragment, a line per paragraph, row, list item or
/// heading (cells of a row joined by a space): tags dropped, entities
/// decoded, icon names (`:github:`) and the contents of `<script>` and
/// `<style>` left out, spaces collapsed.
pub fn text(html: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut rest = html;
    let mut skipping: Option<&str> = None;
    let mut in_icon = false;
    let flush = |line: &mut String, lines: &mut Vec<String>| {
        let collapsed = decode_entities(line).split_whitespace().collect::<Vec<_>>().join(" ");
        if !collapsed.is_empty() {
            lines.push(collapsed);
        }
        line.clear();
    };
    while let Some(start) = rest.find('<') {
        if skipping.is_none() && !in_icon {
            line.push_str(&rest[..start]);
        }
        let tag_end = match rest[start..].find('>') {
            Some(end) => start + end + 1,
            None => rest.len(),
        };
        let tag = &rest[start..tag_end];
        rest = &rest[tag_end..];
        if let Some(name) = end_tag(tag) {
            if skipping == Some(name.as_str()) {
                skipping = None;
            } else if name == "i" {
                in_icon = false;
            }
            if LINE_ENDS.contains(&name.as_str()) {
                flush(&mut line, &mut lines);
            } else {
                line.push(' ');
            }
            continue;
        }
        if icon_tag(tag).is_some() {
            in_icon = true;
            continue;
        }
        match start_tag(tag).map(|(name, _)| name) {
            Some(name) if name == "script" => skipping = Some("script"),
            Some(name) if name == "style" => skipping = Some("style"),
            Some(name) if name == "br" => flush(&mut line, &mut lines),
            _ => line.push(' '),
        }
    }
    if skipping.is_none() {
        line.push_str(rest);
    }
    flush(&mut line, &mut lines);
    lines.join("\n")
}

/// The text of an HTML fragment on one line (a caption).
pub fn one_line(html: &str) -> String {
    text(html).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `name="value"` attributes of a tag (double, single or no quotes; bare
/// names count as empty), entities decoded. `None` when they do not parse.
pub fn attributes(mut s: &str) -> Option<Vec<(String, String)>> {
    let mut attrs = Vec::new();
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return Some(attrs);
        }
        let name_end = s.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(s.len());
        let name = s[..name_end].to_ascii_lowercase();
        if name.is_empty() || name.contains(['"', '\'', '<', '>']) {
            return None;
        }
        s = s[name_end..].trim_start();
        let Some(after) = s.strip_prefix('=') else {
            attrs.push((name, String::new()));
            continue;
        };
        let after = after.trim_start();
        let (value, rest) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let close = after[1..].find(q)?;
                (&after[1..1 + close], &after[close + 2..])
            }
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        attrs.push((name, decode_entities(value)));
        s = rest;
    }
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and numeric
/// references; anything else is left as it is.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').filter(|end| *end <= 10).and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let number = name.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => number.parse().ok(),
                    };
                    code.and_then(char::from_u32).filter(|c| *c != '\0')
                }
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_text() {
        assert_eq!(
            start_tag("<mark style=\"color:orange;\">"),
            Some(("mark".into(), vec![("style".into(), "color:orange;".into())]))
        );
        assert_eq!(
            start_tag("<th data-hidden data-type=\"image\">").map(|t| t.1.len()),
            Some(2)
        );
        assert_eq!(start_tag("</mark>"), None);
        assert_eq!(end_tag("</mark>").as_deref(), Some("mark"));
        assert_eq!(icon_tag("<i class=\"fa-github\">").as_deref(), Some("github"));
        assert_eq!(icon_tag("<i>"), None);
        let table = "<table><thead><tr><th>A</th><th>B &amp; C</th></tr></thead><tbody><tr><td><i class=\"fa-x\">:x:</i> one</td><td>two<br>three</td></tr></tbody></table><script>alert(1)</script>";
        assert_eq!(text(table), "A B & C\none two\nthree");
        assert_eq!(one_line("<p>The <strong>caption</strong></p>"), "The caption");
    }
}
