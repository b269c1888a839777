//! GitBook's icons as inline SVG. GitBook content names Font Awesome icons
//! (`<i class="fa-github">`, an icon inline, a page's icon); this crate
//! holds Font Awesome Free's classic icons, in its three free styles
//! (`solid`, `regular`, `brands`), and draws one with [`svg`] in a site's
//! icon style ([`IconStyle`], the customization's `styling.icons`).
//!
//! The icons are Font Awesome Free's (© Fonticons, Inc.), under the
//! Creative Commons Attribution 4.0 license: `LICENSE.txt` beside this
//! crate is the package's own. `generate.mjs` fetches the npm package
//! `@fortawesome/fontawesome-free` and writes `icons.tsv.br`, the only data
//! embedded: one line per icon and style (`name\tstyle\twidth\tpath`: the
//! width of its view box, every height being 512, and its path data, no
//! other SVG), one per alias (`home\t=\thouse`), compressed with Brotli.
//! It is decompressed and indexed on the first icon drawn, once per process.
//!
//! Styles Font Awesome Free does not have are approximated: `light` and
//! `thin` (Pro only) draw the regular icon, else the solid one; `duotone`
//! draws the solid icon in one colour (no secondary layer at a lower
//! opacity). A brand icon is drawn whatever the style. Icons that exist
//! only in Font Awesome Pro are unknown (`None`).

use std::collections::HashMap;
use std::sync::LazyLock;

/// The icons, compressed (see the crate's documentation).
static DATA: &[u8] = include_bytes!("../icons.tsv.br");

/// A site's icon style (`styling.icons`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IconStyle {
    /// GitBook's default.
    #[default]
    Regular,
    Solid,
    /// Drawn as solid, in one colour.
    Duotone,
    /// Drawn as regular (else solid).
    Light,
    /// Drawn as regular (else solid).
    Thin,
}

impl IconStyle {
    /// The style a customization names (`"solid"`); `None` for another.
    pub fn from_setting(setting: &str) -> Option<Self> {
        Some(match setting {
            "regular" => Self::Regular,
            "solid" => Self::Solid,
            "duotone" => Self::Duotone,
            "light" => Self::Light,
            "thin" => Self::Thin,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Regular => "regular",
            Self::Solid => "solid",
            Self::Duotone => "duotone",
            Self::Light => "light",
            Self::Thin => "thin",
        }
    }
}

/// One drawing of an icon: the width of its view box and its path data.
#[derive(Debug, Clone, Copy)]
struct Glyph {
    width: &'static str,
    path: &'static str,
}

/// An icon's drawings in the free styles it has.
#[derive(Debug, Clone, Copy, Default)]
struct Glyphs {
    solid: Option<Glyph>,
    regular: Option<Glyph>,
    brands: Option<Glyph>,
}

impl Glyphs {
    /// The drawing for `style`: see the crate's documentation.
    fn for_style(&self, style: IconStyle) -> Option<Glyph> {
        let styled = match style {
            IconStyle::Solid | IconStyle::Duotone => self.solid.or(self.regular),
            IconStyle::Regular | IconStyle::Light | IconStyle::Thin => self.regular.or(self.solid),
        };
        styled.or(self.brands)
    }
}

/// Every icon and alias by name, read from [`DATA`] on first use.
static ICONS: LazyLock<HashMap<&'static str, Glyphs>> = LazyLock::new(|| {
    let mut text = Vec::with_capacity(1_500_000);
    brotli_decompressor::BrotliDecompress(&mut &DATA[..], &mut text).expect("the embedded icons decompress");
    // Kept for the life of the process, as the index pointing into it.
    let text: &'static str = String::from_utf8(text).expect("the embedded icons are UTF-8").leak();
    index(text)
});

