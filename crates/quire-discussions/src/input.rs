//! What discussions take as input, and the rules it obeys: bodies
//! (markdown or the official JSON document, never empty, at most
//! [`MAX_BODY_BYTES`]), page and node ids, reactions, list filters.

use quire_content::document::document_to_markdown;
use quire_engine::DocumentInput;
use quire_store::comments::TableCell;
use serde::Deserialize;

use quire_app::error::{AppError, AppResult};

/// Largest comment or reply body, in bytes of markdown.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Longest reaction, in characters (emoji sequences with modifiers and
/// joiners, or `:shortcodes:`).
const MAX_EMOJI_CHARS: usize = 32;
/// Most emojis one update may add (and remove).
const MAX_REACTIONS_PER_UPDATE: usize = 20;
/// Most users the `authors` filter may name.
const MAX_AUTHORS: usize = 100;
/// Longest page or node id a comment may name.
const MAX_ANCHOR_CHARS: usize = 128;

/// The table cell a comment is attached to.
#[derive(Debug, Clone, Deserialize)]
pub struct TableCellInput {
    pub record: String,
    pub definition: String,
}

/// The input of a new comment.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewComment {
    pub body: DocumentInput,
    /// The page commented on, by id.
    pub page: Option<String>,
    /// The node of that page commented on, by id.
    pub node: Option<String>,
    pub table_cell: Option<TableCellInput>,
}

/// The input of a new reply.
#[derive(Debug, Deserialize)]
pub struct NewReply {
    pub body: DocumentInput,
}

/// The input of a comment or reply update; absent fields change nothing.
/// `resolved` on a reply resolves or reopens the comment it belongs to.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentUpdate {
    pub resolved: Option<bool>,
    pub body: Option<DocumentInput>,
    #[serde(default)]
    pub added_reactions: Vec<String>,
    #[serde(default)]
    pub removed_reactions: Vec<String>,
}

/// Which comments a list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StatusFilter {
    #[default]
    All,
    Open,
    Resolved,
}

#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub status: StatusFilter,
    /// Only comments on this page.
    pub target_page: Option<String>,
    /// Only comments posted by these users (empty: by anyone).
    pub authors: Vec<String>,
}

/// A body as markdown: non-empty, at most [`MAX_BODY_BYTES`].
pub(super) fn body_markdown(input: DocumentInput) -> AppResult<String> {
    let markdown = match input {
        DocumentInput::Markdown { markdown } => markdown,
        DocumentInput::Json { document } => {
            document_to_markdown(&document).map_err(|e| AppError::invalid(format!("body.document: {e}")))?
        }
        DocumentInput::Empty => String::new(),
    };
    if markdown.len() > MAX_BODY_BYTES {
        return Err(AppError::TooLarge(format!(
            "a comment's body must be at most {} KiB of markdown (this one is {} bytes)",
            MAX_BODY_BYTES / 1024,
            markdown.len()
        )));
    }
    if markdown.trim().is_empty() {
        return Err(AppError::invalid(
            "body must not be empty: send {\"markdown\": \"...\"} or {\"document\": {...}}",
        ));
    }
    Ok(markdown)
}

/// A page or node id: 1 to [`MAX_ANCHOR_CHARS`] letters, digits, `_` and `-`.
pub(super) fn anchor_id(field: &str, value: &str) -> AppResult<String> {
    let ok = !value.is_empty()
        && value.len() <= MAX_ANCHOR_CHARS
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(value.to_owned())
    } else {
        Err(AppError::invalid(format!(
            "{field} must be an id of 1 to {MAX_ANCHOR_CHARS} letters, digits, '_' and '-'"
        )))
    }
}

pub(super) fn table_cell(input: TableCellInput) -> AppResult<TableCell> {
    Ok(TableCell {
        record: anchor_id("tableCell.record", &input.record)?,
        definition: anchor_id("tableCell.definition", &input.definition)?,
    })
}

