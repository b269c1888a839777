//! OpenID Connect: Quire as a confidential client of one provider the
//! operator configures ([`OidcSettings`]), with the authorization code flow
//! and PKCE (S256).
//!
//! 1. [`start`] reads the provider's discovery document (cached for an
//!    hour), keeps a request (state, nonce, PKCE verifier, where to return)
//!    in the database, so any node can finish it, and answers the
//!    provider's authorization URL.
//! 2. [`finish`] takes the request back by its state (once), exchanges the
//!    code at the token endpoint (client secret by HTTP Basic, or in the
//!    form when the provider only takes that), and verifies the ID token:
//!    signature by a key of the provider's JWKS (asymmetric algorithms
//!    only), issuer, audience, expiry, nonce; the email and name come from
//!    the token or, when it leaves them out, from the userinfo endpoint
//!    (its subject must be the token's).
//! 3. The person is who that provider's subject was before; otherwise the
//!    one with the token's email (only when `email_verified` is true, or
//!    the operator trusts the provider's emails), created when nobody has it
//!    (when the email's domain is allowed), joining the organizations that
//!    invited the email.
//!
//! The client secret is read from the environment only and never logged.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use moka::sync::Cache;
use quire_app::error::{AppError, AppResult};
use quire_app::sessions::{self, Client, Method, NewSession};
use quire_app::settings::OidcSettings;
use quire_app::{App, accounts, input};
use quire_core::Timestamp;
use quire_store::sign_in::{self, OidcRequestRow};
use quire_store::users::{self, UserRow};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// How long a sign-in at the provider may take.
const REQUEST_LIFETIME_MS: i64 = 10 * 60 * 1000;
/// How long discovery documents and key sets are kept.
const METADATA_TTL: Duration = Duration::from_secs(60 * 60);
/// Clock difference allowed with the provider.
const LEEWAY_SECS: u64 = 60;

/// The redirect URI registered with the provider.
pub fn redirect_uri(public_url: &str) -> String {
    format!("{}/auth/oidc/callback", public_url.trim_end_matches('/'))
}

/// The parts of a discovery document Quire uses.
#[derive(Debug, Clone, Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    jwks_uri: String,
    #[serde(default)]
    userinfo_endpoint: Option<String>,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
}

struct Metadata {
    discovery: Discovery,
    keys: JwkSet,
}

/// Providers' metadata by issuer.
static METADATA: LazyLock<Cache<String, Arc<Metadata>>> =
    LazyLock::new(|| Cache::builder().max_capacity(16).time_to_live(METADATA_TTL).build());

fn http() -> AppResult<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| AppError::from(anyhow::anyhow!("HTTP client: {e}")))
}

fn provider_error(what: &str, detail: impl std::fmt::Display) -> AppError {
    tracing::warn!(problem = %detail, "OpenID Connect: {what}");
    AppError::SignInFailed(format!("the identity provider could not be used: {what}"))
}

async fn get_json<T: for<'de> Deserialize<'de>>(client: &reqwest::Client, url: &str, what: &str) -> AppResult<T> {
    let response = client.get(url).send().await.map_err(|e| provider_error(what, e))?;
    if !response.status().is_success() {
        return Err(provider_error(what, format!("{url} answered {}", response.status())));
    }
    response.json().await.map_err(|e| provider_error(what, e))
}

/// The provider's discovery document and keys; `refresh` reads them again
/// (a token signed by a key not seen yet).
async fn metadata(settings: &OidcSettings, refresh: bool) -> AppResult<Arc<Metadata>> {
    let issuer = settings.issuer.trim_end_matches('/').to_owned();
    if !refresh && let Some(known) = METADATA.get(&issuer) {
        return Ok(known);
    }
    let client = http()?;
    let discovery: Discovery = get_json(
        &client,
        &format!("{issuer}/.well-known/openid-configuration"),
        "reading its discovery document",
    )
    .await?;
    if discovery.issuer.trim_end_matches('/') != issuer {
        return Err(provider_error(
            "its discovery document names another issuer",
            &discovery.issuer,
        ));
    }
    let keys: JwkSet = get_json(&client, &discovery.jwks_uri, "reading its keys").await?;
    let metadata = Arc::new(Metadata { discovery, keys });
    METADATA.insert(issuer, metadata.clone());
    Ok(metadata)
}

fn settings(app: &App) -> AppResult<&OidcSettings> {
    app.settings
        .oidc
        .as_ref()
        .ok_or_else(|| AppError::not_found("sign-in method", "oidc"))
}

/// A path of this server to return to after signing in (anything else, or
/// nothing, is `/`).
pub fn local_path(return_to: Option<&str>) -> String {
    match return_to {
        Some(path) if path.starts_with('/') && !path.starts_with("//") && !path.contains('\\') => path.to_owned(),
        _ => "/".to_owned(),
    }
}

