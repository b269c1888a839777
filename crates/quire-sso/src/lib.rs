//! SAML single sign-on: an organization's identity providers (managed by
//! its admins), and the login they give people.
//!
//! Quire is the service provider; per identity provider it has an entity id
//! (its metadata URL), an assertion consumer service (ACS) and a start URL,
//! all under the public URL: `/saml/{providerId}/metadata`, `/acs`,
//! `/start`. A login starts at `start` ([`start`]: an `AuthnRequest` whose
//! id is kept for [`REQUEST_LIFETIME_MS`]) and ends at the ACS
//! ([`consume`]): the response is verified by `quire-saml` (signature with
//! the `xmlsec1` command, issuer, audience, destination, recipient, times,
//! the request it answers), its assertion id is recorded so it is never taken twice, and
//! then, in the same transaction, the person is provisioned: the user by
//! email, membership of the organization as an SSO member with the
//! provider's default role, membership of its default team, and a session
//! of the account page that remembers it went through this organization's
//! single sign-on. Every refusal is logged with its reason.

use quire_core::{Role, Timestamp};
use quire_store::saml::{self, ProviderRow};
use quire_store::{Conn, members, orgs, teams};
use serde::Deserialize;

mod pages;
mod routes;
mod views;

pub use pages::router as pages;
pub use routes::router;

use quire_app::access;
use quire_app::error::{AppError, AppResult, NotFoundExt};
use quire_app::sessions::{self, NewSession};
use quire_app::{App, Caller, accounts, input};

/// How long an `AuthnRequest` waits for its response: 10 minutes.
pub const REQUEST_LIFETIME_MS: i64 = 10 * 60 * 1000;

/// The `xmlsec1` command the operator configured, which verifies every
/// response's signatures.
pub fn verifier(app: &App) -> quire_saml::SignatureVerifier {
    quire_saml::SignatureVerifier::new(&app.settings.xmlsec1)
}

/// A provider with its team, as views need it.
#[derive(Debug, Clone)]
pub struct ProviderInfo {
    pub provider: ProviderRow,
    pub default_team: Option<teams::TeamRow>,
}

impl ProviderInfo {
    /// Why it cannot sign people in, if it cannot: it is not fully
    /// configured (it always is, once created), its certificate is not
    /// valid at `now` (it stays `pending` until an admin gives it a new
    /// one), or this server cannot verify signatures (no `xmlsec1`).
    pub fn problem(&self, app: &App) -> Option<String> {
        let p = &self.provider;
        let missing: Vec<&str> = [
            ("entityID", p.entity_id.is_none()),
            ("ssoURL", p.sso_url.is_none()),
            ("certificate", p.certificate.is_none()),
        ]
        .into_iter()
        .filter_map(|(name, missing)| missing.then_some(name))
        .collect();
        if !missing.is_empty() {
            return Some(format!(
                "it needs the identity provider's entityID, ssoURL and certificate (missing: {})",
                missing.join(", ")
            ));
        }
        match quire_saml::parse_certificate(p.certificate.as_deref().unwrap_or_default()) {
            Err(e) => return Some(e.to_string()),
            Ok(c) => {
                if let Err(e) = c.check_valid_at(app.now().0) {
                    return Some(e.to_string());
                }
            }
        }
        verifier(app)
            .readiness()
            .err()
            .map(|e| format!("this server cannot verify SAML signatures: {e}"))
    }

    /// Whether it can sign people in (it has no [`ProviderInfo::problem`]).
    pub fn is_active(&self, app: &App) -> bool {
        self.problem(app).is_none()
    }
}

/// Quire's URLs as the service provider of one identity provider.
#[derive(Debug, Clone)]
pub struct ServiceUrls {
    pub entity_id: String,
    pub acs_url: String,
    pub start_url: String,
}

pub fn service_urls(public_url: &str, provider_id: &str) -> ServiceUrls {
    let base = format!("{}/saml/{provider_id}", public_url.trim_end_matches('/'));
    ServiceUrls {
        entity_id: format!("{base}/metadata"),
        acs_url: format!("{base}/acs"),
        start_url: format!("{base}/start"),
    }
}

/// The body of a create or an update (absent fields stay as they are).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInput {
    pub label: Option<String>,
    #[serde(rename = "entityID")]
    pub entity_id: Option<String>,
    pub certificate: Option<String>,
    #[serde(rename = "ssoURL")]
    pub sso_url: Option<String>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_team: Option<Option<String>>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_role: Option<Option<Role>>,
    /// Quire's own option: accept responses no request asked for
    /// (IdP-initiated login). Off by default.
    #[serde(rename = "allowIdPInitiated")]
    pub allow_idp_initiated: Option<bool>,
}