/// The icons and aliases of the data's text.
fn index(text: &'static str) -> HashMap<&'static str, Glyphs> {
    let mut icons: HashMap<&'static str, Glyphs> = HashMap::with_capacity(3000);
    let mut aliases = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut fields = line.split('\t');
        let (Some(name), Some(style), Some(third)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let glyphs = icons.entry(name);
        let glyph = |path: Option<&'static str>| path.map(|path| Glyph { width: third, path });
        match style {
            "=" => aliases.push((name, third)),
            "s" => glyphs.or_default().solid = glyph(fields.next()),
            "r" => glyphs.or_default().regular = glyph(fields.next()),
            "b" => glyphs.or_default().brands = glyph(fields.next()),
            _ => {}
        }
    }
    for (alias, name) in aliases {
        if let Some(glyphs) = icons.get(name).copied() {
            icons.entry(alias).or_insert(glyphs);
        }
    }
    icons
}

/// Whether Font Awesome Free has the icon (by its name or an alias).
pub fn known(name: &str) -> bool {
    ICONS.contains_key(name)
}

/// The icon `name` (GitBook's name without `fa-`: `github`, `house`,
/// `circle-info`, or an alias such as `home`) drawn in `style`, as an
/// inline `<svg>` the size of the text around it, in its colour, hidden
/// from assistive technology; `None` for an icon Font Awesome Free has not.
/// The markup is the crate's own: nothing of `name` is written in it.
pub fn svg(name: &str, style: IconStyle) -> Option<String> {
    let glyph = ICONS.get(name)?.for_style(style)?;
    Some(format!(
        "<svg class=\"icon\" viewBox=\"0 0 {} 512\" aria-hidden=\"true\" fill=\"currentColor\" width=\"1em\" height=\"1em\"><path d=\"{}\"/></svg>",
        glyph.width, glyph.path
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(svg: &str) -> &str {
        let start = svg.find(" d=\"").unwrap() + 4;
        &svg[start..start + svg[start..].find('"').unwrap()]
    }

    #[test]
    fn brands_are_drawn_whatever_the_style() {
        for style in [
            IconStyle::Regular,
            IconStyle::Solid,
            IconStyle::Duotone,
            IconStyle::Thin,
        ] {
            let github = svg("github", style).unwrap();
            assert!(
                github.starts_with("<svg class=\"icon\" viewBox=\"0 0 512 512\" aria-hidden=\"true\""),
                "{github}"
            );
            assert!(github.ends_with("\"/></svg>") && path(&github).len() > 100, "{github}");
        }
    }

    #[test]
    fn solid_and_regular_differ_and_styles_fall_back() {
        let solid = svg("house", IconStyle::Solid).unwrap();
        let regular = svg("house", IconStyle::Regular).unwrap();
        assert_ne!(path(&solid), path(&regular));
        assert_eq!(svg("house", IconStyle::Duotone).unwrap(), solid, "duotone is solid");
        assert_eq!(svg("house", IconStyle::Light).unwrap(), regular, "light is regular");
        assert_eq!(svg("house", IconStyle::Thin).unwrap(), regular, "thin is regular");
        // An icon with no regular drawing in the free set: solid.
        assert_eq!(
            svg("rocket", IconStyle::Regular).unwrap(),
            svg("rocket", IconStyle::Solid).unwrap()
        );
        // A wider icon keeps its view box.
        assert!(
            svg("star", IconStyle::Solid)
                .unwrap()
                .contains("viewBox=\"0 0 576 512\"")
        );
    }

    #[test]
    fn aliases_are_their_icons() {
        assert_eq!(svg("home", IconStyle::Solid), svg("house", IconStyle::Solid));
        assert_eq!(
            svg("info-circle", IconStyle::Solid),
            svg("circle-info", IconStyle::Solid)
        );
        assert!(known("home") && known("github") && !known("home-page-that-is-not"));
    }

    #[test]
    fn unknown_icons_are_none() {
        for name in [
            "",
            "not-an-icon",
            "fa-github",
            "GitHub",
            "house\"",
            "x\" onload=\"alert(1)",
            "#",
            "=",
        ] {
            assert_eq!(svg(name, IconStyle::Regular), None, "{name}");
        }
    }

    #[test]
    fn every_icon_is_plain_markup() {
        assert!(ICONS.len() > 2000, "{}", ICONS.len());
        for (name, glyphs) in ICONS.iter() {
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{name}"
            );
            assert!(
                glyphs.solid.is_some() || glyphs.regular.is_some() || glyphs.brands.is_some(),
                "{name}"
            );
            for glyph in [glyphs.solid, glyphs.regular, glyphs.brands].into_iter().flatten() {
                assert!(glyph.width.bytes().all(|b| b.is_ascii_digit()), "{name}");
                assert!(
                    glyph
                        .path
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b" .,-".contains(&b)),
                    "{name}: {}",
                    glyph.path
                );
            }
            for style in [IconStyle::Regular, IconStyle::Solid] {
                let svg = svg(name, style).unwrap();
                assert_eq!(svg.matches('"').count(), 14, "{name}: {svg}");
                assert_eq!(svg.matches('<').count(), 3, "{name}: {svg}");
                assert_eq!(svg.matches('>').count(), 3, "{name}: {svg}");
                assert!(!svg.contains('&') && !svg.contains('\''), "{name}: {svg}");
            }
        }
    }

    #[test]
    fn settings_name_styles() {
        for style in [
            IconStyle::Regular,
            IconStyle::Solid,
            IconStyle::Duotone,
            IconStyle::Light,
            IconStyle::Thin,
        ] {
            assert_eq!(IconStyle::from_setting(style.as_str()), Some(style));
        }
        assert_eq!(IconStyle::from_setting("sharp"), None);
        assert_eq!(IconStyle::default(), IconStyle::Regular);
    }
}
