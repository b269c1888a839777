//! Visitor authentication of `visitor-auth` sites: the site's signing key
//! and login URLs (the official `publishing/auth` operations), and the
//! check of a visitor's token — an HS256 JSON Web Token signed with that
//! key, refused when forged, malformed, expired or not yet valid. Its
//! claims are what adaptive conditions read as `visitor.claims`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use quire_core::Timestamp;
use quire_core::serde_util::nullable;
use quire_store::sites::{self, SiteRow};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::Sha256;

use quire_app::access;
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller, input};

/// Why a token was refused (for the log; visitors only see the login page).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the token is not a JWT")]
    Malformed,
    #[error("the token is not signed with HS256")]
    Algorithm,
    #[error("the token's signature does not match the site's key")]
    Signature,
    #[error("the token has expired")]
    Expired,
    #[error("the token is not valid yet")]
    NotYetValid,
}

/// Tolerated clock difference for `exp` and `nbf`, in seconds.
const LEEWAY_SECONDS: i64 = 30;

fn part(text: &str) -> Result<Vec<u8>, TokenError> {
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| TokenError::Malformed)
}

/// The claims of a valid token signed with `key`; `exp` is required.
pub fn verify(token: &str, key: &str, now: Timestamp) -> Result<Map<String, Value>, TokenError> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Malformed);
    };
    let header: Value = serde_json::from_slice(&part(header)?).map_err(|_| TokenError::Malformed)?;
    if header.get("alg").and_then(Value::as_str) != Some("HS256") {
        return Err(TokenError::Algorithm);
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).map_err(|_| TokenError::Signature)?;
    mac.update(&token.as_bytes()[..token.len() - signature.len() - 1]);
    mac.verify_slice(&part(signature)?).map_err(|_| TokenError::Signature)?;
    let claims: Map<String, Value> = serde_json::from_slice(&part(payload)?).map_err(|_| TokenError::Malformed)?;
    let seconds = now.0 / 1000;
    let exp = claims.get("exp").and_then(Value::as_i64).ok_or(TokenError::Expired)?;
    if exp + LEEWAY_SECONDS <= seconds {
        return Err(TokenError::Expired);
    }
    if claims
        .get("nbf")
        .and_then(Value::as_i64)
        .is_some_and(|nbf| nbf - LEEWAY_SECONDS > seconds)
    {
        return Err(TokenError::NotYetValid);
    }
    Ok(claims)
}

/// Signs claims with `key` (HS256); for tests and tools.
pub fn sign(claims: &Value, key: &str) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let signing_input = format!("{header}.{payload}");
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key.as_bytes()) else {
        return signing_input;
    };
    mac.update(signing_input.as_bytes());
    format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    )
}

/// The publishing auth settings of a site, as the official API shows them.
#[derive(Debug, Clone)]
pub struct PublishingAuth {
    pub private_key: String,
    pub fallback_url: Option<String>,
    pub logout_url: Option<String>,
}

fn of(site: &SiteRow) -> PublishingAuth {
    PublishingAuth {
        private_key: site.visitor_key.clone(),
        fallback_url: site.visitor_fallback_url.clone(),
        logout_url: site.visitor_logout_url.clone(),
    }
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<PublishingAuth> {
    let mut conn = app.db.read().await?;
    let (site, access) = access::site(&mut conn, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    Ok(of(&site))
}

/// The input of `PATCH .../publishing/auth`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishingAuthUpdate {
    pub backend: Option<String>,
    #[serde(default, deserialize_with = "nullable", rename = "fallbackURL")]
    pub fallback_url: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable", rename = "logoutURL")]
    pub logout_url: Option<Option<String>>,
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    update: PublishingAuthUpdate,
) -> AppResult<PublishingAuth> {
    if let Some(backend) = update.backend.as_deref().filter(|b| *b != "custom") {
        return Err(AppError::invalid(format!(
            "backend {backend:?} is not supported: only \"custom\" (tokens signed with the site's key)"
        )));
    }
    let fallback = update
        .fallback_url
        .map(|u| u.map(|u| input::http_url("fallbackURL", &u)).transpose())
        .transpose()?;
    let logout = update
        .logout_url
        .map(|u| u.map(|u| input::http_url("logoutURL", &u)).transpose())
        .transpose()?;
    let mut tx = app.db.write().await?;
    let (mut site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    if let Some(url) = fallback {
        site.visitor_fallback_url = url;
    }
    if let Some(url) = logout {
        site.visitor_logout_url = url;
    }
    site.updated_at = app.now();
    sites::put_site(&mut tx, &site).await?;
    tx.commit().await?;
    Ok(of(&site))
}

/// A new signing key: every token signed with the old one stops working.
pub async fn regenerate(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<PublishingAuth> {
    let mut tx = app.db.write().await?;
    let (mut site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    site.visitor_key = quire_core::id::random_alphanumeric(48);
    site.updated_at = app.now();
    sites::put_site(&mut tx, &site).await?;
    tx.commit().await?;
    Ok(of(&site))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    #[test]
    fn tokens_are_verified() {
        let good = sign(&json!({ "exp": 1_800_000_600, "plan": "pro" }), "secret");
        let claims = verify(&good, "secret", NOW).unwrap();
        assert_eq!(claims["plan"], "pro");
        assert_eq!(verify(&good, "other", NOW), Err(TokenError::Signature));
        let expired = sign(&json!({ "exp": 1_799_999_000 }), "secret");
        assert_eq!(verify(&expired, "secret", NOW), Err(TokenError::Expired));
        let no_exp = sign(&json!({ "plan": "pro" }), "secret");
        assert_eq!(verify(&no_exp, "secret", NOW), Err(TokenError::Expired));
        let later = sign(&json!({ "exp": 1_800_009_000, "nbf": 1_800_005_000 }), "secret");
        assert_eq!(verify(&later, "secret", NOW), Err(TokenError::NotYetValid));
        assert_eq!(verify("a.b", "secret", NOW), Err(TokenError::Malformed));
        assert_eq!(verify("!!.??.**", "secret", NOW), Err(TokenError::Malformed));
        // A token whose payload was changed after signing.
        let mut parts: Vec<&str> = good.split('.').collect();
        let forged_payload = URL_SAFE_NO_PAD.encode(json!({ "exp": 1_800_000_600, "plan": "enterprise" }).to_string());
        parts[1] = &forged_payload;
        assert_eq!(verify(&parts.join("."), "secret", NOW), Err(TokenError::Signature));
        // `alg: none` is refused.
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(br#"{"exp":1800000600}"#)
        );
        assert_eq!(verify(&none, "secret", NOW), Err(TokenError::Algorithm));
    }
}