/// An entity id: an absolute URI (`https://…` or `urn:…`), at most 1,024
/// characters.
fn entity_id(value: &str) -> AppResult<String> {
    let value = value.trim();
    let scheme_ok = value.starts_with("https://") || value.starts_with("http://") || value.starts_with("urn:");
    if !scheme_ok || value.len() > 1024 || value.len() < 8 || value.contains(char::is_whitespace) {
        return Err(AppError::invalid(
            "entityID must be an absolute URI (https://… or urn:…) of at most 1024 characters",
        ));
    }
    Ok(value.to_owned())
}

async fn apply(conn: &mut Conn, app: &App, p: &mut ProviderRow, input: ProviderInput) -> AppResult<()> {
    if let Some(label) = &input.label {
        p.label = input::title("label", label, 1, 30)?;
    }
    if let Some(value) = &input.entity_id {
        p.entity_id = Some(entity_id(value)?);
    }
    if let Some(value) = &input.sso_url {
        p.sso_url = Some(input::http_url("ssoURL", value.trim())?);
    }
    if let Some(value) = &input.certificate {
        if value.len() > 10_000 {
            return Err(AppError::invalid("certificate must be at most 10000 characters"));
        }
        quire_saml::parse_certificate(value)
            .and_then(|c| c.check_valid_at(app.now().0))
            .map_err(|e| AppError::invalid(format!("certificate: {e}")))?;
        p.certificate = Some(value.trim().to_owned());
    }
    if let Some(team) = input.default_team {
        p.default_team_id = match team {
            Some(team) => Some(
                teams::get(conn, &p.organization_id, &team)
                    .await
                    .map_err(|_| {
                        AppError::invalid(format!("defaultTeam: {team:?} is not a team of this organization"))
                    })?
                    .id,
            ),
            None => None,
        };
    }
    if let Some(role) = input.default_role {
        p.default_role = role;
    }
    if let Some(allow) = input.allow_idp_initiated {
        p.allow_idp_initiated = allow;
    }
    Ok(())
}

async fn info(conn: &mut Conn, provider: ProviderRow) -> AppResult<ProviderInfo> {
    let default_team = match &provider.default_team_id {
        Some(team) => teams::get(conn, &provider.organization_id, team).await.ok(),
        None => None,
    };
    Ok(ProviderInfo { provider, default_team })
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, input: ProviderInput) -> AppResult<ProviderInfo> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    if input.label.is_none() {
        return Err(AppError::invalid("label is required"));
    }
    let mut provider = ProviderRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        label: String::new(),
        entity_id: None,
        sso_url: None,
        certificate: None,
        default_team_id: None,
        default_role: None,
        allow_idp_initiated: false,
        created_at: app.now(),
    };
    // A label is enough to begin: the provider is `pending` (its problem
    // says what it lacks) while the administrator copies Quire's URLs,
    // which name its id, into the identity provider.
    apply(&mut tx, app, &mut provider, input).await?;
    saml::insert_provider(&mut tx, &provider).await?;
    let info = info(&mut tx, provider).await?;
    tx.commit().await?;
    Ok(info)
}

pub async fn list(app: &App, caller: &Caller, org_id: &str) -> AppResult<Vec<ProviderInfo>> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    let mut out = Vec::new();
    for provider in saml::providers_of(&mut conn, org_id).await? {
        out.push(info(&mut conn, provider).await?);
    }
    Ok(out)
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, provider_id: &str) -> AppResult<ProviderInfo> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    let provider = saml::provider_in(&mut conn, org_id, provider_id)
        .await
        .or_not_found("SAML provider", provider_id)?;
    info(&mut conn, provider).await
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    provider_id: &str,
    input: ProviderInput,
) -> AppResult<ProviderInfo> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    let mut provider = saml::provider_in(&mut tx, org_id, provider_id)
        .await
        .or_not_found("SAML provider", provider_id)?;
    apply(&mut tx, app, &mut provider, input).await?;
    saml::update_provider(&mut tx, &provider).await?;
    let info = info(&mut tx, provider).await?;
    tx.commit().await?;
    Ok(info)
}

pub async fn delete(app: &App, caller: &Caller, org_id: &str, provider_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    saml::delete_provider(&mut tx, org_id, provider_id).await?;
    tx.commit().await?;
    Ok(())
}

