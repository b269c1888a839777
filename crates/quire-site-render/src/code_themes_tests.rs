//! The generated table of code themes checked against the schema's names.

use super::*;

/// The names `styling.codeTheme` accepts, from the schema of the
/// customization (the same enum for each of its four values).
fn schema_names() -> Vec<String> {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../quire-sites/src/customization.schema.json")).unwrap();
    fn find<'a>(v: &'a serde_json::Value) -> Option<&'a serde_json::Value> {
        match v {
            serde_json::Value::Object(map) => map.get("codeTheme").or_else(|| map.values().find_map(find)),
            serde_json::Value::Array(items) => items.iter().find_map(find),
            _ => None,
        }
    }
    let theme = find(&schema).expect("codeTheme in the schema");
    let names = |side: &str, mode: &str| -> Vec<String> {
        theme["properties"][side]["properties"][mode]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect()
    };
    let all = names("default", "light");
    for (side, mode) in [("default", "dark"), ("openapi", "light"), ("openapi", "dark")] {
        assert_eq!(names(side, mode), all, "{side}.{mode}");
    }
    all
}

#[test]
fn every_name_of_the_schema_has_a_palette_and_no_other() {
    let names = schema_names();
    assert_eq!(names.len(), 64);
    let table: Vec<&str> = THEMES.iter().map(|p| p.name).collect();
    assert_eq!(table, names.iter().map(String::as_str).collect::<Vec<_>>());
    for name in &names {
        assert_eq!(palette(name).map(|p| p.name), Some(name.as_str()));
    }
    assert_eq!(palette("neon"), None);
}

#[test]
fn every_colour_is_hex() {
    let hex = |c: &str| {
        (c.len() == 7 || c.len() == 9)
            && c.starts_with('#')
            && c[1..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    for p in THEMES {
        for (what, colour) in [
            ("background", p.background),
            ("foreground", p.foreground),
            ("comment", p.comment),
            ("string", p.string),
            ("number", p.number),
            ("keyword", p.keyword),
        ] {
            assert!(hex(colour), "{} {what}: {colour}", p.name);
        }
    }
}

#[test]
fn themes_have_their_own_colours() {
    let dracula = palette("dracula").unwrap();
    assert_eq!(dracula.background, "#282a36");
    assert_eq!(dracula.foreground, "#f8f8f2");
    assert_eq!(dracula.comment, "#6272a4");
    assert_eq!(palette("github-light").unwrap().background, "#ffffff");
    // Monochrome: no token colours, comments dimmed.
    for name in ["monochrome-light", "monochrome-dark"] {
        let p = palette(name).unwrap();
        assert_eq!(
            (p.string, p.number, p.keyword),
            (p.foreground, p.foreground, p.foreground)
        );
        assert_ne!(p.comment, p.foreground);
    }
}

#[test]
fn the_defaults_change_nothing() {
    assert_eq!(chosen("default-light"), None);
    assert_eq!(chosen("default-dark"), None);
    assert_eq!(chosen("no-such-theme"), None);
    assert_eq!(chosen("dracula").map(|p| p.background), Some("#282a36"));
    assert!(chosen("monochrome-dark").is_some());
}
