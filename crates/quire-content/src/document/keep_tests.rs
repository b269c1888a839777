//! Saving a document over its old markdown: unchanged blocks keep their
//! text byte for byte, changed ones are written canonically, and the
//! result always reads as the new document.

use serde_json::{Value, json};

use super::{Document, document_to_markdown_over, markdown_to_document};

/// GitBook-era markdown in forms Quire does not write: `*` bullets,
/// hard-wrapped lines, a padded table, `####`, escaped parentheses, inline
/// HTML, a figure, an anchor, runs of blank lines.
const PAGE: &str = "---\ndescription: A page\n---\n\n# Getting started\n\nFirst paragraph,\nhard-wrapped \\(as GitBook wrote it\\).\n\n\n* one\n* two\n\n| Name   | Kind |\n| ------ | ---- |\n| a      | b    |\n\n#### A deep heading\n\nSome <mark style=\"color:red;\">marked</mark> text and <kbd>Ctrl</kbd>.\n\n{% hint style=\"info\" %}\nA hint\n\nwith two paragraphs.\n{% endhint %}\n\n<figure><img src=\"https://example.com/a.png\" alt=\"An image\"><figcaption><p>Its caption</p></figcaption></figure>\n\n## Section <a href=\"#custom\" id=\"custom\"></a>\n\n```js\nlet a = 1;\n\nlet b = 2;\n```\n\nLast words.\n";

/// The page read as JSON (what an editor gets), changed by `edit`, saved
/// over the page.
fn save(markdown: &str, edit: impl FnOnce(&mut Vec<Value>)) -> String {
    let mut json = markdown_to_document(markdown);
    let nodes = json["nodes"].as_array_mut().expect("a document has nodes");
    edit(nodes);
    document_to_markdown_over(&json, markdown).expect("the edited document is valid")
}

fn paragraph(text: &str) -> Value {
    serde_json::json!({
        "object": "block", "type": "paragraph", "data": {},
        "nodes": [{ "object": "text", "leaves": [{ "object": "leaf", "text": text, "marks": [] }] }]
    })
}

fn reads_as(markdown: &str) -> Document {
    Document::from_markdown(markdown)
}

#[test]
fn an_unchanged_document_is_the_old_markdown_byte_for_byte() {
    assert_eq!(save(PAGE, |_| {}), PAGE);
}

#[test]
fn inline_html_travels_through_json_as_written() {
    let json = markdown_to_document(PAGE);
    let text = serde_json::to_string(&json).expect("JSON");
    assert!(text.contains("quire-html-inline"), "{text}");
    assert_eq!(save(PAGE, |_| {}), PAGE);
}

#[test]
fn an_edit_rewrites_only_the_block_it_touched() {
    let saved = save(PAGE, |nodes| {
        let last = nodes.len() - 1;
        nodes[last] = paragraph("New last words.");
    });
    assert_eq!(saved, PAGE.replace("Last words.", "New last words."));
}

#[test]
fn an_edited_deep_heading_keeps_its_depth() {
    let saved = save(PAGE, |nodes| {
        let deep = nodes
            .iter()
            .position(|n| n["type"] == "heading-3")
            .expect("the deep heading");
        // The editor drops a heading's anchor with the words it was made for.
        nodes[deep]["data"] = json!({});
        nodes[deep]["nodes"] = json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": "A renamed deep heading", "marks": [] }] }]);
    });
    assert_eq!(
        saved,
        PAGE.replace("#### A deep heading", "#### A renamed deep heading")
    );
    // A heading made level 3 by the editor where none was stays `###`.
    let added = save(PAGE, |nodes| {
        let last = nodes.len() - 1;
        nodes[last] = json!({ "object": "block", "type": "heading-3", "data": {}, "nodes": [{ "object": "text", "leaves": [{ "object": "leaf", "text": "New", "marks": [] }] }] });
    });
    assert!(added.ends_with("\n### New\n"), "{added}");
}

