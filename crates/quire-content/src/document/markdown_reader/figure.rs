//! GitBook's HTML image form: an HTML block that is exactly one
//! `<figure><img src="…" alt="…"><figcaption><p>…</p></figcaption></figure>`
//! (caption optional) is an image. Anything else in HTML stays text.

use super::super::html::{attributes, one_line as html_text};
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
