//! A site's look: its customization (and a site space's overrides) as the
//! title, colours, font and switches the layout draws.

use super::*;

/// What the site's customization (with the overrides of the site space
/// being read, if any) changes on its pages.
/// Where the customization's links lead (`{kind, ...}` content
/// references): an address as it is; a space of the site, or a page of the
/// space read, to its published URL when the caller can tell it.
pub(super) type Targets<'a> = &'a dyn Fn(&serde_json::Value) -> Option<String>;

/// A content reference to a URL only (where nothing else can be resolved).
pub(super) fn addresses_only(to: &serde_json::Value) -> Option<String> {
    (to["kind"] == "url")
        .then(|| to["url"].as_str().map(str::to_owned))
        .flatten()
}

/// Whether a link under a condition (`visitor.claims.plan == "pro"`) shows
/// to the visitor: the visit's rule, as for conditional blocks.
pub(super) type Shows<'a> = &'a dyn Fn(&str) -> bool;

/// `base` is the site's path (`/docs`, or empty on its own hostname), where
/// its named fonts are served.
pub(super) fn look(
    site: &quire_store::sites::SiteRow,
    space: Option<&PublishedSpace>,
    base: &str,
    targets: Targets<'_>,
    shows: Shows<'_>,
) -> (String, Look) {
    let overrides = space.and_then(|s| s.overrides.as_ref());
    let settings = crate::customization::of_site_space(site, overrides).settings;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
    let url_of = |to: &serde_json::Value| targets(to);
    // Localized titles and messages, keyed by locale, for the locale read.
    let locale = settings["internationalization"]["locale"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let localized = |field: &serde_json::Value| text(&field[locale.as_str()]);
    let title = localized(&settings["localizedTitle"])
        .or_else(|| text(&settings["title"]))
        .unwrap_or_else(|| site.title.clone());
    let primary = &settings["styling"]["primaryColor"];
    let theme = text(&settings["themes"]["default"]).filter(|t| t == "light" || t == "dark");
    let announcement = settings
        .get("announcement")
        .filter(|a| a["enabled"] == true)
        .and_then(|a| {
            Some((
                localized(&a["localizedMessage"]).or_else(|| text(&a["message"]))?,
                a.get("link").and_then(|l| url_of(&l["to"])),
                text(&a["style"]).unwrap_or_else(|| "info".into()),
            ))
        });
    let header_links = settings["header"]["links"]
        .as_array()
        .into_iter()
        .flatten()
        // A link shown only to some readers shows to them alone (answers
        // are kept per visitor's cookies, so no other reader sees it).
        .filter(|l| visible(l, shows))
        .filter_map(|l| {
            let links: Vec<NavLink> = l["links"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| visible(c, shows))
                .filter_map(|c| content_link(c, &url_of))
                .collect();
            let href = url_of(&l["to"]);
            (href.is_some() || !links.is_empty()).then(|| HeaderLink {
                title: text(&l["title"]).unwrap_or_default(),
                href,
                style: text(&l["style"]).unwrap_or_else(|| "link".into()),
                links,
            })
        })
        .filter(|l| !l.title.is_empty())
        .collect();
    // The default fonts are the platform's own.
    let defaults = crate::customization::defaults();
    let chosen = |name: &str| {
        Some(&settings["styling"][name])
            .filter(|f| **f != defaults["styling"][name])
            .and_then(|f| font(f, base))
    };
    let styling_of = |setting: &str| text(&settings["styling"][setting]);
    let pair = |value: &serde_json::Value| text(&value["light"]).zip(text(&value["dark"]));
    let tint = pair(&settings["styling"]["tint"]["color"]);
    // A coloured header (the legacy presets): its own colours, else the
    // tint's or the accent's, with text that reads on it.
    let header_colors = match settings["header"]["preset"].as_str() {
        Some("bold" | "custom") => pair(&settings["header"]["backgroundColor"])
            .filter(|_| settings["header"]["preset"] == "custom")
            .or_else(|| tint.clone())
            .or_else(|| pair(&settings["styling"]["primaryColor"]))
            .map(|(bg_light, bg_dark)| {
                let fg = pair(&settings["header"]["linkColor"])
                    .filter(|_| settings["header"]["preset"] == "custom")
                    .unwrap_or_else(|| {
                        (
                            quire_site_render::color::text_on(&bg_light).to_owned(),
                            quire_site_render::color::text_on(&bg_dark).to_owned(),
                        )
                    });
                [(bg_light, bg_dark), fg]
            }),
        _ => None,
    };
    let mut styling = Vec::new();
    for (attribute, value) in [
        ("look", styling_of("theme")),
        ("corners", styling_of("corners")),
        ("depth", styling_of("depth")),
        ("links", styling_of("links")),
        ("search", styling_of("search")),
        ("sidebar", text(&settings["styling"]["sidebar"]["background"])),
        ("list", text(&settings["styling"]["sidebar"]["list"])),
        ("header", text(&settings["header"]["preset"]).filter(|p| p != "default")),
        ("tint", tint.as_ref().map(|_| "on".to_owned())),
    ] {
        if let Some(value) = value {
            styling.push((attribute, value));
        }
    }
    let themed = |value: &serde_json::Value| {
        let light = text(&value["light"])?;
        let dark = text(&value["dark"]).filter(|d| *d != light);
        Some((light, dark))
    };
    let logo = themed(&settings["header"]["logo"]);
    let favicon = themed(&settings["favicon"]["icon"]);
    let social = settings["socialAccounts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| {
            let platform = text(&a["platform"])?;
            let url = social_url(&platform, a["handle"].as_str()?)?;
            Some(SocialLink {
                platform,
                url,
                header: a["display"]["header"] == true,
                footer: a["display"]["footer"] != false,
            })
        })
        .collect();
    let footer_groups = settings["footer"]["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| {
            let links: Vec<NavLink> = g["links"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| content_link(c, &url_of))
                .collect();
            Some((text(&g["title"])?, links))
        })
        .collect();
    // Hints' colours, where the site changed them from the defaults.
    let hint_colors = [
        ("info", "infoColor"),
        ("success", "successColor"),
        ("warning", "warningColor"),
        ("danger", "dangerColor"),
    ]
    .into_iter()
    .filter(|(_, setting)| settings["styling"][setting] != defaults["styling"][setting])
    .filter_map(|(style, setting)| {
        let pair = &settings["styling"][setting];
        Some((style, text(&pair["light"])?, text(&pair["dark"])?))
    })
    .collect();
    let look = Look {
        home_link: url_of(&settings["header"]["primaryLink"]),
        hint_colors,
        styling,
        font: chosen("font"),
        heading_font: Some(&settings["styling"]["headingFont"])
            .filter(|f| !f.is_null())
            .and_then(|f| font(f, base)),
        monospace_font: chosen("monospaceFont"),
        accent: text(&primary["light"]).zip(text(&primary["dark"])),
        tint,
        header_colors,
        toggle: settings["themes"]["toggeable"] != false,
        theme,
        favicon: favicon.as_ref().map(|(light, _)| light.clone()),
        favicon_dark: favicon.and_then(|(_, dark)| dark),
        favicon_emoji: text(&settings["favicon"]["emoji"]).map(|e| emoji(&e)),
        logo: logo.as_ref().map(|(light, _)| light.clone()),
        logo_dark: logo.and_then(|(_, dark)| dark),
        header_links,
        announcement,
        copyright: text(&settings["footer"]["copyright"]),
        footer_logo: themed(&settings["footer"]["logo"]),
        footer_groups,
        social,
        privacy_policy: text(&settings["privacyPolicy"]["url"]),
        social_image: text(&settings["socialPreview"]["url"]),
        social_image_size: None,
        external_blank: settings["externalLinks"]["target"] == "blank",
        icons: settings["styling"]["icons"]
            .as_str()
            .and_then(quire_site_render::icon::IconStyle::from_setting)
            .unwrap_or_default(),
        hide_pager: settings["pagination"]["enabled"] == false,
        page_actions: settings["pageActions"]["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        mcp_url: None,
        pdf_url: None,
        ask_url: None,
        edit_url: None,
        language: Language::of_locale(settings["internationalization"]["locale"].as_str().unwrap_or_default()),
        code_themes: code_themes(&settings["styling"]["codeTheme"]),
    };
    (title, look)
}