#[test]
fn inserted_and_deleted_blocks_leave_their_neighbours_as_written() {
    let saved = save(PAGE, |nodes| {
        nodes.insert(2, paragraph("Inserted."));
        let deep = nodes
            .iter()
            .position(|n| n["type"] == "heading-3")
            .expect("the deep heading");
        nodes.remove(deep);
    });
    assert!(saved.contains("* one\n* two\n\n| Name   | Kind |"), "{saved}");
    assert!(
        saved.contains("hard-wrapped \\(as GitBook wrote it\\).\n\nInserted.\n\n* one"),
        "{saved}"
    );
    assert!(!saved.contains("#### A deep heading"), "{saved}");
    assert!(
        saved.contains("\n\nSome <mark style=\"color:red;\">marked</mark>"),
        "{saved}"
    );
    assert!(
        saved.starts_with("---\ndescription: A page\n---\n\n# Getting started\n"),
        "{saved}"
    );
    let mut expected = Document::from_markdown(PAGE);
    expected
        .blocks
        .insert(2, Document::from_markdown("Inserted.").blocks.remove(0));
    expected
        .blocks
        .retain(|b| !matches!(b, super::Block::Heading(h) if h.id == "a-deep-heading"));
    assert_eq!(reads_as(&saved).blocks, expected.blocks);
}

#[test]
fn a_changed_block_inside_a_container_rewrites_the_container_only() {
    let saved = save(PAGE, |nodes| {
        let hint = nodes.iter_mut().find(|n| n["type"] == "hint").expect("the hint");
        hint["nodes"][0] = paragraph("A changed hint");
    });
    assert!(saved.contains("{% hint style=\"info\" %}\nA changed hint\n\nwith two paragraphs.\n{% endhint %}"));
    assert!(saved.contains("```js\nlet a = 1;\n\nlet b = 2;\n```"));
    assert_eq!(saved.replace("A changed hint", "A hint"), PAGE);
}

#[test]
fn neighbouring_lists_stay_apart_when_one_is_rewritten() {
    let page = "* a\n* b\n\nText.\n\n- c\n";
    let saved = save(page, |nodes| {
        nodes.remove(1);
    });
    assert_eq!(reads_as(&saved).blocks.len(), 2, "{saved}");
}

#[test]
fn a_page_whose_blocks_depend_on_each_other_is_still_right() {
    // A link reference defined at the end: the pieces cannot be read apart.
    let page = "See [the docs][d].\n\nMore.\n\n[d]: https://example.com\n";
    let saved = save(page, |nodes| {
        nodes[1] = paragraph("Changed.");
    });
    let doc = reads_as(&saved);
    assert_eq!(
        doc.blocks,
        reads_as("See [the docs](https://example.com).\n\nChanged.\n").blocks
    );
}

#[test]
fn an_emptied_page_keeps_its_front_matter() {
    let saved = save(PAGE, Vec::clear);
    assert_eq!(saved, "---\ndescription: A page\n---\n");
}

#[test]
fn the_title_heading_is_the_title_not_content() {
    let json = super::page_document(PAGE, "Getting started");
    let first = &json["nodes"][0];
    assert_eq!(first["type"], "paragraph", "{first}");
    // Saved back unchanged: the heading is given back, nothing changes.
    assert_eq!(
        super::page_markdown_over(&json, PAGE, "Getting started", "Getting started").expect("valid"),
        PAGE
    );
    // Retitled: the heading says the new title, the rest is as written.
    let retitled = super::page_markdown_over(&json, PAGE, "Getting started", "First steps").expect("valid");
    assert_eq!(retitled, PAGE.replace("# Getting started", "# First steps"));
    // A heading that is not the title stays content.
    let other = super::page_document(PAGE, "Another title");
    assert_eq!(other["nodes"][0]["type"], "heading-1");
}
