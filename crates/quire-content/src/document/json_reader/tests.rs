//! The strict JSON reader: what the schema allows is read (optional fields
//! included), anything else is refused with its path.

use serde_json::{Value, json};

use super::super::model::{Block, Document, Inline, LinkTarget};

fn doc(nodes: Value) -> Value {
    json!({ "object": "document", "data": {}, "nodes": nodes })
}

fn text(s: &str) -> Value {
    json!({ "object": "text", "leaves": [{ "object": "leaf", "text": s, "marks": [] }] })
}

fn paragraph(nodes: Value) -> Value {
    json!({ "object": "block", "type": "paragraph", "nodes": nodes })
}

fn error(document: Value) -> String {
    Document::from_json(&document).expect_err("the document is refused").0
}

fn read(document: Value) -> Document {
    Document::from_json(&document).unwrap_or_else(|e| panic!("{e}\n{document:#}"))
}

#[test]
fn documents_need_their_fields() {
    assert_eq!(
        error(json!({ "object": "document", "nodes": "bad" })),
        "nodes: must be an array of blocks"
    );
    assert_eq!(
        error(json!({ "nodes": [], "data": {} })),
        "object: must be \"document\""
    );
    assert_eq!(
        error(json!({ "object": "document", "data": {} })),
        "nodes: must be an array of blocks"
    );
    assert!(error(json!({ "object": "document", "nodes": [] })).starts_with("data: is missing"));
    assert_eq!(
        error(json!({ "object": "document", "data": { "schemaVersion": "1" }, "nodes": [] })),
        "data.schemaVersion: must be a number"
    );
    assert!(error(json!({ "object": "document", "data": {}, "nodes": [], "title": "x" })).contains("`title`"));
    assert!(
        error(json!({ "object": "document", "data": {}, "nodes": [], "meta": { "token": 1 } }))
            .starts_with("meta.token:")
    );
    // The document's data takes anything; meta may carry a token.
    read(
        json!({ "object": "document", "data": { "schemaVersion": 1, "anything": [1] }, "meta": { "token": "t" }, "nodes": [] }),
    );
}

#[test]
fn fields_the_schema_does_not_list_are_refused() {
    let parent = error(doc(
        json!([{ "object": "block", "type": "paragraph", "nodes": [text("a")], "parent": "x" }]),
    ));
    assert!(
        parent.starts_with("nodes[0]: field `parent` is not allowed"),
        "{parent}"
    );
    let cases = [
        (
            json!([paragraph(json!([text("a")])).as_object().map(|p| {
                let mut p = p.clone();
                p.insert("data".into(), json!({ "colour": "red" }));
                Value::Object(p)
            })]),
            "nodes[0].data: field `colour`",
        ),
        (
            json!([{ "object": "block", "type": "divider", "isVoid": true, "data": {}, "nodes": [] }]),
            "nodes[0]: field `nodes`",
        ),
        (
            json!([paragraph(json!([{ "object": "text", "leaves": [], "marks": [] }]))]),
            "nodes[0].nodes[0]: field `marks`",
        ),
        (
            json!([paragraph(
                json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": "a", "marks": [], "bold": true }] }])
            )]),
            "nodes[0].nodes[0].leaves[0]: field `bold`",
        ),
        (
            json!([paragraph(
                json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": "a", "marks": [{ "object": "mark", "type": "bold", "data": {} }] }] }])
            )]),
            "marks[0]: field `data`",
        ),
        (
            json!([paragraph(
                json!([{ "object": "inline", "type": "link", "data": { "ref": { "kind": "url", "url": "u", "title": "t" } }, "nodes": [] }])
            )]),
            "data.ref: field `title`",
        ),
        (
            json!([{ "object": "block", "type": "hint", "data": { "style": "info", "kind": "x" }, "nodes": [] }]),
            "nodes[0].data: field `kind`",
        ),
    ];
    for (nodes, wanted) in cases {
        let message = error(doc(nodes));
        assert!(message.contains(wanted), "{message} should name {wanted}");
    }
}

