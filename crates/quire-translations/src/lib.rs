//! Translations of a space into another language
//! (`/orgs/{id}/translations`), their runs, and the organization's glossary.
//!
//! A translation names a source space and a language; running it (the
//! `run` operation, a durable [`RunTranslation`] job) creates or reuses
//! the result space and writes one new revision of it: the source's page
//! tree, slugs and files mirrored, each page's prose translated by the
//! operator's provider (`quire_adapters::translate`) — code, inline code,
//! URLs, block tags, front matter and file references stay byte for byte
//! (`Document::prose`). A re-run translates only pages whose title,
//! description or document changed since (`translation_pages`). A page the
//! provider fails on is tried again; if it still fails the run fails and
//! nothing is written (the job is retried later). Without a provider,
//! translations can be created, read, changed and deleted; running one is
//! a 400 that says how to configure one.

use quire_core::TranslationStatus;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use quire_adapters::translate::{Provider, Request};
use quire_content::document::Document;
use quire_content::tree::PageMeta;
use quire_core::Timestamp;
use quire_engine::imports::{ImportedFile, ImportedPage, ImportedReusable, ImportedState, Target};
use quire_store::Page;
use quire_store::page::PageRequest;
use quire_store::translations::{self, GlossaryRow, TranslatedPageRow, TranslationRow};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use quire_app::error::{AppError, AppResult};
use quire_app::jobs::{self, Job, Registry};
use quire_app::{App, Caller, access};

mod routes;
mod views;

pub use routes::router;

/// The languages of the official API.
pub const LANGUAGES: [&str; 39] = [
    "en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko", "ar", "hi", "nl", "pl", "tr",
    "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id", "ms", "he", "uk", "sk", "bg", "hr", "lt", "lv",
    "et", "sl",
];

/// Attempts per page before a run gives up.
const ATTEMPTS: usize = 3;
/// Texts sent to the provider in one request.
const BATCH: usize = 50;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceRef {
    pub space: String,
    pub language: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTranslation {
    pub language: String,
    pub source: SourceRef,
    pub instructions: Option<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionsUpdate {
    pub instructions: Value,
}

#[derive(Debug, Clone)]
pub struct TranslationInfo {
    pub translation: TranslationRow,
    pub edit: bool,
}

/// A glossary change (`insert`, `update`, `delete`).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum GlossaryOperation {
    Insert {
        translations: serde_json::Map<String, Value>,
    },
    Update {
        id: String,
        translations: serde_json::Map<String, Value>,
    },
    Delete {
        id: String,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlossaryUpdate {
    pub operations: Vec<GlossaryOperation>,
}

/// The queued run of a translation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunTranslation {
    pub translation_id: String,
    pub organization_id: String,
    pub user_id: String,
}

impl Job for RunTranslation {
    const KIND: &'static str = "translation-run";
    /// A large space through a slow model takes long; each page is
    /// retried on its own, so only a stalled provider reaches this.
    const TIME_LIMIT: Duration = Duration::from_secs(2 * 60 * 60);

    async fn run(self, app: &App) -> anyhow::Result<Option<Value>> {
        let report = run(app, &self).await?;
        Ok(Some(report))
    }
}

pub fn register_jobs(registry: &mut Registry) {
    registry.register::<RunTranslation>();
}

fn language(field: &str, value: &str) -> AppResult<String> {
    if LANGUAGES.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(AppError::invalid(format!(
            "{field} must be one of {}",
            LANGUAGES.join(", ")
        )))
    }
}

/// The instructions document, checked (400 naming the problem).
fn instructions(value: &Value) -> AppResult<String> {
    Document::from_json(value).map_err(|e| AppError::invalid(format!("instructions: {e}")))?;
    Ok(value.to_string())
}

/// The caller's membership: members read, the create role changes.
async fn org_access(conn: &mut quire_store::Conn, caller: &Caller, org_id: &str, write: bool) -> AppResult<bool> {
    access::org_resources(conn, caller, org_id, write, "manage translations").await
}

async fn translation_of(conn: &mut quire_store::Conn, org_id: &str, id: &str) -> AppResult<TranslationRow> {
    translations::get(conn, org_id, id)
        .await?
        .ok_or_else(|| AppError::not_found("translation", id))
}

pub async fn list(app: &App, caller: &Caller, org_id: &str, page: &PageRequest) -> AppResult<Page<TranslationInfo>> {
    let mut conn = app.db.read().await?;
    let edit = org_access(&mut conn, caller, org_id, false).await?;
    let rows = translations::list(&mut conn, org_id, page).await?;
    Ok(rows.map(|translation| TranslationInfo { translation, edit }))
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, id: &str) -> AppResult<TranslationInfo> {
    let mut conn = app.db.read().await?;
    let edit = org_access(&mut conn, caller, org_id, false).await?;
    Ok(TranslationInfo {
        translation: translation_of(&mut conn, org_id, id).await?,
        edit,
    })
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewTranslation) -> AppResult<TranslationInfo> {
    let target = language("language", &new.language)?;
    let source_language = language("source.language", &new.source.language)?;
    if target == source_language {
        return Err(AppError::invalid("language must differ from the source's language"));
    }
    let instructions = new.instructions.as_ref().map(instructions).transpose()?;
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    let (space, _) = access::space(&mut tx, caller, &new.source.space, None).await?;
    if space.organization_id != org_id {
        return Err(AppError::invalid("source.space must be a space of this organization"));
    }
    let now = app.now();
    let translation = TranslationRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        source_space_id: space.id,
        source_language,
        language: target,
        instructions,
        status: TranslationStatus::Pending,
        result_space_id: None,
        result_revision_id: None,
        runs: 0,
        total_words: 0,
        total_pages: 0,
        total_duration: 0,
        latest_run_duration: 0,
        latest_pages: 0,
        latest_words: 0,
        last_error: None,
        created_at: now,
        updated_at: now,
    };
    translations::put(&mut tx, &translation).await?;
    tx.commit().await?;
    Ok(TranslationInfo {
        translation,
        edit: true,
    })
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    id: &str,
    update: InstructionsUpdate,
) -> AppResult<TranslationInfo> {
    let instructions = instructions(&update.instructions)?;
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    let mut translation = translation_of(&mut tx, org_id, id).await?;
    translation.instructions = Some(instructions);
    translation.updated_at = app.now();
    translations::put(&mut tx, &translation).await?;
    tx.commit().await?;
    Ok(TranslationInfo {
        translation,
        edit: true,
    })
}

