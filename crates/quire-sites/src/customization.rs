//! A site's customization: its title, colours, theme, logo, favicon,
//! header links, footer and announcement (the official
//! `SiteCustomizationSettings`). What an administrator set is stored as
//! given (after checks) and read merged over [`defaults`], so every read
//! is complete; the published site applies it.
//!
//! A site space (a language variant, a version) may override part of it:
//! its overrides are kept apart, changed as a merge patch (`null` removes
//! an override) and read merged over the site's settings.

use std::sync::LazyLock;

use quire_core::Timestamp;
use quire_store::sites::{self, SiteRow, SiteSpaceCustomizationRow};
use serde_json::{Map, Value, json};

use quire_app::access;
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller, input};

/// Settings a site starts with.
pub fn defaults() -> Value {
    json!({
        "styling": {
            "theme": "clean",
            "primaryColor": { "light": "#346DDB", "dark": "#346DDB" },
            "infoColor": { "light": "#787878", "dark": "#787878" },
            "successColor": { "light": "#00C950", "dark": "#00C950" },
            "warningColor": { "light": "#FE9A00", "dark": "#FE9A00" },
            "dangerColor": { "light": "#FB2C36", "dark": "#FB2C36" },
            "corners": "straight",
            "depth": "subtle",
            "links": "default",
            "font": "ABCFavorit",
            "monospaceFont": "FiraCode",
            "codeTheme": {
                "default": { "light": "default-light", "dark": "default-light" },
                "openapi": { "light": "default-light", "dark": "default-light" }
            },
            "background": "plain",
            "icons": "regular",
            "sidebar": { "background": "default", "list": "default" },
            "search": "prominent"
        },
        "internationalization": { "locale": "en" },
        "favicon": {},
        "header": { "preset": "default", "links": [] },
        "footer": { "groups": [] },
        "themes": { "default": "system", "toggeable": true },
        "feedback": { "enabled": false },
        "ai": { "mode": "none" },
        "advancedCustomization": { "enabled": false },
        "trademark": { "enabled": false },
        "externalLinks": { "target": "self" },
        "pagination": { "enabled": true },
        // What GitBook's sites offer unless told otherwise.
        "pageActions": { "items": ["assistant", "markdown", "external-ai", "mcp", "pdf", "git"] },
        "privacyPolicy": {},
        "socialPreview": {},
        "socialAccounts": [],
        "insights": { "trackingCookie": true }
    })
}

/// A site's settings, complete, and when they last changed.
#[derive(Debug, Clone)]
pub struct Customization {
    pub settings: Value,
    pub updated_at: Option<Timestamp>,
}

/// Objects merge key by key; anything else replaces.
fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// The site's customization as stored (`{"settings": ..., "updatedAt": ms}`)
/// over the defaults.
pub fn of(site: &SiteRow) -> Customization {
    let stored: Value = serde_json::from_str(&site.customization).unwrap_or_else(|_| json!({}));
    let mut settings = defaults();
    if let Some(set) = stored.get("settings") {
        merge(&mut settings, set);
    }
    Customization {
        settings,
        updated_at: stored.get("updatedAt").and_then(Value::as_i64).map(Timestamp),
    }
}

/// The site's settings with a site space's overrides (`{"settings": ...}`
/// as stored) over them.
pub fn of_site_space(site: &SiteRow, overrides: Option<&SiteSpaceCustomizationRow>) -> Customization {
    let mut customization = of(site);
    if let Some(row) = overrides {
        let stored: Value = serde_json::from_str(&row.settings).unwrap_or_else(|_| json!({}));
        merge(&mut customization.settings, &stored);
        customization.updated_at = customization.updated_at.max(Some(row.updated_at));
    }
    customization
}

/// Settings a site space may override (the official override operation's).
const SITE_SPACE_KEYS: [&str; 15] = [
    "title",
    "localizedTitle",
    "styling",
    "internationalization",
    "favicon",
    "announcement",
    "header",
    "footer",
    "themes",
    "feedback",
    "externalLinks",
    "pagination",
    "trademark",
    "privacyPolicy",
    "socialPreview",
];