#[test]
fn unknown_types_and_wrong_values_are_refused() {
    let cases = [
        (
            json!([{ "object": "block", "type": "nope", "nodes": [] }]),
            "nodes[0]: unsupported block type `nope`",
        ),
        (
            json!([{ "object": "block", "type": "drawing", "isVoid": true, "data": {} }]),
            "nodes[0]: unsupported block type `drawing`",
        ),
        (
            json!([{ "object": "block", "type": "file", "isVoid": true, "data": {} }]),
            "nodes[0]: `data.ref` is missing",
        ),
        (
            json!([{ "object": "block", "type": "stepper", "isVoid": false, "data": { "numbered": true }, "nodes": [] }]),
            "nodes[0].data: field `numbered` is not allowed here",
        ),
        (
            json!([{ "object": "block", "type": "update", "isVoid": false, "data": { "date": "2025-01-01", "tags": ["beta"] }, "nodes": [] }]),
            "nodes[0].data.tags[0]: must be an object",
        ),
        (
            json!([paragraph(
                json!([{ "object": "inline", "type": "mention", "isVoid": true, "data": {} }])
            )]),
            "nodes[0].nodes[0]: unsupported inline type `mention`",
        ),
        (
            json!([paragraph(
                json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": "a", "marks": [{ "object": "mark", "type": "underline" }] }] }])
            )]),
            "nodes[0].nodes[0].leaves[0].marks[0]: unknown mark type `underline`",
        ),
        (
            json!([paragraph(
                json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": "a", "marks": {} }] }])
            )]),
            "nodes[0].nodes[0].leaves[0]: `marks` must be an array",
        ),
        (
            json!([paragraph(
                json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": 1, "marks": [] }] }])
            )]),
            "a leaf needs a string `text`",
        ),
        (
            json!([paragraph(json!([{ "object": "text", "leaves": "a" }]))]),
            "a text node needs a `leaves` array",
        ),
        (
            json!([{ "object": "block", "type": "paragraph", "key": 7, "nodes": [] }]),
            "nodes[0].key: must be a string",
        ),
        (
            json!([{ "object": "block", "type": "paragraph", "isVoid": true, "nodes": [] }]),
            "nodes[0].isVoid: must be false",
        ),
        (
            json!([{ "object": "block", "type": "math", "isVoid": false, "data": { "formula": "x" } }]),
            "nodes[0].isVoid: must be true",
        ),
        (
            json!([{ "object": "block", "type": "math", "data": { "formula": "x" } }]),
            "nodes[0]: missing `isVoid`",
        ),
        (
            json!([{ "object": "block", "type": "math", "isVoid": true, "data": { "formula": 2 } }]),
            "nodes[0].data.formula: must be a string",
        ),
        (
            json!([{ "object": "block", "type": "list-ordered", "data": { "start": 1.5 }, "nodes": [] }]),
            "whole number",
        ),
        (
            json!([{ "object": "block", "type": "heading-1", "data": { "id": "Not An Id" }, "nodes": [] }]),
            "nodes[0].data.id: must match",
        ),
        (
            json!([{ "object": "block", "type": "heading-1", "nodes": [] }]),
            "nodes[0]: missing `data`",
        ),
        (
            json!([{ "object": "block", "type": "heading-2", "data": {}, "meta": {}, "nodes": [] }]),
            "nodes[0].meta: missing `id`",
        ),
        (
            json!([{ "object": "block", "type": "hint", "data": { "style": "info", "icon": "x".repeat(51) }, "nodes": [] }]),
            "nodes[0].data.icon:",
        ),
        (
            json!([{ "object": "block", "type": "code", "data": { "overflow": "hidden" }, "nodes": [] }]),
            "nodes[0].data.overflow: must be one of",
        ),
        (
            json!([{ "object": "block", "type": "code", "data": { "collapsedLineCount": 0 }, "nodes": [] }]),
            "nodes[0].data.collapsedLineCount:",
        ),
        (
            json!([paragraph(
                json!([{ "object": "text", "leaves": [{ "object": "leaf", "text": "a", "marks": [{ "object": "mark", "type": "color", "data": { "text": "chartreuse", "background": "default" } }] }] }])
            )]),
            "data.text: must be one of",
        ),
        (
            json!([paragraph(
                json!([{ "object": "inline", "type": "inline-image", "isVoid": true, "data": { "ref": { "kind": "url", "url": "u" }, "size": "huge" } }])
            )]),
            "data.size: must be one of",
        ),
        (
            json!([{ "object": "block", "type": "images", "isVoid": false, "data": {}, "nodes": [{ "object": "block", "type": "image", "isVoid": true, "data": { "ref": { "kind": "url", "url": "u" }, "width": "wide" }, "fragments": [] }] }]),
            "nodes[0].nodes[0].data.width:",
        ),
    ];
    for (nodes, wanted) in cases {
        let message = error(doc(nodes));
        assert!(message.contains(wanted), "{message:?} should contain {wanted:?}");
    }
}

