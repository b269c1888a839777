//! OpenAPI specifications of an organization (`/orgs/{id}/openapi`): each
//! comes from a URL, fetched by a durable job ([`ProcessSpec`]) through the
//! guarded fetch client, or from a document given as text. Processing
//! moves `processingState` `pending → progress → complete`; a new version
//! is kept only when the document's content changed (by hash); a failure
//! sets `lastProcessErrorCode` (`FETCH_TIMEOUT`, `FETCH_ERROR`,
//! `PARSE_ERROR`, the parser's message in the log) and keeps the versions
//! there were. Members see specs; the create role makes and changes them.
//! A `public` spec's latest version is readable without a token.

use quire_adapters::FetchError;
use quire_core::{ProcessingState, SpecVisibility, Timestamp};
use quire_store::Page;
use quire_store::openapi::{self, SpecRow, VersionRow};
use quire_store::page::PageRequest;
use serde::{Deserialize, Serialize};

mod routes;
mod views;
pub use routes::router;

use quire_app::error::{AppError, AppResult};
use quire_app::jobs::{self, Job, Registry};
use quire_app::{App, Caller, access};

/// Largest document fetched or given (16 MiB).
pub const MAX_SPEC_BYTES: usize = 16 * 1024 * 1024;

/// Where a spec comes from: a URL or the document itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub url: Option<String>,
    pub text: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSpec {
    pub slug: String,
    pub source: Source,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecSource {
    pub source: Source,
}

/// The body that changes a spec's visibility.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisibilityUpdate {
    pub visibility: String,
}

/// A spec with what the caller may do with it.
#[derive(Debug, Clone)]
pub struct SpecInfo {
    pub spec: SpecRow,
    pub edit: bool,
}

/// The queued processing of a spec.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProcessSpec {
    pub spec_id: String,
}

impl Job for ProcessSpec {
    const KIND: &'static str = "openapi-process";

    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        process(app, &self.spec_id).await?;
        // Pages showing the spec's operations, and its public copy, change.
        quire_app::changes::announce(app, quire_app::changes::PUBLISHED_CHANGED).await;
        Ok(None)
    }
}

pub fn register_jobs(registry: &mut Registry) {
    registry.register::<ProcessSpec>();
}

fn check_slug(slug: &str) -> AppResult<()> {
    let ok = !slug.is_empty()
        && slug.len() <= 100
        && slug
            .split('-')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric()));
    if ok {
        Ok(())
    } else {
        Err(AppError::invalid(
            "slug must be letters and digits in words joined by single hyphens (at most 100 characters)",
        ))
    }
}

/// The source, checked: a URL (http or https) or a non-empty document.
fn check_source(source: &Source) -> AppResult<(Option<String>, Option<String>)> {
    match (&source.url, &source.text) {
        (Some(url), None) => Ok((Some(quire_app::input::http_url("source.url", url)?), None)),
        (None, Some(text)) if !text.trim().is_empty() => {
            if text.len() > MAX_SPEC_BYTES {
                return Err(AppError::TooLarge(format!(
                    "a spec holds at most {MAX_SPEC_BYTES} bytes"
                )));
            }
            Ok((None, Some(text.clone())))
        }
        _ => Err(AppError::invalid("source must have either a url or a non-empty text")),
    }
}

/// The caller's membership: members read, the create role changes.
async fn org_access(conn: &mut quire_store::Conn, caller: &Caller, org_id: &str, write: bool) -> AppResult<bool> {
    access::org_resources(conn, caller, org_id, write, "change its OpenAPI specs").await
}

async fn spec_of(conn: &mut quire_store::Conn, org_id: &str, slug: &str) -> AppResult<SpecRow> {
    openapi::get_spec(conn, org_id, slug)
        .await?
        .ok_or_else(|| AppError::not_found("OpenAPI spec", slug))
}

pub async fn list(app: &App, caller: &Caller, org_id: &str, page: &PageRequest) -> AppResult<Page<SpecInfo>> {
    let mut conn = app.db.read().await?;
    let edit = org_access(&mut conn, caller, org_id, false).await?;
    let specs = openapi::list_specs(&mut conn, org_id, page).await?;
    Ok(specs.map(|spec| SpecInfo { spec, edit }))
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, slug: &str) -> AppResult<SpecInfo> {
    let mut conn = app.db.read().await?;
    let edit = org_access(&mut conn, caller, org_id, false).await?;
    Ok(SpecInfo {
        spec: spec_of(&mut conn, org_id, slug).await?,
        edit,
    })
}