/// Applies a merge patch: objects merge key by key, `null` removes a key,
/// anything else replaces; objects left empty go too.
fn apply_patch(base: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        match value {
            Value::Null => {
                base.remove(key);
            }
            Value::Object(inner) => {
                let mut target = match base.remove(key) {
                    Some(Value::Object(existing)) => existing,
                    _ => Map::new(),
                };
                apply_patch(&mut target, inner);
                if !target.is_empty() {
                    base.insert(key.clone(), Value::Object(target));
                }
            }
            other => {
                base.insert(key.clone(), other.clone());
            }
        }
    }
}

const KEYS: [&str; 20] = [
    "title",
    "styling",
    "internationalization",
    "favicon",
    "header",
    "footer",
    "announcement",
    "themes",
    "feedback",
    "ai",
    "advancedCustomization",
    "pageActions",
    "externalLinks",
    "pagination",
    "trademark",
    "privacyPolicy",
    "socialPreview",
    "socialAccounts",
    "insights",
    "localizedTitle",
];

fn invalid<T>(message: impl Into<String>) -> AppResult<T> {
    Err(AppError::invalid(message.into()))
}

fn color(field: &str, value: &Value) -> AppResult<()> {
    let ok = value.as_str().is_some_and(|c| {
        c.strip_prefix('#')
            .is_some_and(|hex| matches!(hex.len(), 3 | 6) && hex.chars().all(|ch| ch.is_ascii_hexdigit()))
    });
    if ok {
        Ok(())
    } else {
        invalid(format!("{field} must be a colour such as #346DDB"))
    }
}

fn themed_url(field: &str, value: &Value) -> AppResult<()> {
    for mode in ["light", "dark"] {
        match value.get(mode).and_then(Value::as_str) {
            Some(url) => {
                input::http_url(&format!("{field}.{mode}"), url)?;
            }
            None => return invalid(format!("{field}.{mode} must be a URL")),
        }
    }
    Ok(())
}

/// A font family name safe to put in a stylesheet: letters, digits,
/// spaces and hyphens.
fn font_family(field: &str, name: &str) -> AppResult<()> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-') {
        return invalid(format!(
            "{field} must be a font name of letters, digits, spaces and hyphens"
        ));
    }
    Ok(())
}

/// A font: a name (one of the platform's fonts, preferred when the reader
/// has it) or a definition of a web font (`fontFamily` and its
/// `fontFaces`, each a weight and the URLs of its woff2/woff files).
fn check_font(field: &str, font: &Value) -> AppResult<()> {
    let definition = match font {
        Value::Null if field == "styling.headingFont" => return Ok(()),
        Value::String(name) => return font_family(field, name),
        Value::Object(definition) => definition,
        _ => return invalid(format!("{field} must be a font name or a font definition")),
    };
    for key in definition.keys() {
        if !["id", "custom", "fontFamily", "fontFaces", "permissions"].contains(&key.as_str()) {
            return invalid(format!("{field} has an unknown field {key:?}"));
        }
    }
    if !definition.get("id").is_some_and(Value::is_string) || !definition.get("custom").is_some_and(Value::is_boolean) {
        return invalid(format!("{field} needs an id and custom (true or false)"));
    }
    let family = definition.get("fontFamily").and_then(Value::as_str).unwrap_or_default();
    font_family(&format!("{field}.fontFamily"), family)?;
    let faces = match definition.get("fontFaces").and_then(Value::as_array) {
        Some(faces) if !faces.is_empty() && faces.len() <= 16 => faces,
        _ => return invalid(format!("{field}.fontFaces must list 1 to 16 font faces")),
    };
    for (i, face) in faces.iter().enumerate() {
        let at = format!("{field}.fontFaces[{i}]");
        if !face
            .get("weight")
            .and_then(Value::as_u64)
            .is_some_and(|w| (1..=1000).contains(&w))
        {
            return invalid(format!("{at}.weight must be a whole number from 1 to 1000"));
        }
        let sources = match face.get("sources").and_then(Value::as_array) {
            Some(sources) if !sources.is_empty() && sources.len() <= 4 => sources,
            _ => return invalid(format!("{at}.sources must list 1 to 4 font files")),
        };
        for (j, source) in sources.iter().enumerate() {
            let url = source.get("url").and_then(Value::as_str).unwrap_or_default();
            let safe = !url.is_empty()
                && url.len() <= 2048
                && !url
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || "\"'()\\<>".contains(c))
                && (url.starts_with('/') && !url.starts_with("//") || input::http_url("url", url).is_ok());
            if !safe {
                return invalid(format!("{at}.sources[{j}].url must be an http(s) URL or a path"));
            }
            if let Some(format) = source.get("format")
                && !matches!(format.as_str(), Some("woff2" | "woff"))
            {
                return invalid(format!("{at}.sources[{j}].format must be woff2 or woff"));
            }
        }
    }
    Ok(())
}