#[test]
fn blocks_where_the_schema_does_not_allow_them_are_refused() {
    let code = json!({ "object": "block", "type": "code", "data": {}, "nodes": [] });
    let hint = json!({ "object": "block", "type": "hint", "data": { "style": "info" }, "nodes": [code] });
    assert_eq!(
        error(doc(json!([hint]))),
        "nodes[0].nodes[0]: a hint cannot hold a `code` block"
    );
    let include = json!({ "object": "block", "type": "reusable-content", "isVoid": true, "data": { "ref": { "kind": "reusable-content", "reusableContent": "r" } } });
    let list = json!({ "object": "block", "type": "list-unordered", "nodes": [{ "object": "block", "type": "list-item", "nodes": [include] }] });
    assert_eq!(
        error(doc(json!([list]))),
        "nodes[0].nodes[0].nodes[0]: a list item cannot hold a `reusable-content` block"
    );
    let nested = json!({ "object": "inline", "type": "link", "data": { "ref": { "kind": "url", "url": "a" } }, "nodes": [
        { "object": "inline", "type": "link", "data": { "ref": { "kind": "url", "url": "b" } }, "nodes": [] }
    ] });
    assert_eq!(
        error(doc(json!([paragraph(json!([nested]))]))),
        "nodes[0].nodes[0].nodes[0]: a link holds text and inline images only"
    );
    let annotated = json!({ "object": "block", "type": "code", "data": {}, "nodes": [
        { "object": "block", "type": "code-line", "data": {}, "nodes": [{ "object": "inline", "type": "annotation", "nodes": [] }] }
    ] });
    assert_eq!(
        error(doc(json!([annotated]))),
        "nodes[0].nodes[0].nodes[0]: unsupported inline type `annotation`"
    );
}