/// Deletes a translation (its result space stays).
pub async fn delete(app: &App, caller: &Caller, org_id: &str, id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    translations::delete(&mut tx, org_id, id).await?;
    tx.commit().await?;
    Ok(())
}

/// Queues a run; 400 when no provider is configured.
pub async fn start_run(app: &App, caller: &Caller, org_id: &str, id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    let translation = translation_of(&mut tx, org_id, id).await?;
    if app.translation_provider().is_none() {
        return Err(AppError::invalid(
            "no translation provider is configured: start the server with QUIRE_TRANSLATION_URL (and \
             QUIRE_TRANSLATION_PROVIDER=libretranslate or openai, QUIRE_TRANSLATION_API_KEY, \
             QUIRE_TRANSLATION_MODEL as the provider needs; see the README)",
        ));
    }
    let now = app.now();
    let job = RunTranslation {
        translation_id: translation.id,
        organization_id: org_id.to_owned(),
        user_id: caller.id().to_owned(),
    };
    jobs::enqueue(&mut tx, org_id, &job, now, now).await?;
    tx.commit().await?;
    Ok(())
}

/// What identifies the text a page's translation was made from.
fn source_key(meta: &PageMeta, markdown: &str, settings: &str) -> String {
    let mut hasher = quire_core::digest::Hasher::new();
    for part in [
        meta.title.as_str(),
        meta.description.as_deref().unwrap_or(""),
        markdown,
        settings,
    ] {
        hasher.part(part.as_bytes());
    }
    hasher.hex()
}

fn words(texts: &[String]) -> i64 {
    texts.iter().map(|t| t.split_whitespace().count() as i64).sum()
}

