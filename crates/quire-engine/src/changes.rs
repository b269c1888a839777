//! The changes a content batch is made of, as the official API names them,
//! and what a batch did. Reading them is strict: an unknown operation or
//! field, or a page body in no accepted form, is refused with a message that
//! names it, before anything is applied.

use quire_core::serde_util::nullable;
use serde::Deserialize;
use serde::de::{self, Deserializer, Error as _};
use serde_json::{Map, Value};

/// Largest number of changes in one batch.
pub const MAX_CHANGES: usize = 50;
/// Largest size of one file, decoded from base64 or downloaded from a URL.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// Largest markdown of one page (2 MiB). Editors keep pages far smaller;
/// this bounds what a single page costs to store, merge and render.
pub const MAX_PAGE_MARKDOWN_BYTES: usize = 2 * 1024 * 1024;

/// Page settings shared by inserts and updates.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageFields {
    pub title: Option<String>,
    pub slug: Option<String>,
    pub emoji: Option<String>,
    pub description: Option<String>,
    pub hidden: Option<bool>,
    /// The adaptive-content condition; an empty string removes it.
    pub condition: Option<String>,
}

/// Fields of the official page settings that Quire accepts but does not
/// keep (icons and indexing hints have no place in Quire's pages yet).
const UNKEPT_PAGE_FIELDS: [&str; 3] = ["icon", "noIndex", "noRobotsIndex"];
const PAGE_FIELDS: [&str; 6] = ["title", "slug", "emoji", "description", "hidden", "condition"];

/// A page body in one of the official forms.
#[derive(Debug, Clone)]
pub enum DocumentInput {
    /// `{"markdown": "..."}`
    Markdown { markdown: String },
    /// `{"document": {...}}`: the official JSON document.
    Json { document: Value },
    /// `{}`: an empty page.
    Empty,
}

impl<'de> Deserialize<'de> for DocumentInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Value::Object(mut fields) = Value::deserialize(d)? else {
            return Err(D::Error::custom(
                "document must be an object: {\"markdown\": \"...\"}, {\"document\": {...}} or {}",
            ));
        };
        let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
        match keys.as_slice() {
            [] => Ok(DocumentInput::Empty),
            ["markdown"] => match fields.remove("markdown") {
                Some(Value::String(markdown)) => Ok(DocumentInput::Markdown { markdown }),
                _ => Err(D::Error::custom("document.markdown must be a string")),
            },
            ["document"] => Ok(DocumentInput::Json {
                document: fields.remove("document").unwrap_or_default(),
            }),
            _ => Err(D::Error::custom(format!(
                "document must be {{\"markdown\": \"...\"}}, {{\"document\": {{...}}}} or {{}}, not an object with {} \
                 (a JSON document goes inside {{\"document\": ...}})",
                keys.join(", ")
            ))),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileInput {
    pub name: String,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    #[serde(rename = "contentType")]
    pub content_type: Option<String>,
    pub base64: Option<String>,
    pub url: Option<String>,
}

/// One change of a batch.
#[derive(Debug, Clone)]
pub enum Change {
    InsertPage {
        fields: PageFields,
        into: Option<String>,
        at: Option<usize>,
        reference: Option<String>,
        document: DocumentInput,
    },
    UpdatePage {
        page: String,
        fields: PageFields,
        document: Option<DocumentInput>,
        /// `Some(None)` moves the page to the top level.
        into: Option<Option<String>>,
        at: Option<usize>,
    },
    DeletePage {
        page: String,
    },
    RevertPage {
        page: String,
        revision: Option<String>,
    },
    InsertFiles {
        files: Vec<FileInput>,
    },
}

#[derive(Deserialize)]
struct InsertPage {
    into: Option<String>,
    at: Option<usize>,
    #[serde(rename = "ref")]
    reference: Option<String>,
}

#[derive(Deserialize)]
struct UpdatePage {
    page: String,
    #[serde(default, deserialize_with = "nullable")]
    into: Option<Option<String>>,
    at: Option<usize>,
}

#[derive(Deserialize)]
struct RevertPage {
    page: String,
    revision: Option<String>,
}

#[derive(Deserialize)]
struct InsertFiles {
    files: Vec<FileInput>,
}

#[derive(Deserialize)]
struct DeletePage {
    page: String,
}

/// The fields each operation takes besides `operation`.
fn allowed_fields(operation: &str) -> Option<Vec<&'static str>> {
    let page_settings = PAGE_FIELDS.iter().chain(&UNKEPT_PAGE_FIELDS).copied();
    Some(match operation {
        "insert_page" => page_settings.chain(["into", "at", "ref", "document"]).collect(),
        "update_page" => page_settings.chain(["page", "into", "at", "document"]).collect(),
        "delete_page" => vec!["page"],
        "revert_page" => vec!["page", "revision"],
        "insert_files" => vec!["files"],
        _ => return None,
    })
}