/// A reaction: 1 to [`MAX_EMOJI_CHARS`] characters without white space or
/// control characters.
fn emoji(field: &str, value: &str) -> AppResult<String> {
    let len = value.chars().count();
    if len == 0 || len > MAX_EMOJI_CHARS || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AppError::invalid(format!(
            "{field}: {value:?} is not a reaction (an emoji of 1 to {MAX_EMOJI_CHARS} characters, without spaces)"
        )));
    }
    Ok(value.to_owned())
}

/// The emojis to add and to remove, each list without repeats; an emoji in
/// both lists is refused (the update would mean two things).
pub(super) fn reaction_change(update: &CommentUpdate) -> AppResult<(Vec<String>, Vec<String>)> {
    let clean = |field: &str, values: &[String]| -> AppResult<Vec<String>> {
        if values.len() > MAX_REACTIONS_PER_UPDATE {
            return Err(AppError::invalid(format!(
                "{field} holds at most {MAX_REACTIONS_PER_UPDATE} emojis"
            )));
        }
        let mut out: Vec<String> = Vec::with_capacity(values.len());
        for value in values {
            let value = emoji(field, value)?;
            if !out.contains(&value) {
                out.push(value);
            }
        }
        Ok(out)
    };
    let added = clean("addedReactions", &update.added_reactions)?;
    let removed = clean("removedReactions", &update.removed_reactions)?;
    if let Some(both) = added.iter().find(|e| removed.contains(e)) {
        return Err(AppError::invalid(format!(
            "{both:?} is in both addedReactions and removedReactions"
        )));
    }
    Ok((added, removed))
}

impl ListFilter {
    pub(super) fn check(&self) -> AppResult<()> {
        if self.authors.len() > MAX_AUTHORS {
            return Err(AppError::invalid(format!("authors names at most {MAX_AUTHORS} users")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_markdown_or_documents_and_never_empty() {
        let markdown = |text: &str| DocumentInput::Markdown { markdown: text.into() };
        assert_eq!(body_markdown(markdown("Hi @u1")).unwrap(), "Hi @u1");
        assert!(body_markdown(markdown("  \n")).is_err());
        assert!(body_markdown(DocumentInput::Empty).is_err());
        assert!(matches!(
            body_markdown(markdown(&"x".repeat(MAX_BODY_BYTES + 1))),
            Err(AppError::TooLarge(_))
        ));
        let document = quire_content::document::markdown_to_document("Hello **world**\n");
        assert_eq!(
            body_markdown(DocumentInput::Json { document }).unwrap().trim(),
            "Hello **world**"
        );
        let invalid = body_markdown(DocumentInput::Json {
            document: serde_json::json!({ "object": "block" }),
        });
        assert!(matches!(invalid, Err(AppError::Invalid(m)) if m.starts_with("body.document")));
    }

    #[test]
    fn reactions_are_short_emojis_listed_once() {
        let update = |added: &[&str], removed: &[&str]| CommentUpdate {
            added_reactions: added.iter().map(|s| s.to_string()).collect(),
            removed_reactions: removed.iter().map(|s| s.to_string()).collect(),
            ..CommentUpdate::default()
        };
        let (added, removed) = reaction_change(&update(&["👍", "👍", "🎉"], &["👀"])).unwrap();
        assert_eq!(added, vec!["👍", "🎉"]);
        assert_eq!(removed, vec!["👀"]);
        assert!(reaction_change(&update(&[""], &[])).is_err());
        assert!(reaction_change(&update(&["thumbs up"], &[])).is_err());
        assert!(reaction_change(&update(&[&"x".repeat(MAX_EMOJI_CHARS + 1)], &[])).is_err());
        assert!(reaction_change(&update(&["👍"], &["👍"])).is_err());
        assert!(reaction_change(&update(&["👨‍👩‍👧‍👦"], &[])).is_ok());
    }

    #[test]
    fn anchors_are_ids() {
        assert!(anchor_id("page", "abc_D-9").is_ok());
        assert!(anchor_id("page", "").is_err());
        assert!(anchor_id("page", "a b").is_err());
        assert!(anchor_id("page", &"a".repeat(MAX_ANCHOR_CHARS + 1)).is_err());
    }
}
