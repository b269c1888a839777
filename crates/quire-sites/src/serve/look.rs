//! A site's look: its customization (and a site space's overrides) as the
//! title, colours, font and switches the layout draws.

use super::*;

/// What the site's customization (with the overrides of the site space
/// being read, if any) changes on its pages.
pub(super) fn look(site: &quire_store::sites::SiteRow, space: Option<&PublishedSpace>) -> (String, Look) {
    let overrides = space.and_then(|s| s.overrides.as_ref());
    let settings = crate::customization::of_site_space(site, overrides).settings;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
    let url_of = |to: &serde_json::Value| match to.get("kind").and_then(|k| k.as_str()) {
        Some("url") => text(&to["url"]),
        _ => None,
    };
    let title = text(&settings["title"]).unwrap_or_else(|| site.title.clone());
    let primary = &settings["styling"]["primaryColor"];
    let theme = text(&settings["themes"]["default"]).filter(|t| t == "light" || t == "dark");
    let announcement = settings
        .get("announcement")
        .filter(|a| a["enabled"] == true)
        .and_then(|a| {
            Some((
                text(&a["message"])?,
                a.get("link").and_then(|l| url_of(&l["to"])),
                text(&a["style"]).unwrap_or_else(|| "info".into()),
            ))
        });
    let header_links = settings["header"]["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| {
            Some(NavLink {
                title: text(&l["title"])?,
                href: url_of(&l["to"])?,
                current: false,
            })
        })
        .collect();
    // The default fonts are the platform's own.
    let defaults = crate::customization::defaults();
    let chosen = |name: &str| {
        Some(&settings["styling"][name])
            .filter(|f| **f != defaults["styling"][name])
            .and_then(font)
    };
    let look = Look {
        font: chosen("font"),
        monospace_font: chosen("monospaceFont"),
        accent: text(&primary["light"]).zip(text(&primary["dark"])),
        toggle: settings["themes"]["toggeable"] != false,
        theme,
        favicon: text(&settings["favicon"]["icon"]["light"]),
        logo: text(&settings["header"]["logo"]["light"]),
        header_links,
        announcement,
        copyright: text(&settings["footer"]["copyright"]),
        language: Language::of_locale(settings["internationalization"]["locale"].as_str().unwrap_or_default()),
    };
    (title, look)
}

/// A font setting: one of the platform's fonts by name (its family, preferred
/// when the reader has it) or a web font's definition with its files.
pub(super) fn font(setting: &serde_json::Value) -> Option<Font> {
    if let Some(name) = setting.as_str() {
        return Some(Font {
            family: family_of(name),
            faces: Vec::new(),
        });
    }
    let faces = setting["fontFaces"]
        .as_array()?
        .iter()
        .filter_map(|face| {
            let sources: Vec<(String, Option<String>)> = face["sources"]
                .as_array()?
                .iter()
                .filter_map(|s| Some((s["url"].as_str()?.to_owned(), s["format"].as_str().map(str::to_owned))))
                .collect();
            Some(FontFace {
                weight: face["weight"].as_u64()?,
                sources,
            })
        })
        .collect();
    Some(Font {
        family: setting["fontFamily"].as_str()?.to_owned(),
        faces,
    })
}

/// The CSS family of a platform font name (`OpenSans` is "Open Sans").
pub(super) fn family_of(name: &str) -> String {
    match name {
        "OpenSans" => "Open Sans",
        "RobotoSlab" => "Roboto Slab",
        "SourceSansPro" => "Source Sans Pro",
        "NotoSans" => "Noto Sans",
        "IBMPlexSerif" => "IBM Plex Serif",
        "FiraSans" => "Fira Sans",
        "FiraCode" => "Fira Code",
        "IBMPlexMono" => "IBM Plex Mono",
        "JetBrainsMono" => "JetBrains Mono",
        "SourceCodePro" => "Source Code Pro",
        "RobotoMono" => "Roboto Mono",
        "SpaceMono" => "Space Mono",
        "DMMono" => "DM Mono",
        other => other,
    }
    .to_owned()
}
