//! SAML providers and single sign-on logins.

use crate::ProviderInfo;
use quire_core::{Role, Timestamp};
use serde::Serialize;

use quire_http::state::AppState;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceProvider {
    #[serde(rename = "acsURL")]
    pub acs_url: String,
    #[serde(rename = "startURL")]
    pub start_url: String,
    #[serde(rename = "entityID")]
    pub entity_id: String,
}

#[derive(Debug, Serialize)]
pub struct Location {
    pub location: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SamlProvider {
    pub object: &'static str,
    pub id: String,
    pub label: String,
    #[serde(rename = "ssoURL")]
    pub sso_url: String,
    #[serde(rename = "entityID")]
    pub entity_id: String,
    pub certificate: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_team: Option<quire_http::views::Team>,
    pub default_role: Option<Role>,
    pub created_at: Timestamp,
    pub status: &'static str,
    /// Quire's own field: why a `pending` provider cannot sign people in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    pub service: ServiceProvider,
    pub urls: Location,
    /// Quire's own option (not in the official shape): IdP-initiated login.
    #[serde(rename = "allowIdPInitiated")]
    pub allow_idp_initiated: bool,
}

pub fn provider(state: &AppState, info: ProviderInfo) -> SamlProvider {
    let problem = info.problem(&state.app);
    let status = if problem.is_none() { "active" } else { "pending" };
    let service = crate::service_urls(&state.public_url, &info.provider.id);
    let ProviderInfo { provider, default_team } = info;
    SamlProvider {
        object: "saml-provider",
        urls: Location {
            location: state.api_url(&format!("/orgs/{}/saml/{}", provider.organization_id, provider.id)),
        },
        id: provider.id,
        label: provider.label,
        sso_url: provider.sso_url.unwrap_or_default(),
        entity_id: provider.entity_id.unwrap_or_default(),
        certificate: provider.certificate.unwrap_or_default(),
        default_team: default_team.map(|team| {
            quire_http::views::team(quire_app::teams::TeamInfo {
                team,
                // Only admins read providers.
                permissions: quire_app::access::TeamPermissions {
                    admin: true,
                    view: true,
                },
            })
        }),
        default_role: provider.default_role,
        created_at: provider.created_at,
        status,
        problem,
        service: ServiceProvider {
            acs_url: service.acs_url,
            start_url: service.start_url,
            entity_id: service.entity_id,
        },
        allow_idp_initiated: provider.allow_idp_initiated,
    }
}

#[derive(Debug, Serialize)]
pub struct SsoLogin {
    pub id: String,
    pub label: String,
    #[serde(rename = "startURL")]
    pub start_url: String,
}

pub fn sso_login(state: &AppState, info: &ProviderInfo) -> SsoLogin {
    SsoLogin {
        id: info.provider.id.clone(),
        label: info.provider.label.clone(),
        start_url: crate::service_urls(&state.public_url, &info.provider.id).start_url,
    }
}