/// Creates a spec (409 when the slug is taken) and queues its processing.
pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewSpec) -> AppResult<SpecInfo> {
    check_slug(&new.slug)?;
    let (url, text) = check_source(&new.source)?;
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    if openapi::get_spec(&mut tx, org_id, &new.slug).await?.is_some() {
        return Err(AppError::Conflict(format!(
            "an OpenAPI spec {:?} already exists",
            new.slug
        )));
    }
    let spec = new_spec(org_id, &new.slug, url, text, app.now());
    save_and_process(&mut tx, &spec, app.now()).await?;
    tx.commit().await?;
    Ok(SpecInfo { spec, edit: true })
}

/// A spec not processed yet.
fn new_spec(org_id: &str, slug: &str, url: Option<String>, text: Option<String>, now: Timestamp) -> SpecRow {
    SpecRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        slug: slug.to_owned(),
        source_url: url,
        source_text: text,
        visibility: SpecVisibility::Private,
        processing_state: ProcessingState::Pending,
        last_version_id: None,
        last_processed_at: None,
        last_error_code: None,
        last_error: None,
        created_at: now,
        updated_at: now,
    }
}

/// Stores the spec and queues its processing.
async fn save_and_process(tx: &mut quire_store::Conn, spec: &SpecRow, now: Timestamp) -> AppResult<()> {
    openapi::put_spec(tx, spec).await?;
    jobs::enqueue(
        tx,
        &spec.organization_id,
        &ProcessSpec {
            spec_id: spec.id.clone(),
        },
        now,
        now,
    )
    .await?;
    Ok(())
}

/// Creates the spec or changes its source, and processes it again (the
/// source is fetched again even when unchanged); `true` when created.
pub async fn put(app: &App, caller: &Caller, org_id: &str, slug: &str, source: Source) -> AppResult<(SpecInfo, bool)> {
    check_slug(slug)?;
    let (url, text) = check_source(&source)?;
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    let now = app.now();
    let (spec, created) = match openapi::get_spec(&mut tx, org_id, slug).await? {
        Some(existing) => (
            SpecRow {
                source_url: url,
                source_text: text,
                processing_state: ProcessingState::Pending,
                updated_at: now,
                ..existing
            },
            false,
        ),
        None => (new_spec(org_id, slug, url, text, now), true),
    };
    save_and_process(&mut tx, &spec, now).await?;
    tx.commit().await?;
    Ok((SpecInfo { spec, edit: true }, created))
}

pub async fn set_visibility(
    app: &App,
    caller: &Caller,
    org_id: &str,
    slug: &str,
    visibility: &str,
) -> AppResult<SpecInfo> {
    let Some(visibility) = SpecVisibility::parse(visibility) else {
        return Err(AppError::invalid("visibility must be private or public"));
    };
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    let mut spec = spec_of(&mut tx, org_id, slug).await?;
    spec.visibility = visibility;
    spec.updated_at = app.now();
    openapi::put_spec(&mut tx, &spec).await?;
    tx.commit().await?;
    Ok(SpecInfo { spec, edit: true })
}

/// Deletes a spec and its versions (nothing to delete is fine).
pub async fn delete(app: &App, caller: &Caller, org_id: &str, slug: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    openapi::delete_spec(&mut tx, org_id, slug).await?;
    tx.commit().await?;
    Ok(())
}

pub async fn versions(
    app: &App,
    caller: &Caller,
    org_id: &str,
    slug: &str,
    page: &PageRequest,
) -> AppResult<Page<VersionRow>> {
    let mut conn = app.db.read().await?;
    org_access(&mut conn, caller, org_id, false).await?;
    let spec = spec_of(&mut conn, org_id, slug).await?;
    Ok(openapi::list_versions(&mut conn, &spec.id, page).await?)
}

/// A version by id, or the latest one (`latest`).
pub async fn version(
    app: &App,
    caller: &Caller,
    org_id: &str,
    slug: &str,
    version_id: &str,
) -> AppResult<(SpecRow, VersionRow)> {
    let mut conn = app.db.read().await?;
    org_access(&mut conn, caller, org_id, false).await?;
    let spec = spec_of(&mut conn, org_id, slug).await?;
    let version = version_of(&mut conn, &spec, version_id).await?;
    Ok((spec, version))
}

async fn version_of(conn: &mut quire_store::Conn, spec: &SpecRow, version_id: &str) -> AppResult<VersionRow> {
    let id = if version_id == "latest" {
        spec.last_version_id
            .clone()
            .ok_or_else(|| AppError::NotFound(format!("OpenAPI spec {:?} has no version yet", spec.slug)))?
    } else {
        version_id.to_owned()
    };
    openapi::get_version(conn, &spec.id, &id)
        .await?
        .ok_or_else(|| AppError::not_found("OpenAPI spec version", version_id))
}