/// Runs a translation; a report of what it did.
pub async fn run(app: &App, job: &RunTranslation) -> anyhow::Result<Value> {
    let Some(provider) = app.translation_provider() else {
        anyhow::bail!("no translation provider is configured");
    };
    let started = Instant::now();
    let mut translation = {
        let mut tx = app.db.write().await?;
        let Some(mut t) = translations::get(&mut tx, &job.organization_id, &job.translation_id).await? else {
            return Ok(serde_json::json!({ "ignored": "the translation was deleted" }));
        };
        t.status = TranslationStatus::Running;
        t.updated_at = app.now();
        translations::put(&mut tx, &t).await?;
        tx.commit().await?;
        t
    };
    let outcome = translate_space(app, &provider, &translation, &job.user_id).await;
    let mut tx = app.db.write().await?;
    let Some(current) = translations::get(&mut tx, &job.organization_id, &job.translation_id).await? else {
        return Ok(serde_json::json!({ "ignored": "the translation was deleted" }));
    };
    translation = TranslationRow {
        updated_at: app.now(),
        ..current
    };
    let seconds = started.elapsed().as_secs() as i64;
    match outcome {
        Ok(done) => {
            translation.status = TranslationStatus::Completed;
            translation.result_space_id = Some(done.space_id.clone());
            translation.result_revision_id = Some(done.revision_id.clone());
            translation.runs += 1;
            translation.latest_pages = done.translated_pages;
            translation.latest_words = done.words;
            translation.total_words += done.words;
            translation.total_pages = done.pages;
            translation.latest_run_duration = seconds;
            translation.total_duration += seconds;
            translation.last_error = None;
            translations::put_pages(&mut tx, &translation.id, &done.rows).await?;
            translations::put(&mut tx, &translation).await?;
            tx.commit().await?;
            Ok(serde_json::json!({
                "space": done.space_id,
                "revision": done.revision_id,
                "translatedPages": done.translated_pages,
                "words": done.words,
            }))
        }
        Err(err) => {
            // Nothing was written: the translation is as it was before.
            translation.status = if translation.result_revision_id.is_some() {
                TranslationStatus::Completed
            } else {
                TranslationStatus::Pending
            };
            translation.last_error = Some(format!("{err:#}"));
            translations::put(&mut tx, &translation).await?;
            tx.commit().await?;
            tracing::warn!(translation = %translation.id, error = %format!("{err:#}"), "translation run failed");
            Err(err)
        }
    }
}

struct RunOutcome {
    space_id: String,
    revision_id: String,
    rows: Vec<TranslatedPageRow>,
    pages: i64,
    translated_pages: i64,
    words: i64,
}