/// Starts a sign-in: the provider's authorization URL to send the browser
/// to.
pub async fn start(app: &App, public_url: &str, return_to: Option<&str>) -> AppResult<String> {
    let settings = settings(app)?;
    let metadata = metadata(settings, false).await?;
    let now = app.now();
    let request = OidcRequestRow {
        state: quire_core::id::random_alphanumeric(32),
        nonce: quire_core::id::random_alphanumeric(32),
        code_verifier: quire_core::id::random_alphanumeric(64),
        return_to: local_path(return_to),
        expires_at: Timestamp(now.0 + REQUEST_LIFETIME_MS),
    };
    let mut tx = app.db.write().await?;
    sign_in::insert_oidc_request(&mut tx, &request, now).await?;
    tx.commit().await?;
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(request.code_verifier.as_bytes()));
    let mut url = reqwest::Url::parse(&metadata.discovery.authorization_endpoint)
        .map_err(|e| provider_error("its authorization endpoint is not a URL", e))?;
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &settings.client_id)
        .append_pair("redirect_uri", &redirect_uri(public_url))
        .append_pair("scope", "openid email profile")
        .append_pair("state", &request.state)
        .append_pair("nonce", &request.nonce)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256");
    Ok(url.into())
}

#[derive(Debug, Deserialize)]
struct TokenResponse {
    id_token: String,
    access_token: Option<String>,
}

/// The ID token (or userinfo) claims Quire reads.
#[derive(Debug, Deserialize)]
struct Claims {
    sub: String,
    nonce: Option<String>,
    email: Option<String>,
    email_verified: Option<serde_json::Value>,
    name: Option<String>,
    preferred_username: Option<String>,
}

impl Claims {
    /// Whether the provider vouches for the email (some send `"true"`).
    fn email_verified(&self) -> bool {
        match &self.email_verified {
            Some(serde_json::Value::Bool(v)) => *v,
            Some(serde_json::Value::String(v)) => v == "true",
            _ => false,
        }
    }
}

/// What the provider sent back to the callback.
#[derive(Debug, Default, Deserialize)]
pub struct Callback {
    pub code: Option<String>,
    pub state: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

/// Finishes a sign-in at the callback: the person, a new session and the
/// path to return to.
pub async fn finish(
    app: &App,
    public_url: &str,
    callback: Callback,
    client: &Client,
) -> AppResult<(UserRow, NewSession, String)> {
    let settings = settings(app)?;
    let now = app.now();
    let Some(state) = callback.state.as_deref() else {
        return Err(AppError::invalid("the identity provider's answer has no state"));
    };
    let request = {
        let mut tx = app.db.write().await?;
        let request = sign_in::take_oidc_request(&mut tx, state, now).await?;
        tx.commit().await?;
        request
            .ok_or_else(|| AppError::SignInFailed("this sign-in expired or was already finished; start again".into()))?
    };
    if let Some(error) = &callback.error {
        let detail = callback.error_description.as_deref().unwrap_or_default();
        tracing::info!(error = %error, detail = %detail, "OpenID Connect sign-in refused by the provider");
        return Err(AppError::SignInFailed(format!(
            "the identity provider refused the sign-in ({error})"
        )));
    }
    let code = callback
        .code
        .ok_or_else(|| AppError::invalid("the identity provider's answer has no code"))?;

    let metadata = metadata(settings, false).await?;
    let basic = metadata
        .discovery
        .token_endpoint_auth_methods_supported
        .as_ref()
        .is_none_or(|methods| methods.iter().any(|m| m == "client_secret_basic"));
    let redirect = redirect_uri(public_url);
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect.as_str()),
        ("code_verifier", request.code_verifier.as_str()),
    ];
    let mut exchange = http()?.post(&metadata.discovery.token_endpoint);
    if basic {
        exchange = exchange.basic_auth(
            form_encode(&settings.client_id),
            Some(form_encode(&settings.client_secret)),
        );
    } else {
        form.push(("client_id", settings.client_id.as_str()));
        form.push(("client_secret", settings.client_secret.as_str()));
    }
    let response = exchange
        .form(&form)
        .send()
        .await
        .map_err(|e| provider_error("exchanging the code", e))?;
    if !response.status().is_success() {
        let status = response.status();
        let body: String = response.text().await.unwrap_or_default().chars().take(300).collect();
        return Err(provider_error("exchanging the code", format!("{status}: {body}")));
    }
    let tokens: TokenResponse = response
        .json()
        .await
        .map_err(|e| provider_error("reading its token answer", e))?;
    let mut claims = verify_id_token(settings, &tokens.id_token).await?;
    if claims.nonce.as_deref() != Some(request.nonce.as_str()) {
        return Err(provider_error("its ID token is for another sign-in", "nonce mismatch"));
    }
    // Providers that keep the ID token small (as the specification allows)
    // give the email and name at the userinfo endpoint.
    if claims.email.is_none()
        && let (Some(endpoint), Some(access_token)) = (&metadata.discovery.userinfo_endpoint, &tokens.access_token)
    {
        let info: Claims = {
            let response = http()?
                .get(endpoint)
                .bearer_auth(access_token)
                .send()
                .await
                .map_err(|e| provider_error("reading userinfo", e))?;
            if !response.status().is_success() {
                return Err(provider_error("reading userinfo", response.status()));
            }
            response
                .json()
                .await
                .map_err(|e| provider_error("reading userinfo", e))?
        };
        if info.sub != claims.sub {
            return Err(provider_error("its userinfo is about someone else", "sub mismatch"));
        }
        claims.email = info.email;
        claims.email_verified = info.email_verified;
        claims.name = claims.name.or(info.name);
        claims.preferred_username = claims.preferred_username.or(info.preferred_username);
    }
    let user = person(app, settings, &claims).await?;
    let mut tx = app.db.write().await?;
    let session = sessions::start(&mut tx, &user.id, Method::Oidc, client, app.now()).await?;
    tx.commit().await?;
    tracing::info!(user = %user.id, "signed in with OpenID Connect");
    Ok((user, session, request.return_to))
}