/// The organization's providers that can sign people in, for a login page:
/// any member may list them.
pub async fn logins(app: &App, caller: &Caller, org_id: &str) -> AppResult<Vec<ProviderInfo>> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?;
    let mut out = Vec::new();
    for provider in saml::providers_of(&mut conn, org_id).await? {
        let info = info(&mut conn, provider).await?;
        if info.is_active(app) {
            out.push(info);
        }
    }
    Ok(out)
}

/// A provider that can sign people in, by id (the public routes).
async fn active(
    conn: &mut Conn,
    app: &App,
    provider_id: &str,
    now: Timestamp,
) -> AppResult<(ProviderRow, quire_saml::IdentityProvider)> {
    let provider = saml::provider_by_id(conn, provider_id)
        .await?
        .ok_or_else(|| AppError::not_found("SAML provider", provider_id))?;
    let (Some(entity_id), Some(sso_url), Some(certificate)) =
        (&provider.entity_id, &provider.sso_url, &provider.certificate)
    else {
        return Err(AppError::invalid(
            "this identity provider is not fully configured yet (entityID, ssoURL and certificate)",
        ));
    };
    let parsed = quire_saml::parse_certificate(certificate)
        .map_err(|e| AppError::invalid(format!("the identity provider's certificate: {e}")))?;
    parsed
        .check_valid_at(now.0)
        .map_err(|e| AppError::invalid(format!("the identity provider's certificate: {e}")))?;
    verifier(app)
        .readiness()
        .map_err(|e| AppError::invalid(format!("this server cannot verify SAML signatures: {e}")))?;
    let idp = quire_saml::IdentityProvider {
        entity_id: entity_id.clone(),
        sso_url: sso_url.clone(),
        certificate: parsed.der,
    };
    Ok((provider, idp))
}

fn sp(public_url: &str, provider_id: &str) -> quire_saml::ServiceProvider {
    let urls = service_urls(public_url, provider_id);
    quire_saml::ServiceProvider {
        entity_id: urls.entity_id,
        acs_url: urls.acs_url,
    }
}

/// Quire's metadata as the service provider of a provider.
pub async fn metadata(app: &App, public_url: &str, provider_id: &str) -> AppResult<String> {
    let mut conn = app.db.read().await?;
    saml::provider_by_id(&mut conn, provider_id)
        .await?
        .ok_or_else(|| AppError::not_found("SAML provider", provider_id))?;
    Ok(quire_saml::metadata(&sp(public_url, provider_id)))
}

/// Where a path given as `RelayState` may lead: a path of this server.
pub fn local_path(relay_state: Option<&str>) -> String {
    match relay_state {
        Some(path) if path.starts_with('/') && !path.starts_with("//") && !path.contains('\\') && path.len() <= 512 => {
            path.to_owned()
        }
        _ => "/account".to_owned(),
    }
}

/// Starts a login: the URL of the identity provider to send the person to,
/// and the id of the request it carries.
pub async fn start(app: &App, public_url: &str, provider_id: &str, then: Option<&str>) -> AppResult<(String, String)> {
    let now = app.now();
    let mut tx = app.db.write().await?;
    let (provider, idp) = active(&mut tx, app, provider_id, now).await?;
    let request_id = format!("_{}", quire_core::id::random_alphanumeric(32));
    saml::insert_request(
        &mut tx,
        &request_id,
        &provider.id,
        now,
        Timestamp(now.0 + REQUEST_LIFETIME_MS),
    )
    .await?;
    let url = quire_saml::login_request(
        &sp(public_url, provider_id),
        &idp,
        &request_id,
        &local_path(then),
        now.0,
    )
    .map_err(|e| AppError::from(anyhow::anyhow!("AuthnRequest: {e}")))?;
    tx.commit().await?;
    Ok((url, request_id))
}

/// What a login gives: the session (a new one, or the one the person
/// already had, now also through this organization) and where to go.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub session: NewSession,
    pub user_id: String,
    pub organization_id: String,
}

fn refused(provider_id: &str, reason: impl std::fmt::Display) -> AppError {
    tracing::warn!(provider = provider_id, %reason, "SAML login refused");
    AppError::forbidden(format!("The sign-in was refused: {reason}."))
}

/// Whether sign-ins are bound to the browser that started them: when the
/// public URL is https, where the binding cookie can be `SameSite=None;
/// Secure` and so comes back with the IdP's cross-site POST.
pub fn binds_browsers(public_url: &str) -> bool {
    public_url.starts_with("https://")
}