async fn translate_space(
    app: &App,
    provider: &Provider,
    translation: &TranslationRow,
    user_id: &str,
) -> anyhow::Result<RunOutcome> {
    let source_space = {
        let mut conn = app.db.read().await?;
        quire_store::spaces::get_any(&mut conn, &translation.source_space_id).await?
    };
    let source = app
        .engine
        .revisions
        .snapshot(&source_space.id, &source_space.revision_id)
        .await?;
    // The glossary, as pairs for this language pair.
    let glossary: Vec<(String, String)> = {
        let mut conn = app.db.read().await?;
        translations::glossary(&mut conn, &translation.organization_id)
            .await?
            .iter()
            .filter_map(|entry| {
                let map: serde_json::Map<String, Value> = serde_json::from_str(&entry.translations).ok()?;
                Some((
                    map.get(&translation.source_language)?.as_str()?.to_owned(),
                    map.get(&translation.language)?.as_str()?.to_owned(),
                ))
            })
            .collect()
    };
    let instructions = translation
        .instructions
        .as_deref()
        .and_then(|i| serde_json::from_str::<Value>(i).ok())
        .and_then(|doc| Document::from_json(&doc).ok())
        .map(|doc| doc.blocks.iter().map(|b| b.plain_text()).collect::<Vec<_>>().join("\n"));
    let settings = format!("{instructions:?}{glossary:?}");
    let previous: HashMap<String, TranslatedPageRow> = {
        let mut conn = app.db.read().await?;
        translations::pages(&mut conn, &translation.id)
            .await?
            .into_iter()
            .map(|r| (r.source_page_id.clone(), r))
            .collect()
    };
    let order: Vec<String> = source.tree.walk().into_iter().map(|(id, _)| id).collect();
    let hashes: Vec<String> = order
        .iter()
        .filter_map(|id| source.tree.pages[id].meta.document.clone())
        .collect();
    let documents = app.engine.revisions.documents(&hashes).await?;
    let mut rows = Vec::new();
    let mut words_sent = 0;
    let mut translated_pages = 0;
    for id in &order {
        let page = &source.tree.pages[id];
        let markdown = page
            .meta
            .document
            .as_ref()
            .and_then(|h| documents.get(h))
            .map(|t| t.to_string())
            .unwrap_or_default();
        let key = source_key(&page.meta, &markdown, &settings);
        if let Some(done) = previous.get(id).filter(|p| p.source_key == key) {
            rows.push(done.clone());
            continue;
        }
        // Title, description, then the document's prose: one batch list.
        let mut document = Document::from_markdown(&markdown);
        let prose = document.prose();
        let mut texts = vec![page.meta.title.clone()];
        texts.push(page.meta.description.clone().unwrap_or_default());
        texts.extend(prose);
        let mut translated = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let wanted: Vec<String> = chunk.iter().filter(|t| !t.trim().is_empty()).cloned().collect();
            let mut result = None;
            let mut last_error = None;
            for attempt in 0..ATTEMPTS {
                let request = Request {
                    texts: &wanted,
                    source: &translation.source_language,
                    target: &translation.language,
                    instructions: instructions.as_deref(),
                    glossary: &glossary,
                };
                match provider.translate(&request).await {
                    Ok(done) => {
                        result = Some(done);
                        break;
                    }
                    Err(err) => {
                        tracing::info!(page = %id, attempt, error = %err, "translation of a page failed; trying again");
                        last_error = Some(err);
                    }
                }
            }
            let Some(done) = result else {
                anyhow::bail!(
                    "the page {:?} could not be translated: {}",
                    page.meta.title,
                    last_error.map(|e| e.to_string()).unwrap_or_default()
                );
            };
            words_sent += words(&wanted);
            let mut done = done.into_iter();
            for text in chunk {
                translated.push(if text.trim().is_empty() {
                    text.clone()
                } else {
                    done.next().unwrap_or_default()
                });
            }
        }
        let title = translated
            .first()
            .cloned()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or(page.meta.title.clone());
        let description = translated.get(1).cloned().filter(|d| !d.trim().is_empty());
        document.set_prose(&translated[2.min(translated.len())..]);
        let text = if page.meta.document.is_some() {
            document.to_markdown()
        } else {
            String::new()
        };
        rows.push(TranslatedPageRow {
            source_page_id: id.clone(),
            result_page_id: previous
                .get(id)
                .map(|p| p.result_page_id.clone())
                .unwrap_or_else(quire_core::id::new_id),
            source_key: key,
            title,
            description,
            markdown: text,
        });
        translated_pages += 1;
    }
    // The result space: created the first time, in the source's collection.
    let (result_space, created) = result_space(app, translation, &source_space, user_id).await?;
    let base = app
        .engine
        .revisions
        .snapshot(&result_space.id, &result_space.revision_id)
        .await?;
    let result_ids: HashMap<&str, &str> = rows
        .iter()
        .map(|r| (r.source_page_id.as_str(), r.result_page_id.as_str()))
        .collect();
    let mut state = ImportedState::default();
    for (row, id) in rows.iter().zip(&order) {
        let page = &source.tree.pages[id];
        state.pages.push(ImportedPage {
            id: row.result_page_id.clone(),
            parent: page
                .parent
                .as_deref()
                .and_then(|p| result_ids.get(p))
                .map(|p| (*p).to_owned()),
            meta: PageMeta {
                title: row.title.chars().take(200).collect(),
                description: row.description.clone(),
                document: None,
                git: None,
                ..page.meta.clone()
            },
            markdown: page.meta.document.as_ref().map(|_| row.markdown.clone()),
        });
    }
    state.files = source
        .files
        .iter()
        .map(|(_, f)| ImportedFile::Kept(f.clone()))
        .collect();
    for (_, reusable) in &source.reusable {
        state.reusable.push(ImportedReusable {
            id: reusable.id.clone(),
            title: reusable.title.clone(),
            markdown: app.engine.revisions.document(&reusable.document).await?.to_string(),
            git: None,
        });
    }
    let snapshot = app
        .engine
        .imports
        .commit(&result_space, &base, state, user_id, None, Target::Space)
        .await?;
    tracing::info!(
        translation = %translation.id,
        pages = rows.len(),
        translated_pages,
        created,
        "translation run done"
    );
    Ok(RunOutcome {
        space_id: result_space.id,
        revision_id: snapshot.revision.id.clone(),
        pages: rows.len() as i64,
        rows,
        translated_pages,
        words: words_sent,
    })
}