/// The latest version of a public spec, to anyone (no token).
pub async fn published(app: &App, org_id: &str, slug: &str) -> AppResult<(SpecRow, VersionRow)> {
    let mut conn = app.db.read().await?;
    let spec = openapi::get_spec(&mut conn, org_id, slug)
        .await?
        .filter(|s| s.visibility == SpecVisibility::Public)
        .ok_or_else(|| AppError::not_found("OpenAPI spec", slug))?;
    let version = version_of(&mut conn, &spec, "latest").await?;
    Ok((spec, version))
}

/// The latest version of an organization's spec, for pages that embed its
/// operations (the reader's access to the page decides): by slug, or by
/// source URL (GitBook's legacy blocks name the spec's URL).
pub async fn latest_for_pages(app: &App, org_id: &str, spec_ref: &str) -> AppResult<Option<VersionRow>> {
    let mut conn = app.db.read().await?;
    let spec = if spec_ref.contains("://") {
        let all = PageRequest {
            after: None,
            limit: 1000,
            descending: false,
        };
        openapi::list_specs(&mut conn, org_id, &all)
            .await?
            .items
            .into_iter()
            .find(|s| s.source_url.as_deref() == Some(spec_ref))
    } else {
        openapi::get_spec(&mut conn, org_id, spec_ref).await?
    };
    let Some(spec) = spec else {
        return Ok(None);
    };
    match &spec.last_version_id {
        Some(id) => Ok(openapi::get_version(&mut conn, &spec.id, id).await?),
        None => Ok(None),
    }
}

/// Fetches (or takes) the document, parses it and keeps a new version when
/// its content changed.
pub async fn process(app: &App, spec_id: &str) -> anyhow::Result<()> {
    let spec = {
        let mut tx = app.db.write().await?;
        let Some(mut spec) = openapi::get_spec_by_id(&mut tx, spec_id).await? else {
            return Ok(());
        };
        spec.processing_state = ProcessingState::Progress;
        spec.updated_at = app.now();
        openapi::put_spec(&mut tx, &spec).await?;
        tx.commit().await?;
        spec
    };
    let fetched: Result<String, (&str, String)> = match (&spec.source_text, &spec.source_url) {
        (Some(text), _) => Ok(text.clone()),
        (None, Some(url)) => match app.engine.fetcher.get(url, MAX_SPEC_BYTES).await {
            Ok(found) => {
                String::from_utf8(found.bytes).map_err(|_| ("PARSE_ERROR", "the document is not UTF-8 text".into()))
            }
            Err(FetchError::Timeout(after)) => {
                Err(("FETCH_TIMEOUT", format!("the source did not answer within {after:?}")))
            }
            Err(err) => Err(("FETCH_ERROR", err.to_string())),
        },
        (None, None) => Err(("FETCH_ERROR", "the spec has no source".into())),
    };
    let outcome = fetched.and_then(|text| match quire_openapi::parse(&text) {
        Ok(_) => Ok(text),
        Err(err) => Err(("PARSE_ERROR", err.to_string())),
    });
    let now = app.now();
    let mut tx = app.db.write().await?;
    let Some(mut current) = openapi::get_spec_by_id(&mut tx, spec_id).await? else {
        return Ok(());
    };
    current.processing_state = ProcessingState::Complete;
    current.last_processed_at = Some(now);
    current.updated_at = now;
    match outcome {
        Ok(text) => {
            let hash = quire_core::digest::sha256_hex(text.as_bytes());
            let latest = match &current.last_version_id {
                Some(id) => openapi::get_version(&mut tx, &current.id, id).await?,
                None => None,
            };
            if latest.is_none_or(|v| v.content_hash != hash) {
                let format = if text.trim_start().starts_with('{') {
                    "json"
                } else {
                    "yaml"
                };
                let version = VersionRow {
                    id: quire_core::id::new_id(),
                    spec_id: current.id.clone(),
                    content_hash: hash,
                    content: text,
                    format: format.into(),
                    created_at: Timestamp(now.0),
                };
                openapi::insert_version(&mut tx, &version).await?;
                current.last_version_id = Some(version.id);
            }
            current.last_error_code = None;
            current.last_error = None;
        }
        Err((code, message)) => {
            tracing::warn!(spec = %current.id, slug = %current.slug, code, error = %message, "OpenAPI spec processing failed");
            current.last_error_code = Some(code.into());
            current.last_error = Some(message);
        }
    }
    openapi::put_spec(&mut tx, &current).await?;
    tx.commit().await?;
    Ok(())
}