/// Takes a response posted to the ACS. `session_token` is the account
/// page's session the browser already had, if any; `started_here` the
/// request id the browser's binding cookie holds (see [`binds_browsers`]).
pub async fn consume(
    app: &App,
    public_url: &str,
    provider_id: &str,
    saml_response: &str,
    session_token: Option<&str>,
    started_here: Option<&str>,
    client: &sessions::Client,
) -> AppResult<SignedIn> {
    let now = app.now();
    let (provider, idp) = {
        let mut conn = app.db.read().await?;
        active(&mut conn, app, provider_id, now)
            .await
            .map_err(|e| refused(provider_id, e))?
    };
    // The request it claims to answer must be one of ours, outstanding, and
    // started in this browser: else someone could sign another person in
    // as themselves (login CSRF).
    let claimed = quire_saml::claimed_request(saml_response);
    if let Some(request) = &claimed
        && binds_browsers(public_url)
        && started_here != Some(request.as_str())
    {
        return Err(refused(provider_id, "it answers a sign-in started in another browser"));
    }
    if let Some(request) = &claimed {
        let mut conn = app.db.read().await?;
        if !saml::request_outstanding(&mut conn, request, &provider.id, now).await? {
            return Err(refused(
                provider_id,
                "it answers no sign-in request of ours (or one that expired)",
            ));
        }
    } else if !provider.allow_idp_initiated {
        return Err(refused(
            provider_id,
            "no sign-in request was made, and this provider does not accept IdP-initiated logins",
        ));
    }
    let service = sp(public_url, provider_id);
    let response = saml_response.to_owned();
    let expected = claimed.clone();
    let allow_unsolicited = provider.allow_idp_initiated;
    let verifier = verifier(app);
    let login = tokio::task::spawn_blocking(move || {
        quire_saml::verify(
            &verifier,
            &service,
            &idp,
            &response,
            expected.as_deref(),
            allow_unsolicited,
            now.0,
        )
    })
    .await
    .map_err(|e| AppError::from(anyhow::anyhow!("SAML verification stopped: {e}")))?
    .map_err(|e| refused(provider_id, e))?;

    let Some(email) = login.email.as_deref() else {
        return Err(refused(provider_id, "the assertion carries no email address"));
    };
    let email = input::email(email).map_err(|_| refused(provider_id, format!("{email:?} is not an email address")))?;
    let name = login
        .display_name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| email.split('@').next().unwrap_or_default().to_owned());

    let mut tx = app.db.write().await?;
    if let Some(request) = &claimed
        && !saml::take_request(&mut tx, request, &provider.id).await?
    {
        return Err(refused(provider_id, "its sign-in request was already answered"));
    }
    let expires = Timestamp(login.not_on_or_after + quire_saml::CLOCK_SKEW_MS);
    if !saml::use_assertion(&mut tx, &provider.id, &login.assertion_id, now, expires).await? {
        return Err(refused(
            provider_id,
            format!("assertion {} was already used", login.assertion_id),
        ));
    }
    let org = orgs::get(&mut tx, &provider.organization_id)
        .await
        .or_not_found("organization", &provider.organization_id)?;
    let user = accounts::ensure_user_in(&mut tx, &email, name.trim(), now).await?;
    match members::membership(&mut tx, &org.id, &user.id).await? {
        None => {
            members::insert(&mut tx, &org.id, &user.id, provider.default_role, true, now).await?;
        }
        Some(m) if m.disabled => {
            return Err(refused(
                provider_id,
                format!("{email} is a disabled member of the organization"),
            ));
        }
        Some(_) => members::set_sso(&mut tx, &org.id, &user.id).await?,
    }
    if let Some(team) = &provider.default_team_id {
        teams::add_member(&mut tx, team, &org.id, &user.id, now).await?;
    }
    let session = sessions::sign_in_through_sso(&mut tx, &user.id, &org.id, session_token, client, now).await?;
    tx.commit().await?;
    tracing::info!(provider = provider_id, organization = %org.id, user = %user.id, "SAML login");
    Ok(SignedIn {
        session,
        user_id: user.id,
        organization_id: org.id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relay_states_lead_only_to_this_server() {
        assert_eq!(local_path(Some("/account")), "/account");
        assert_eq!(local_path(Some("/docs/page?x=1")), "/docs/page?x=1");
        for elsewhere in [
            "https://evil.example/",
            "//evil.example/",
            "/\\evil.example",
            "account",
            "",
        ] {
            assert_eq!(local_path(Some(elsewhere)), "/account", "{elsewhere}");
        }
        assert_eq!(local_path(None), "/account");
    }
}
