//! OpenAPI specs and versions as the official API shapes them.

use crate::SpecInfo;
use quire_core::{SpecVisibility, Timestamp};
use quire_store::openapi::{SpecRow, VersionRow};
use serde::Serialize;
use serde_json::{Value, json};

use quire_http::state::AppState;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    pub object: &'static str,
    pub id: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub slug: String,
    #[serde(rename = "sourceURL", skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    pub processing_state: &'static str,
    pub visibility: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_processed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_process_error_code: Option<String>,
    pub last_processed_errors: Vec<Value>,
    pub last_processed_error_count: usize,
    pub permissions: Value,
    pub urls: Value,
}

/// Where a public spec's reference (and, under `/raw`, its document) is
/// readable without a token.
pub fn published_url(state: &AppState, spec: &SpecRow) -> String {
    format!("{}/~openapi/{}/{}", state.public_url, spec.organization_id, spec.slug)
}

fn location(state: &AppState, spec: &SpecRow) -> String {
    state.api_url(&format!("/orgs/{}/openapi/{}", spec.organization_id, spec.slug))
}

pub fn spec(state: &AppState, info: SpecInfo) -> Spec {
    let SpecInfo { spec, edit } = info;
    let mut urls = json!({
        "location": location(state, &spec),
        "app": state.app_url(&format!("/o/{}/openapi/{}", spec.organization_id, spec.slug)),
    });
    if spec.visibility == SpecVisibility::Public {
        urls["published"] = Value::String(published_url(state, &spec));
    }
    let errors: Vec<Value> = spec
        .last_error
        .iter()
        .map(|message| json!({ "message": message, "code": spec.last_error_code }))
        .collect();
    Spec {
        object: "openapi-spec",
        permissions: json!({ "view": true, "edit": edit }),
        urls,
        last_processed_error_count: errors.len(),
        last_processed_errors: errors,
        id: spec.id,
        created_at: spec.created_at,
        updated_at: spec.updated_at,
        slug: spec.slug,
        source_url: spec.source_url,
        processing_state: spec.processing_state.as_str(),
        visibility: spec.visibility.as_str(),
        last_version: spec.last_version_id,
        last_processed_at: spec.last_processed_at,
        last_process_error_code: spec.last_error_code,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub object: &'static str,
    pub id: String,
    pub created_at: Timestamp,
    pub url: String,
    pub urls: Value,
}

fn version_location(state: &AppState, spec: &SpecRow, version: &VersionRow) -> String {
    format!("{}/versions/{}", location(state, spec), version.id)
}

pub fn version(state: &AppState, spec: &SpecRow, version: VersionRow) -> Version {
    let at = version_location(state, spec, &version);
    Version {
        object: "openapi-spec-version",
        url: format!("{at}/content"),
        urls: json!({ "location": at }),
        id: version.id,
        created_at: version.created_at,
    }
}

/// `{filesystem, url, urls}`: the document as JSON (one file), where it
/// came from and where it is public.
pub fn content(state: &AppState, spec: &SpecRow, version: &VersionRow) -> Value {
    let document = quire_openapi::parse(&version.content)
        .map(|s| s.document)
        .unwrap_or(Value::Null);
    let name = if version.format == "json" {
        "openapi.json"
    } else {
        "openapi.yaml"
    };
    let source = spec
        .source_url
        .clone()
        .unwrap_or_else(|| format!("{}/content", version_location(state, spec, version)));
    let public = (spec.visibility == SpecVisibility::Public).then(|| format!("{}/raw", published_url(state, spec)));
    json!({
        "filesystem": { name: document },
        "url": source,
        "urls": { "source": source, "public": public },
    })
}
