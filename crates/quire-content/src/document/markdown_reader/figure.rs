//! GitBook's HTML image form: an HTML block that is exactly one
//! `<figure><img src="…" alt="…"><figcaption><p>…</p></figcaption></figure>`
//! (caption optional) is an image. Anything else in HTML stays text.

use super::super::model::{Image, ImageSource};

/// The image a `<figure>` HTML block shows, if that is all the block is.
pub(super) fn parse_figure(html: &str) -> Option<Image> {
    let inner = html.trim().strip_prefix("<figure>")?.strip_suffix("</figure>")?.trim();
    let rest = inner.strip_prefix("<img")?;
    let tag_end = rest.find('>')?;
    let attrs = attributes(rest[..tag_end].trim_end_matches('/'))?;
    let rest = rest[tag_end + 1..].trim();
    let caption = if rest.is_empty() {
        String::new()
    } else {
        let inside = rest.strip_prefix("<figcaption>")?.strip_suffix("</figcaption>")?;
        if inside.contains("<figcaption") || inside.contains("</figcaption") {
            return None;
        }
        html_text(inside)
    };
    let src = attrs.iter().find(|(k, _)| k == "src").map(|(_, v)| v.as_str())?;
    let alt = attrs.iter().find(|(k, _)| k == "alt").map(|(_, v)| v.clone());
    Some(Image {
        source: ImageSource::from_url(src),
        alt: alt.unwrap_or_default(),
        caption,
    })
}

/// `name="value"` attributes of a tag (double, single or no quotes; bare
/// names count as empty), entities decoded. `None` when they do not parse.
fn attributes(mut s: &str) -> Option<Vec<(String, String)>> {
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

/// The text of an HTML fragment: tags dropped, entities decoded, runs of
/// whitespace made one space, trimmed.
fn html_text(html: &str) -> String {
    let mut text = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        text.push_str(&rest[..start]);
        text.push(' ');
        match rest[start..].find('>') {
            Some(end) => rest = &rest[start + end + 1..],
            None => {
                rest = "";
            }
        }
    }
    text.push_str(rest);
    let decoded = decode_entities(&text);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and numeric
/// references; anything else is left as it is.
fn decode_entities(s: &str) -> String {
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
    fn gitbook_figures_are_images() {
        let image = parse_figure(
            "<figure><img src=\"/files/abc\" alt=\"A &amp; B\" width=\"375\"><figcaption><p>The <strong>caption</strong></p></figcaption></figure>\n",
        )
        .unwrap();
        assert_eq!(image.source, ImageSource::File("abc".into()));
        assert_eq!(image.alt, "A & B");
        assert_eq!(image.caption, "The caption");

        let bare = parse_figure("<figure><img src='https://x.org/a.png'></figure>").unwrap();
        assert_eq!(bare.source, ImageSource::Url("https://x.org/a.png".into()));
        assert_eq!((bare.alt.as_str(), bare.caption.as_str()), ("", ""));

        for not_a_figure in [
            "<figure><p>no image</p></figure>",
            "<div><img src=\"x\"></div>",
            "<figure><img alt=\"no source\"></figure>",
            "<figure><img src=\"x\"><p>more</p></figure>",
            "<figure><img src=\"x\" alt=\"unclosed></figure>",
        ] {
            assert_eq!(parse_figure(not_a_figure), None, "{not_a_figure}");
        }
    }
}
