//! GitBook's icons on a published page, drawn in the site's icon style.
//! The body is rendered and sanitized with each known icon as a
//! placeholder, `<span class="icon" data-icon="github" aria-hidden="true"></span>`
//! (a name of letters, digits and hyphens only, Font Awesome Free having
//! it); [`resolve`] then puts the icon's SVG in its place, in the style of
//! the site (`Look::icons`) when the page is laid out. An unknown icon is
//! the empty span, taking no room. What is drawn is the icon set's own
//! markup ([`quire_icons::svg`]): nothing written in a page reaches it.

use std::borrow::Cow;

pub use quire_icons::IconStyle;

/// An icon that is not drawn.
const EMPTY: &str = "<span class=\"icon\" aria-hidden=\"true\"></span>";
/// A placeholder's start and end, around the icon's name.
const OPEN: &str = "<span class=\"icon\" data-icon=\"";
const CLOSE: &str = "\" aria-hidden=\"true\"></span>";

/// Whether `name` can be an icon's name: 1 to 50 lower-case ASCII letters,
/// digits and hyphens (nothing that could end an attribute).
pub fn is_name(name: &str) -> bool {
    (1..=50).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Whether there is an icon `name` to draw.
pub fn known(name: &str) -> bool {
    is_name(name) && quire_icons::known(name)
}

/// Appends the placeholder of the icon `name` (GitBook's name without
/// `fa-`), or the empty span when there is no such icon.
pub fn push_placeholder(out: &mut String, name: &str) {
    if known(name) {
        out.push_str(OPEN);
        out.push_str(name);
        out.push_str(CLOSE);
    } else {
        out.push_str(EMPTY);
    }
}

/// The placeholder of the icon `name`.
pub fn placeholder(name: &str) -> String {
    let mut out = String::new();
    push_placeholder(&mut out, name);
    out
}

/// `html` with every icon placeholder drawn as its SVG in `style`; any
/// other text, including a placeholder-like span with another name, is
/// left as it is (an unknown name becomes the empty span).
pub fn resolve(html: &str, style: IconStyle) -> Cow<'_, str> {
    if !html.contains(OPEN) {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len() + 4096);
    let mut rest = html;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let name_end = after.find('"').unwrap_or(after.len());
        let name = &after[..name_end];
        if is_name(name) && after[name_end..].starts_with(CLOSE) {
            match quire_icons::svg(name, style) {
                Some(svg) => out.push_str(&svg),
                None => out.push_str(EMPTY),
            }
            rest = &after[name_end + CLOSE.len()..];
        } else {
            out.push_str(OPEN);
            rest = after;
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_icons_are_placeholders_drawn_in_the_style() {
        assert_eq!(
            placeholder("github"),
            "<span class=\"icon\" data-icon=\"github\" aria-hidden=\"true\"></span>"
        );
        for name in [
            "not-an-icon",
            "",
            "GitHub",
            "x\"onload",
            "x&quot;onload",
            &"a".repeat(51),
        ] {
            assert_eq!(placeholder(name), EMPTY, "{name}");
        }
        let html = format!("<p>A {} and {}.</p>", placeholder("star"), placeholder("nope"));
        let solid = resolve(&html, IconStyle::Solid);
        let regular = resolve(&html, IconStyle::Regular);
        assert!(
            solid.starts_with("<p>A <svg class=\"icon\" viewBox=\"0 0 576 512\""),
            "{solid}"
        );
        assert!(
            solid.ends_with("</svg> and <span class=\"icon\" aria-hidden=\"true\"></span>.</p>"),
            "{solid}"
        );
        assert_ne!(solid, regular);
        assert_eq!(resolve("<p>No icon</p>", IconStyle::Solid), "<p>No icon</p>");
    }

    #[test]
    fn only_exact_placeholders_are_drawn() {
        for html in [
            "<span class=\"icon\" data-icon=\"github\" onclick=\"x\" aria-hidden=\"true\"></span>",
            "<span class=\"icon\" data-icon=\"github",
            "<span class=\"icon\" data-icon=\"git\"hub\" aria-hidden=\"true\"></span>",
            "<span class=\"icon\" data-icon=\"Github\" aria-hidden=\"true\"></span>",
        ] {
            assert_eq!(resolve(html, IconStyle::Regular), html);
        }
        // A well-formed placeholder of an unknown icon: the empty span.
        assert_eq!(
            resolve(
                "<span class=\"icon\" data-icon=\"zzz-none\" aria-hidden=\"true\"></span>",
                IconStyle::Regular
            ),
            EMPTY
        );
    }
}