/// The code themes a site chose (`styling.codeTheme.default` for code
/// blocks, `.openapi` for OpenAPI operations' examples), by name; GitBook's
/// defaults, a missing value and a name that is no theme keep the
/// stylesheet's colours.
fn code_themes(setting: &serde_json::Value) -> quire_site_render::layout::CodeThemes {
    let theme = |side: &str, mode: &str| {
        setting[side][mode]
            .as_str()
            .and_then(quire_site_render::code_themes::chosen)
    };
    quire_site_render::layout::CodeThemes {
        light: theme("default", "light"),
        dark: theme("default", "dark"),
        openapi_light: theme("openapi", "light"),
        openapi_dark: theme("openapi", "dark"),
    }
}

/// Whether a customization link shows to the visitor: always without a
/// condition, else as the condition says (a condition that is no string
/// shows to nobody).
fn visible(link: &serde_json::Value, shows: Shows<'_>) -> bool {
    match link.get("condition") {
        None | Some(serde_json::Value::Null) => true,
        Some(serde_json::Value::String(condition)) => condition.trim().is_empty() || shows(condition),
        Some(_) => false,
    }
}

/// A link of the customization (`{title, to}`) to an address.
fn content_link(link: &serde_json::Value, url_of: &dyn Fn(&serde_json::Value) -> Option<String>) -> Option<NavLink> {
    Some(NavLink {
        title: link["title"].as_str()?.to_owned(),
        href: url_of(&link["to"])?,
        current: false,
    })
}