/// The value each enumerated or boolean setting may take, as the official
/// `SiteCustomizationSettings` says (`customization.schema.json`, Quire's
/// reading of it); colours, URLs, fonts and links are checked below.
static SHAPE: LazyLock<Option<jsonschema::Validator>> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(include_str!("customization.schema.json")).ok()?;
    jsonschema::draft7::new(&schema).ok()
});

/// `value` without its `null`s (in a merge patch they remove a setting;
/// they are no value to check).
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// Refuses a value outside the official enumerations, naming the setting
/// (`styling.theme`, `header.links[0].style`).
fn check_shape(settings: &Map<String, Value>) -> AppResult<()> {
    let Some(validator) = SHAPE.as_ref() else {
        return Err(AppError::from(anyhow::anyhow!(
            "the customization schema does not compile"
        )));
    };
    let given = without_nulls(&Value::Object(settings.clone()));
    if let Some(error) = validator.iter_errors(&given).next() {
        let mut field = String::new();
        for segment in error.instance_path().as_str().split('/').filter(|s| !s.is_empty()) {
            if segment.chars().all(|c| c.is_ascii_digit()) {
                field.push_str(&format!("[{segment}]"));
            } else {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(segment);
            }
        }
        let allowed = match error.kind() {
            jsonschema::error::ValidationErrorKind::Enum { options } => format!("one of {options}"),
            jsonschema::error::ValidationErrorKind::Type {
                kind: jsonschema::error::TypeKind::Single(kind),
            } => match kind.to_string().as_str() {
                "boolean" => "true or false".to_owned(),
                "object" => "an object".to_owned(),
                "array" => "a list".to_owned(),
                other => format!("a {other}"),
            },
            jsonschema::error::ValidationErrorKind::AnyOf { .. } => {
                "one of the names listed in the official API, or a font definition".to_owned()
            }
            _ => error.to_string(),
        };
        return invalid(format!("{field} must be {allowed}, not {}", error.instance()));
    }
    Ok(())
}

