//! Translations and glossary entries as the official API shapes them.

use crate::TranslationInfo;
use quire_store::translations::GlossaryRow;
use serde_json::{Value, json};

use quire_http::state::AppState;

/// The empty instructions document.
fn empty_document() -> Value {
    json!({ "object": "document", "data": {}, "nodes": [] })
}

pub fn translation(state: &AppState, info: TranslationInfo) -> Value {
    let TranslationInfo { translation: t, edit } = info;
    let instructions = t
        .instructions
        .as_deref()
        .and_then(|i| serde_json::from_str(i).ok())
        .unwrap_or_else(empty_document);
    let mut value = json!({
        "object": "translation",
        "id": t.id,
        "status": t.status.as_str(),
        "source": { "space": t.source_space_id, "language": t.source_language },
        "language": t.language,
        "instructions": instructions,
        "createdAt": t.created_at,
        "updatedAt": t.updated_at,
        "stats": {
            "runs": t.runs,
            "totalWords": t.total_words,
            "totalPages": t.total_pages,
            "totalDuration": t.total_duration,
            "latestRunDuration": t.latest_run_duration,
            "latestPages": t.latest_pages,
            "latestWords": t.latest_words,
        },
        "permissions": { "view": true, "edit": edit },
        "urls": { "location": state.api_url(&format!("/orgs/{}/translations/{}", t.organization_id, t.id)) },
    });
    if let (Some(space), Some(revision)) = (t.result_space_id, t.result_revision_id) {
        value["result"] = json!({ "space": space, "revision": revision, "language": t.language });
    }
    value
}

pub fn glossary_entry(state: &AppState, entry: GlossaryRow) -> Value {
    let translations: Value = serde_json::from_str(&entry.translations).unwrap_or_else(|_| json!({}));
    json!({
        "object": "glossary-entry",
        "id": entry.id,
        "translations": translations,
        "createdAt": entry.created_at,
        "updatedAt": entry.updated_at,
        "urls": { "location": state.api_url(&format!("/orgs/{}/translations-glossary/{}", entry.organization_id, entry.id)) },
    })
}