/// A social account's address on its platform.
fn social_url(platform: &str, handle: &str) -> Option<String> {
    let handle = handle.trim().trim_start_matches('@');
    if handle.is_empty() || !handle.chars().all(|c| c.is_alphanumeric() || "._-/".contains(c)) {
        return None;
    }
    let base = match platform {
        "twitter" => "https://x.com/",
        "instagram" => "https://www.instagram.com/",
        "facebook" => "https://www.facebook.com/",
        "linkedin" => "https://www.linkedin.com/",
        "github" => "https://github.com/",
        "discord" => "https://discord.gg/",
        "slack" => "https://join.slack.com/",
        "youtube" => "https://www.youtube.com/@",
        "tiktok" => "https://www.tiktok.com/@",
        "reddit" => "https://www.reddit.com/",
        "bluesky" => "https://bsky.app/profile/",
        "threads" => "https://www.threads.net/@",
        "medium" => "https://medium.com/@",
        // A Mastodon handle names its server: user@server.
        "mastodon" => {
            let (user, server) = handle.split_once('@')?;
            return Some(format!("https://{server}/@{user}"));
        }
        _ => return None,
    };
    Some(format!("{base}{handle}"))
}

/// An emoji setting as the character: given as the character, or as its
/// code points in hexadecimal (`1f389`, `1f1eb-1f1f7`).
fn emoji(value: &str) -> String {
    let points: Option<String> = value
        .split(['-', ' '])
        .map(|p| u32::from_str_radix(p, 16).ok().and_then(char::from_u32))
        .collect();
    match points {
        Some(text) if !value.is_empty() && value.chars().all(|c| c.is_ascii_hexdigit() || c == '-') => text,
        _ => value.to_owned(),
    }
}

/// A font setting: one of GitBook's named fonts (its faces served by the
/// site from the binary, `quire-site-fonts`), another name (preferred when
/// the reader has it) or a web font's definition with its files.
pub(super) fn font(setting: &serde_json::Value, base: &str) -> Option<Font> {
    if let Some(name) = setting.as_str() {
        let Some((family, faces)) = quire_site_fonts::faces(name) else {
            return Some(Font {
                family: name.to_owned(),
                faces: Vec::new(),
            });
        };
        let faces = faces
            .iter()
            .map(|face| FontFace {
                weight: face.weight.to_owned(),
                style: Some(face.style.to_owned()),
                unicode_range: Some(face.unicode_range.to_owned()),
                sources: vec![(format!("{base}/{FONTS_PATH}/{}", face.file), Some("woff2".to_owned()))],
            })
            .collect();
        return Some(Font {
            family: family.to_owned(),
            faces,
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
                weight: face["weight"].as_u64()?.to_string(),
                style: None,
                unicode_range: None,
                sources,
            })
        })
        .collect();
    Some(Font {
        family: setting["fontFamily"].as_str()?.to_owned(),
        faces,
    })
}

/// Where a site serves its named fonts' files, under its path.
pub(super) const FONTS_PATH: &str = "~gitbook/fonts";