async fn result_space(
    app: &App,
    translation: &TranslationRow,
    source: &quire_store::spaces::SpaceRow,
    user_id: &str,
) -> anyhow::Result<(quire_store::spaces::SpaceRow, bool)> {
    let mut tx = app.db.write().await?;
    if let Some(id) = &translation.result_space_id
        && let Ok(space) = quire_store::spaces::get_any(&mut tx, id).await
        && space.deleted_at.is_none()
    {
        return Ok((space, false));
    }
    let caller = quire_app::Caller::with_token(quire_store::users::get(&mut tx, user_id).await?);
    let title: String = format!("{} ({})", source.title, translation.language)
        .chars()
        .take(50)
        .collect();
    let new = quire_app::spaces::NewSpace {
        title: Some(title),
        parent: source.parent_id.clone(),
        ..quire_app::spaces::NewSpace::default()
    };
    let space = quire_app::spaces::create_in(&mut tx, &caller, &translation.organization_id, new, app.now()).await?;
    tx.commit().await?;
    Ok((space, true))
}

/// The glossary, ordered by the terms of `order_by` (a language) if given.
pub async fn glossary(app: &App, caller: &Caller, org_id: &str, order_by: Option<&str>) -> AppResult<Vec<GlossaryRow>> {
    let mut conn = app.db.read().await?;
    org_access(&mut conn, caller, org_id, false).await?;
    let mut entries = translations::glossary(&mut conn, org_id).await?;
    if let Some(lang) = order_by {
        language("orderBy", lang)?;
        let term = |e: &GlossaryRow| {
            serde_json::from_str::<serde_json::Map<String, Value>>(&e.translations)
                .ok()
                .and_then(|m| m.get(lang).and_then(Value::as_str).map(str::to_lowercase))
                .unwrap_or_default()
        };
        entries.sort_by_key(term);
    }
    Ok(entries)
}

pub async fn glossary_entry(app: &App, caller: &Caller, org_id: &str, id: &str) -> AppResult<GlossaryRow> {
    glossary(app, caller, org_id, None)
        .await?
        .into_iter()
        .find(|e| e.id == id)
        .ok_or_else(|| AppError::not_found("glossary entry", id))
}

fn glossary_terms(map: &serde_json::Map<String, Value>) -> AppResult<String> {
    if map.is_empty() {
        return Err(AppError::invalid("a glossary entry needs at least one translation"));
    }
    for (lang, term) in map {
        language("translations", lang)?;
        let ok = term
            .as_str()
            .is_some_and(|t| !t.is_empty() && t.chars().count() <= 255 && !t.contains(['\n', '\r']));
        if !ok {
            return Err(AppError::invalid(format!(
                "translations.{lang} must be a term of 1 to 255 characters on one line"
            )));
        }
    }
    Ok(Value::Object(map.clone()).to_string())
}

/// Applies glossary operations, all or none.
pub async fn update_glossary(app: &App, caller: &Caller, org_id: &str, update: GlossaryUpdate) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    org_access(&mut tx, caller, org_id, true).await?;
    let now = app.now();
    let existing: Vec<GlossaryRow> = translations::glossary(&mut tx, org_id).await?;
    for op in update.operations {
        match op {
            GlossaryOperation::Insert { translations: terms } => {
                let entry = GlossaryRow {
                    id: quire_core::id::new_id(),
                    organization_id: org_id.to_owned(),
                    translations: glossary_terms(&terms)?,
                    created_at: now,
                    updated_at: Timestamp(now.0),
                };
                translations::put_glossary_entry(&mut tx, &entry).await?;
            }
            GlossaryOperation::Update {
                id,
                translations: terms,
            } => {
                let Some(entry) = existing.iter().find(|e| e.id == id) else {
                    return Err(AppError::not_found("glossary entry", &id));
                };
                let entry = GlossaryRow {
                    translations: glossary_terms(&terms)?,
                    updated_at: now,
                    ..entry.clone()
                };
                translations::put_glossary_entry(&mut tx, &entry).await?;
            }
            GlossaryOperation::Delete { id } => {
                translations::delete_glossary_entry(&mut tx, org_id, &id).await?;
            }
        }
    }
    tx.commit().await?;
    Ok(())
}
