//! GitBook's named fonts, shipped with the binary so published sites show
//! them without a third-party font service: the text and heading fonts
//! (`styling.font`, `styling.headingFont`: Inter, Roboto, RobotoSlab,
//! OpenSans, SourceSansPro, Lato, Ubuntu, Raleway, Merriweather, Overpass,
//! NotoSans, IBMPlexSerif, Poppins, FiraSans) and the code fonts
//! (`styling.monospaceFont`: FiraCode, IBMPlexMono, JetBrainsMono,
//! SourceCodePro, RobotoMono, SpaceMono, DMMono, Inconsolata).
//!
//! The files are the woff2 faces of the npm registry's Fontsource packages
//! (`@fontsource-variable/<font>` where the font is variable: one file per
//! subset covers every weight; else `@fontsource/<font>` at 400, 600 where
//! the family has it — else 500 where 700 is missing — and 700), text fonts
//! with their italic, each in the `latin` and `latin-ext` subsets with its
//! `unicode-range`, so a browser fetches only what a page uses. `fetch.sh`
//! beside this crate fetches them again (pinned versions), into `files/`
//! (each name with the first 8 hex digits of its SHA-256, so a file's URL
//! never changes meaning and may be kept `immutable`), `licenses/` (each
//! package's licence: SIL OFL 1.1, Apache 2.0 for Roboto Slab, the Ubuntu
//! Font Licence) and the table `src/table.rs`.
//!
//! GitBook's default `ABCFavorit` is a proprietary font, not on npm: it is
//! drawn with Inter.

/// One `@font-face` of a font: a file and what it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Face {
    /// The file's URL-safe name, a content hash in it
    /// (`inter-latin-wght-normal.3100e775.woff2`): see [`file`].
    pub file: &'static str,
    /// `font-weight`: one weight (`400`) or a variable font's range
    /// (`100 900`).
    pub weight: &'static str,
    /// `font-style`: `normal` or `italic`.
    pub style: &'static str,
    /// `unicode-range`: the characters of its subset.
    pub unicode_range: &'static str,
}

#[rustfmt::skip]
mod table;

/// The CSS family and the faces of one of GitBook's named fonts
/// (`OpenSans` is "Open Sans"); `None` for any other name.
pub fn faces(name: &str) -> Option<(&'static str, &'static [Face])> {
    let name = if name == "ABCFavorit" { "Inter" } else { name };
    table::FONTS
        .iter()
        .find(|(known, _, _)| *known == name)
        .map(|(_, family, faces)| (*family, *faces))
}

/// The woff2 bytes of a face's file by its name; `None` for any other name.
pub fn file(file_name: &str) -> Option<&'static [u8]> {
    table::FILES
        .binary_search_by(|(name, _)| (*name).cmp(file_name))
        .ok()
        .map(|i| table::FILES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    const TEXT: [&str; 15] = [
        "ABCFavorit",
        "Inter",
        "Roboto",
        "RobotoSlab",
        "OpenSans",
        "SourceSansPro",
        "Lato",
        "Ubuntu",
        "Raleway",
        "Merriweather",
        "Overpass",
        "NotoSans",
        "IBMPlexSerif",
        "Poppins",
        "FiraSans",
    ];
    const CODE: [&str; 8] = [
        "FiraCode",
        "IBMPlexMono",
        "JetBrainsMono",
        "SourceCodePro",
        "RobotoMono",
        "SpaceMono",
        "DMMono",
        "Inconsolata",
    ];

    #[test]
    fn every_named_font_has_faces_in_both_subsets_whose_files_are_woff2() {
        for name in TEXT.into_iter().chain(CODE) {
            let (family, faces) = faces(name).unwrap_or_else(|| panic!("{name} has no faces"));
            assert!(!family.is_empty() && !faces.is_empty(), "{name}");
            assert!(
                family.chars().all(|c| c.is_ascii_alphanumeric() || c == ' '),
                "{family}"
            );
            for face in faces {
                let bytes = file(face.file).unwrap_or_else(|| panic!("{} is not embedded", face.file));
                assert!(bytes.starts_with(b"wOF2"), "{} is not woff2", face.file);
                assert!(matches!(face.style, "normal" | "italic"), "{face:?}");
                assert!(face.weight.split(' ').all(|w| w.parse::<u16>().is_ok()), "{face:?}");
                assert!(face.unicode_range.starts_with("U+"), "{face:?}");
            }
            for subset in ["-latin-", "-latin-ext-"] {
                assert!(
                    faces.iter().any(|f| f.file.contains(subset) && f.style == "normal"),
                    "{name} has no{subset}face"
                );
            }
        }
        assert_eq!(
            faces("ABCFavorit"),
            faces("Inter"),
            "the proprietary default is drawn with Inter"
        );
        assert_eq!(faces("OpenSans").map(|(family, _)| family), Some("Open Sans"));
        // Text fonts have italics (in every subset they cover).
        let (_, inter) = faces("Inter").expect("Inter");
        assert_eq!(inter.iter().filter(|f| f.style == "italic").count(), 2);
    }

    #[test]
    fn unknown_names_and_files_are_none() {
        assert_eq!(faces("Comic Sans"), None);
        assert_eq!(faces("inter"), None, "GitBook's names, exactly");
        assert_eq!(file("nope.woff2"), None);
        assert_eq!(file(""), None);
        assert_eq!(file("../Cargo.toml"), None);
    }

    #[test]
    fn file_names_carry_their_content_hash_and_are_sorted_and_all_used() {
        let names: Vec<&str> = table::FILES.iter().map(|(name, _)| *name).collect();
        assert!(
            names.windows(2).all(|w| w[0] < w[1]),
            "sorted for the search, no duplicate"
        );
        for (name, bytes) in table::FILES {
            let hash: String = Sha256::digest(bytes)[..4].iter().map(|b| format!("{b:02x}")).collect();
            assert!(name.ends_with(&format!(".{hash}.woff2")), "{name}");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.'),
                "URL-safe: {name}"
            );
            assert!(
                table::FONTS
                    .iter()
                    .any(|(_, _, faces)| faces.iter().any(|f| f.file == *name)),
                "{name} is a face"
            );
        }
    }

    #[test]
    fn what_the_binary_carries_stays_small() {
        let total: usize = table::FILES.iter().map(|(_, bytes)| bytes.len()).sum();
        assert!(total < 3_500_000, "{total} bytes of fonts");
    }
}