/// The checks that keep a stored customization readable and safe to
/// render; the rest is kept as given.
fn check(settings: &Map<String, Value>) -> AppResult<()> {
    for key in settings.keys() {
        if !KEYS.contains(&key.as_str()) {
            return invalid(format!("unknown customization setting {key:?}"));
        }
    }
    check_shape(settings)?;
    for (key, value) in settings {
        if key != "title" && key != "socialAccounts" && !value.is_object() {
            return invalid(format!("{key} must be an object"));
        }
    }
    if let Some(title) = settings.get("title") {
        input::title("title", title.as_str().unwrap_or_default(), 2, 128)?;
    }
    if let Some(styling) = settings.get("styling") {
        for name in [
            "primaryColor",
            "infoColor",
            "successColor",
            "warningColor",
            "dangerColor",
        ] {
            if let Some(pair) = styling.get(name) {
                for mode in ["light", "dark"] {
                    color(
                        &format!("styling.{name}.{mode}"),
                        pair.get(mode).unwrap_or(&Value::Null),
                    )?;
                }
            }
        }
        // The tint may be removed (null); a tint has both colours.
        if let Some(pair) = styling.get("tint").filter(|t| !t.is_null()).map(|t| &t["color"]) {
            for mode in ["light", "dark"] {
                color(&format!("styling.tint.color.{mode}"), &pair[mode])?;
            }
        }
    }
    if let Some(header) = settings.get("header") {
        for name in ["backgroundColor", "linkColor"] {
            if let Some(pair) = header.get(name).filter(|p| !p.is_null()) {
                for mode in ["light", "dark"] {
                    color(&format!("header.{name}.{mode}"), &pair[mode])?;
                }
            }
        }
    }
    for name in ["font", "monospaceFont", "headingFont"] {
        if let Some(font) = settings.get("styling").and_then(|s| s.get(name)) {
            check_font(&format!("styling.{name}"), font)?;
        }
    }
    if let Some(mode) = settings.get("themes").and_then(|t| t.get("default"))
        && !matches!(mode.as_str(), Some("light" | "dark" | "system"))
    {
        return invalid("themes.default must be light, dark or system");
    }
    if let Some(icon) = settings.get("favicon").and_then(|f| f.get("icon")) {
        themed_url("favicon.icon", icon)?;
    }
    if let Some(header) = settings.get("header") {
        if let Some(logo) = header.get("logo") {
            themed_url("header.logo", logo)?;
        }
        if let Some(links) = header.get("links") {
            let Some(links) = links.as_array() else {
                return invalid("header.links must be a list");
            };
            for (i, link) in links.iter().enumerate() {
                if !link.get("title").is_some_and(Value::is_string) {
                    return invalid(format!("header.links[{i}].title must be text"));
                }
                if !link.get("links").is_some_and(Value::is_array) {
                    return invalid(format!(
                        "header.links[{i}].links must be a list (of sub-links, possibly empty)"
                    ));
                }
            }
        }
    }
    if let Some(footer) = settings.get("footer")
        && let Some(copyright) = footer.get("copyright")
        && copyright.as_str().is_none_or(|c| c.chars().count() > 512)
    {
        return invalid("footer.copyright must be text of at most 512 characters");
    }
    if let Some(a) = settings.get("announcement") {
        if !a.get("enabled").is_some_and(Value::is_boolean) {
            return invalid("announcement.enabled must be true or false");
        }
        let message = a.get("message").and_then(Value::as_str).unwrap_or_default();
        input::title("announcement.message", message, 2, 128)?;
        if !matches!(
            a.get("style").and_then(Value::as_str),
            Some("info" | "warning" | "danger" | "success")
        ) {
            return invalid("announcement.style must be info, warning, danger or success");
        }
    }
    Ok(())
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<Customization> {
    let mut conn = app.db.read().await?;
    let (site, _) = access::site(&mut conn, caller, org_id, site_id).await?;
    Ok(of(&site))
}

/// Replaces what the administrator set (missing settings take their
/// defaults).
pub async fn put(app: &App, caller: &Caller, org_id: &str, site_id: &str, settings: Value) -> AppResult<Customization> {
    let Some(object) = settings.as_object() else {
        return invalid("the customization must be an object");
    };
    let mut object = object.clone();
    object.remove("updatedAt");
    check(&object)?;
    let mut tx = app.db.write().await?;
    let (mut site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    let now = app.now();
    site.customization = json!({ "settings": object, "updatedAt": now.0 }).to_string();
    site.updated_at = now;
    sites::put_site(&mut tx, &site).await?;
    tx.commit().await?;
    Ok(of(&site))
}

/// A site space of the site, with what it overrides; 404 when the site has
/// no such site space.
async fn site_space_overrides(
    conn: &mut quire_store::Conn,
    site: &SiteRow,
    site_space_id: &str,
) -> AppResult<Option<SiteSpaceCustomizationRow>> {
    let structure = sites::structure(conn, &site.id).await?;
    if !structure.site_spaces.iter().any(|s| s.id == site_space_id) {
        return Err(AppError::not_found("site space", site_space_id));
    }
    let rows = sites::site_space_customizations(conn, &site.id).await?;
    Ok(rows.into_iter().find(|r| r.site_space_id == site_space_id))
}

/// The customization readers of a site space get: the site's, with the
/// site space's overrides.
pub async fn get_site_space(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    site_space_id: &str,
) -> AppResult<Customization> {
    let mut conn = app.db.read().await?;
    let (site, _) = access::site(&mut conn, caller, org_id, site_id).await?;
    let overrides = site_space_overrides(&mut conn, &site, site_space_id).await?;
    Ok(of_site_space(&site, overrides.as_ref()))
}

/// Changes what a site space overrides: only the settings given; `null`
/// removes an override.
pub async fn patch_site_space(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    site_space_id: &str,
    patch: Value,
) -> AppResult<Customization> {
    let Some(patch) = patch.as_object() else {
        return invalid("the customization overrides must be an object");
    };
    for key in patch.keys() {
        if !SITE_SPACE_KEYS.contains(&key.as_str()) {
            return invalid(format!("{key:?} cannot be overridden for a site space"));
        }
    }
    let mut tx = app.db.write().await?;
    let (site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    let existing = site_space_overrides(&mut tx, &site, site_space_id).await?;
    let mut overrides = existing
        .as_ref()
        .and_then(|row| serde_json::from_str::<Map<String, Value>>(&row.settings).ok())
        .unwrap_or_default();
    apply_patch(&mut overrides, patch);
    check(&overrides)?;
    let row = SiteSpaceCustomizationRow {
        site_space_id: site_space_id.to_owned(),
        settings: Value::Object(overrides).to_string(),
        updated_at: app.now(),
    };
    sites::put_site_space_customization(&mut tx, &site.id, &row).await?;
    tx.commit().await?;
    Ok(of_site_space(&site, Some(&row)))
}

/// Removes every override of a site space (nothing to remove is fine).
pub async fn delete_site_space(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    site_space_id: &str,
) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let (site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    site_space_overrides(&mut tx, &site, site_space_id).await?;
    sites::delete_site_space_customization(&mut tx, &site.id, site_space_id).await?;
    tx.commit().await?;
    Ok(())
}

/// The customization of every site space of a site, with whether it
/// overrides anything (for the published content site).
pub async fn of_site_spaces(
    conn: &mut quire_store::Conn,
    site: &SiteRow,
) -> AppResult<Vec<(String, Customization, bool)>> {
    let structure = sites::structure(conn, &site.id).await?;
    let rows = sites::site_space_customizations(conn, &site.id).await?;
    Ok(structure
        .site_spaces
        .iter()
        .map(|s| {
            let row = rows.iter().find(|r| r.site_space_id == s.id);
            let has_overrides = row.is_some_and(|r| r.settings != "{}");
            (s.id.clone(), of_site_space(site, row), has_overrides)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_merge_over_defaults_and_are_checked() {
        let mut settings = defaults();
        merge(
            &mut settings,
            &json!({ "styling": { "primaryColor": { "light": "#ff0000", "dark": "#00ff00" } } }),
        );
        assert_eq!(settings["styling"]["primaryColor"]["dark"], "#00ff00");
        assert_eq!(settings["styling"]["font"], "ABCFavorit");
        let ok =
            json!({ "title": "Docs", "announcement": { "enabled": true, "message": "New release", "style": "info" } });
        assert!(check(ok.as_object().unwrap()).is_ok());
        let web_font = json!({ "styling": { "font": { "id": "brand", "custom": true, "fontFamily": "Brand Sans", "fontFaces": [
            { "weight": 400, "sources": [{ "url": "https://cdn.example/brand.woff2", "format": "woff2" }] },
            { "weight": 700, "sources": [{ "url": "/docs/~files/abc" }] }
        ] } } });
        assert!(check(web_font.as_object().unwrap()).is_ok());
        for bad in [
            json!({ "nope": {} }),
            json!({ "styling": { "primaryColor": { "light": "red", "dark": "#fff" } } }),
            json!({ "themes": { "default": "sepia" } }),
            json!({ "favicon": { "icon": { "light": "javascript:x", "dark": "https://x.example/i.png" } } }),
            json!({ "announcement": { "enabled": true, "message": "x", "style": "info" } }),
            json!({ "title": "x" }),
            json!({ "styling": { "font": "x;}body{display:none" } }),
            json!({ "styling": { "font": { "id": "f", "custom": true, "fontFamily": "Brand", "fontFaces": [] } } }),
            json!({ "styling": { "font": { "id": "f", "custom": true, "fontFamily": "Brand", "fontFaces": [
                { "weight": 400, "sources": [{ "url": "https://x.example/a.woff2') } body { x: url('y" }] }
            ] } } }),
            json!({ "styling": { "monospaceFont": { "id": "m", "custom": true, "fontFamily": "Mono", "fontFaces": [
                { "weight": 4000, "sources": [{ "url": "https://x.example/m.woff2" }] }
            ] } } }),
        ] {
            assert!(check(bad.as_object().unwrap()).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_outside_the_official_enumerations_are_refused_by_name() {
        let message = |bad: Value| match check(bad.as_object().unwrap()) {
            Err(AppError::Invalid(message)) => message,
            other => panic!("{bad} was not refused: {other:?}"),
        };
        assert_eq!(
            message(json!({ "styling": { "theme": "sepia" } })),
            r#"styling.theme must be one of ["clean","muted","bold","gradient"], not "sepia""#
        );
        assert_eq!(
            message(json!({ "pagination": { "enabled": "yes" } })),
            r#"pagination.enabled must be true or false, not "yes""#
        );
        assert!(
            message(json!({ "header": { "links": [{ "title": "A", "style": "fancy" }] } }))
                .starts_with("header.links[0].style must be one of")
        );
        assert!(
            message(json!({ "styling": { "codeTheme": { "default": { "light": "neon", "dark": "dracula" } } } }))
                .starts_with("styling.codeTheme.default.light must be one of")
        );
        assert!(message(json!({ "styling": { "font": "Comic Sans" } })).starts_with("styling.font must be one of"));
        assert!(message(json!({ "ai": { "mode": "chatty" } })).starts_with("ai.mode must be"));
        assert!(
            message(
                json!({ "styling": { "tint": { "color": { "light": "#fff;}body{display:none", "dark": "#000" } } } })
            )
            .starts_with("styling.tint.color.light must be a colour")
        );
        assert!(
            message(json!({ "header": { "backgroundColor": { "light": "#fff", "dark": "red" } } }))
                .starts_with("header.backgroundColor.dark must be a colour")
        );
        assert!(
            message(json!({ "pageActions": { "items": ["markdown", "fax"] } }))
                .starts_with("pageActions.items[1] must be")
        );
        // Every official value passes, and null (a patch removing a setting) too.
        let good = json!({
            "styling": { "theme": "gradient", "corners": "circular", "depth": "flat", "links": "accent",
                "font": "Inter", "headingFont": null, "monospaceFont": "JetBrainsMono", "background": "match",
                "icons": "duotone", "sidebar": { "background": "filled", "list": "pill" }, "search": "subtle",
                "codeTheme": { "default": { "light": "github-light", "dark": "github-dark" } } },
            "ai": { "mode": "assistant" },
            "pageActions": { "items": ["markdown", "pdf", "mcp"] },
            "externalLinks": { "target": "blank" },
            "pagination": { "enabled": false },
            "socialAccounts": [{ "platform": "github", "handle": "gitbook", "display": { "footer": true, "header": false } }]
        });
        assert!(
            check(good.as_object().unwrap()).is_ok(),
            "{:?}",
            check(good.as_object().unwrap())
        );
    }

    #[test]
    fn overrides_change_as_a_merge_patch() {
        let mut overrides = json!({ "title": "Docs FR", "styling": { "theme": "bold", "corners": "rounded" } })
            .as_object()
            .unwrap()
            .clone();
        let patch = json!({ "styling": { "theme": null, "corners": null }, "themes": { "default": "dark" } });
        apply_patch(&mut overrides, patch.as_object().unwrap());
        assert_eq!(
            Value::Object(overrides),
            json!({ "title": "Docs FR", "themes": { "default": "dark" } })
        );
    }
}