/// `application/x-www-form-urlencoded` of a client id or secret, as RFC 6749
/// asks for HTTP Basic.
fn form_encode(value: &str) -> String {
    reqwest::Url::parse_with_params("x:", [("v", value)])
        .ok()
        .and_then(|u| u.query().map(|q| q.trim_start_matches("v=").to_owned()))
        .unwrap_or_else(|| value.to_owned())
}

const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

async fn verify_id_token(settings: &OidcSettings, token: &str) -> AppResult<Claims> {
    let header = jsonwebtoken::decode_header(token).map_err(|e| provider_error("its ID token is malformed", e))?;
    if !ALGORITHMS.contains(&header.alg) {
        return Err(provider_error(
            "its ID token is signed with an algorithm Quire does not take",
            format!("{:?}", header.alg),
        ));
    }
    let mut metadata = metadata(settings, false).await?;
    let find = |m: &Metadata| match &header.kid {
        Some(kid) => m.keys.find(kid).cloned(),
        None => m.keys.keys.first().cloned(),
    };
    let jwk = match find(&metadata) {
        Some(jwk) => jwk,
        None => {
            metadata = self::metadata(settings, true).await?;
            find(&metadata).ok_or_else(|| provider_error("its ID token is signed by an unknown key", "no such kid"))?
        }
    };
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| provider_error("its key cannot be read", e))?;
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[metadata.discovery.issuer.as_str()]);
    validation.set_audience(&[settings.client_id.as_str()]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.leeway = LEEWAY_SECS;
    jsonwebtoken::decode::<Claims>(token, &key, &validation)
        .map(|data| data.claims)
        .map_err(|e| provider_error("its ID token did not verify", e))
}

/// The person the claims name (see the module's documentation).
async fn person(app: &App, settings: &OidcSettings, claims: &Claims) -> AppResult<UserRow> {
    let issuer = settings.issuer.trim_end_matches('/');
    let now = app.now();
    let mut tx = app.db.write().await?;
    if let Some(user_id) = sign_in::oidc_identity(&mut tx, issuer, &claims.sub).await? {
        let user = users::get(&mut tx, &user_id).await?;
        tx.commit().await?;
        return Ok(user);
    }
    let Some(email) = claims.email.as_deref() else {
        return Err(AppError::SignInFailed(
            "the identity provider did not share an email address (ask for the email scope)".into(),
        ));
    };
    if !claims.email_verified() && !settings.trust_email {
        return Err(AppError::SignInFailed(
            "the identity provider has not verified this email address".into(),
        ));
    }
    let email =
        input::email(email).map_err(|_| AppError::SignInFailed(format!("{email:?} is not an email address")))?;
    let existing = users::find_by_email(&mut tx, &email).await?;
    if existing.is_none() && !domain_allowed(settings, &email) {
        return Err(AppError::SignInFailed(format!(
            "accounts for {email} cannot be created through this identity provider"
        )));
    }
    let name = claims
        .name
        .clone()
        .or_else(|| claims.preferred_username.clone())
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| email.split('@').next().unwrap_or_default().to_owned());
    let user = accounts::ensure_user_in(&mut tx, &email, &name, now).await?;
    sign_in::insert_oidc_identity(&mut tx, issuer, &claims.sub, &user.id).await?;
    tx.commit().await?;
    Ok(user)
}

fn domain_allowed(settings: &OidcSettings, email: &str) -> bool {
    let domain = email.rsplit('@').next().unwrap_or_default();
    settings.allowed_domains.is_empty() || settings.allowed_domains.iter().any(|d| d.eq_ignore_ascii_case(domain))
}