fn typed<T: serde::de::DeserializeOwned, E: de::Error>(operation: &str, fields: &Map<String, Value>) -> Result<T, E> {
    serde_json::from_value(Value::Object(fields.clone())).map_err(|e| E::custom(format!("{operation}: {e}")))
}

impl<'de> Deserialize<'de> for Change {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Value::Object(mut fields) = Value::deserialize(d)? else {
            return Err(D::Error::custom("each change must be an object with an `operation`"));
        };
        let operation = match fields.remove("operation") {
            Some(Value::String(op)) => op,
            _ => return Err(D::Error::custom("each change needs an `operation` (a string)")),
        };
        let Some(allowed) = allowed_fields(&operation) else {
            return Err(D::Error::custom(format!(
                "unknown operation {operation:?}: use insert_page, update_page, delete_page, revert_page or insert_files"
            )));
        };
        if let Some(unknown) = fields.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(D::Error::custom(format!(
                "{operation}: unknown field `{unknown}` (accepted: {})",
                allowed.join(", ")
            )));
        }
        for field in UNKEPT_PAGE_FIELDS {
            fields.remove(field);
        }
        // Taken out first so the (possibly large) body is never copied.
        let document = fields
            .remove("document")
            .map(|body| DocumentInput::deserialize(body).map_err(|e| D::Error::custom(format!("{operation}: {e}"))))
            .transpose()?;
        Ok(match operation.as_str() {
            "insert_page" => {
                let page: InsertPage = typed(&operation, &fields)?;
                Change::InsertPage {
                    fields: typed(&operation, &fields)?,
                    into: page.into,
                    at: page.at,
                    reference: page.reference,
                    document: document.ok_or_else(|| D::Error::custom("insert_page: missing field `document`"))?,
                }
            }
            "update_page" => {
                let page: UpdatePage = typed(&operation, &fields)?;
                Change::UpdatePage {
                    fields: typed(&operation, &fields)?,
                    page: page.page,
                    document,
                    into: page.into,
                    at: page.at,
                }
            }
            "delete_page" => Change::DeletePage {
                page: typed::<DeletePage, _>(&operation, &fields)?.page,
            },
            "revert_page" => {
                let revert: RevertPage = typed(&operation, &fields)?;
                Change::RevertPage {
                    page: revert.page,
                    revision: revert.revision,
                }
            }
            _ => Change::InsertFiles {
                files: typed::<InsertFiles, _>(&operation, &fields)?.files,
            },
        })
    }
}

/// What a batch did to one page or file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppliedChange {
    Created { page: String, reference: Option<String> },
    Updated { page: String },
    Deleted { page: String },
    FileInserted { file: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(change: Value) -> Result<Change, String> {
        serde_json::from_value(change).map_err(|e| e.to_string())
    }

    #[test]
    fn unknown_fields_and_operations_are_named() {
        let err = read(json!({ "operation": "insert_page", "parent": "x", "document": {} })).unwrap_err();
        assert!(err.contains("unknown field `parent`"), "{err}");
        let err = read(json!({ "operation": "rename_page", "page": "x" })).unwrap_err();
        assert!(err.contains("unknown operation"), "{err}");
        let err = read(json!({ "operation": "delete_page" })).unwrap_err();
        assert!(err.contains("page"), "{err}");
    }

    #[test]
    fn documents_take_one_official_form() {
        let err = read(json!({ "operation": "insert_page", "document": { "object": "document", "nodes": "bad" } }))
            .unwrap_err();
        assert!(err.contains("inside {\"document\""), "{err}");
        let err = read(json!({ "operation": "insert_page", "document": { "markdown": 3 } })).unwrap_err();
        assert!(err.contains("markdown must be a string"), "{err}");
        assert!(matches!(
            read(json!({ "operation": "insert_page", "document": {} })),
            Ok(Change::InsertPage {
                document: DocumentInput::Empty,
                ..
            })
        ));
        assert!(matches!(
            read(json!({ "operation": "update_page", "page": "p", "title": "T", "icon": "x", "into": null })),
            Ok(Change::UpdatePage {
                into: Some(None),
                fields: PageFields { title: Some(_), .. },
                ..
            })
        ));
    }
}
