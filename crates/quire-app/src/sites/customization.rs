//! A site's customization: its title, colours, theme, logo, favicon,
//! header links, footer and announcement (the official
//! `SiteCustomizationSettings`). What an administrator set is stored as
//! given (after checks) and read merged over [`defaults`], so every read
//! is complete; the published site applies it.

use quire_core::Timestamp;
use quire_store::sites::{self, SiteRow};
use serde_json::{Map, Value, json};

use crate::access;
use crate::error::{AppError, AppResult};
use crate::{App, Caller, input};

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
        "pageActions": { "items": [] },
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

/// The checks that keep a stored customization readable and safe to
/// render; the rest is kept as given.
fn check(settings: &Map<String, Value>) -> AppResult<()> {
    for key in settings.keys() {
        if !KEYS.contains(&key.as_str()) {
            return invalid(format!("unknown customization setting {key:?}"));
        }
    }
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
    }
    if let Some(font) = settings.get("styling").and_then(|s| s.get("font"))
        && let Some(name) = font.as_str()
        && (name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == ' '))
    {
        return invalid("styling.font must be a font name of letters, digits and spaces");
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
        for bad in [
            json!({ "nope": {} }),
            json!({ "styling": { "primaryColor": { "light": "red", "dark": "#fff" } } }),
            json!({ "themes": { "default": "sepia" } }),
            json!({ "favicon": { "icon": { "light": "javascript:x", "dark": "https://x.example/i.png" } } }),
            json!({ "announcement": { "enabled": true, "message": "x", "style": "info" } }),
            json!({ "title": "x" }),
            json!({ "styling": { "font": "x;}body{display:none" } }),
        ] {
            assert!(check(bad.as_object().unwrap()).is_err(), "{bad}");
        }
    }
}