#[test]
fn optional_fields_the_schema_allows_are_read_and_left_out() {
    let document = doc(json!([
        { "object": "block", "type": "paragraph", "key": "k1", "isVoid": false, "data": { "align": "center" }, "nodes": [
            { "object": "text", "key": "k2", "leaves": [{ "object": "leaf", "text": "a", "marks": [
                { "object": "mark", "type": "keyboard" },
                { "object": "mark", "type": "color", "data": { "text": "$primary", "background": "default" } },
                { "object": "mark", "type": "bold" }
            ] }] },
            { "object": "inline", "type": "link", "key": "k3", "isVoid": false, "data": { "ref": { "kind": "page", "page": "p1", "space": "s1" } }, "nodes": [
                { "object": "inline", "type": "inline-image", "isVoid": true, "data": { "ref": { "kind": "file", "file": "f" }, "refDark": { "kind": "url", "url": "d" }, "size": "line", "alt": "A", "caption": "C" } }
            ] },
            { "object": "inline", "type": "inline-math", "isVoid": true, "data": { "formula": "x^2" } }
        ] },
        { "object": "block", "type": "heading-2", "data": { "id": "my-id", "align": "start" }, "meta": { "id": "my-id" }, "nodes": [text("Title")] },
        { "object": "block", "type": "heading-3", "data": {}, "nodes": [text("No Id")] },
        { "object": "block", "type": "code", "data": { "syntax": "rust", "fullWidth": true, "expandable": false, "collapsedLineCount": 4 }, "nodes": [
            { "object": "block", "type": "code-line", "data": { "highlighted": true }, "nodes": [text("fn main() {}")] }
        ] },
        { "object": "block", "type": "tabs", "data": { "fullWidth": false }, "nodes": [
            { "object": "block", "type": "tabs-item", "data": { "title": "T", "icon": "gear", "slug": "t" }, "meta": { "id": "x" }, "nodes": [] }
        ] },
        { "object": "block", "type": "images", "isVoid": false, "data": { "align": "center", "fullWidth": false, "withFrame": true }, "nodes": [
            { "object": "block", "type": "image", "isVoid": true, "data": { "ref": { "kind": "url", "url": "https://x/i.png" }, "width": 300, "height": { "unit": "px", "value": 200 }, "alt": "Alt" }, "fragments": [
                { "object": "fragment", "fragment": "caption", "nodes": [paragraph(json!([text("Cap")]))] }
            ] }
        ] },
        { "object": "block", "type": "reusable-content", "isVoid": true, "data": { "ref": { "kind": "reusable-content", "reusableContent": "shared.md", "space": "s" } }, "meta": { "token": "t" } },
        { "object": "block", "type": "table", "isVoid": true, "data": {
            "view": { "type": "cards", "cardSize": "medium", "columns": ["a", "b"], "hideColumnTitle": true },
            "definition": {
                "a": { "id": "a", "title": "Name", "type": "text", "textAlignment": "right", "verticalAlignment": "top" },
                "b": { "id": "b", "title": "Score", "type": "rating", "max": 5 }
            },
            "records": { "r": { "orderIndex": "a0", "values": { "a": "frag", "b": 4 } } },
            "cellMerges": [{ "anchor": { "record": "r", "column": "a" }, "rowSpan": 1, "colSpan": 2 }],
            "fullWidth": false,
            "search": true
        }, "fragments": [{ "object": "fragment", "fragment": "frag", "type": "x", "nodes": [paragraph(json!([text("Ada")]))] }] }
    ]));
    let read = read(document);
    let blocks = &read.blocks;
    assert_eq!(blocks.len(), 8);
    let Block::Paragraph(content) = &blocks[0] else {
        panic!("{blocks:#?}")
    };
    assert!(matches!(&content[0], Inline::Text { text, marks } if text == "a" && marks.bold && !marks.italic));
    assert!(
        matches!(&content[1], Inline::Link { target: LinkTarget::Page { page }, content } if page == "p1" && matches!(content[..], [Inline::Image(_)]))
    );
    assert!(matches!(&content[2], Inline::Math { formula } if formula == "x^2"));
    let ids: Vec<&str> = read.headings().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["my-id", "no-id"]);
    assert!(matches!(&blocks[5], Block::Images(images) if images[0].caption == "Cap" && images[0].alt == "Alt"));
    assert!(matches!(&blocks[6], Block::Include { path } if path == "shared.md"));
    let Block::Table(table) = &blocks[7] else { panic!() };
    assert_eq!(table.columns[0].title, "Name");
    assert_eq!(
        table.rows,
        vec![vec![vec![Inline::plain("Ada")], vec![Inline::plain("4")]]]
    );
    assert_eq!(
        read.to_markdown(),
        "**a**[![A](/files/f \"C\")](/pages/p1)$$x^2$$\n\n## Title <a href=\"#my-id\" id=\"my-id\"></a>\n\n### No Id\n\n```rust\nfn main() {}\n```\n\n\
         {% tabs %}\n{% tab title=\"T\" %}\n{% endtab %}\n{% endtabs %}\n\n![Alt](https://x/i.png \"Cap\")\n\n\
         {% include \"shared.md\" %}\n\n| Name | Score |\n| --: | --- |\n| Ada | 4 |\n"
    );
}

#[test]
fn headings_without_ids_get_unique_ones() {
    let heading = |id: Option<&str>, title: &str| match id {
        Some(id) => json!({ "object": "block", "type": "heading-1", "data": { "id": id }, "nodes": [text(title)] }),
        None => json!({ "object": "block", "type": "heading-1", "data": {}, "nodes": [text(title)] }),
    };
    let read = read(doc(json!([
        heading(None, "Intro"),
        heading(Some("intro"), "Other"),
        heading(None, "Intro")
    ])));
    let ids: Vec<&str> = read.headings().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["intro-1", "intro", "intro-2"]);
}
