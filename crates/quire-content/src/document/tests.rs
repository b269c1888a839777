//! The conversions' behaviour through the public functions: markdown to
//! JSON, JSON to markdown, round trips, and the official schema.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::spec::schema_errors;
use super::{document_to_markdown, markdown_to_document};

// JSON helpers: reading the documents the conversions produce.

fn node_type(node: &Value) -> &str {
    node.get("type").and_then(Value::as_str).unwrap_or("")
}

fn child_nodes(node: &Value) -> &[Value] {
    node.get("nodes").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn data_str<'a>(node: &'a Value, key: &str) -> Option<&'a str> {
    node.get("data")?.get(key)?.as_str()
}

/// The text of JSON inline nodes, marks and links aside.
fn plain_text(nodes: &[Value]) -> String {
    let mut out = String::new();
    for node in nodes {
        if let Some(leaves) = node.get("leaves").and_then(Value::as_array) {
            for leaf in leaves {
                out.push_str(leaf.get("text").and_then(Value::as_str).unwrap_or(""));
            }
        }
        out.push_str(&plain_text(child_nodes(node)));
    }
    out
}

/// The plain text of an image's caption fragment.
fn caption_text(image: &Value) -> String {
    let fragments = image
        .get("fragments")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    fragments
        .iter()
        .filter(|f| f.get("fragment").and_then(Value::as_str) == Some("caption"))
        .flat_map(|f| child_nodes(f).iter().map(|p| plain_text(child_nodes(p))))
        .collect::<Vec<_>>()
        .join(" ")
}

fn fragment<'a>(node: &'a Value, key: &str) -> Option<&'a Value> {
    node.get("fragments")?
        .as_array()?
        .iter()
        .find(|f| f.get("fragment").and_then(Value::as_str) == Some(key))
}

/// A JSON paragraph block holding `nodes`.
fn paragraph(nodes: Vec<Value>) -> Value {
    json!({ "object": "block", "type": "paragraph", "isVoid": false, "data": {}, "nodes": nodes })
}

/// Markdown → document → markdown → document: both documents agree.
/// Returns the written markdown.
fn round_trip(markdown: &str) -> String {
    let first = markdown_to_document(markdown);
    let written = document_to_markdown(&first).expect("our own documents convert");
    let second = markdown_to_document(&written);
    if first != second {
        let (first, second) = (format!("{first:#}"), format!("{second:#}"));
        let at = first.lines().zip(second.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let context = |s: &str| {
            s.lines()
                .skip(at.saturating_sub(8))
                .take(12)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "markdown:\n{markdown}\n--- written:\n{written}\n--- first differs at line {at}:\n{}\n--- second:\n{}",
            context(&first),
            context(&second)
        );
    }
    written
}

fn nodes(markdown: &str) -> Vec<Value> {
    match markdown_to_document(markdown)["nodes"].take() {
        Value::Array(nodes) => nodes,
        other => panic!("nodes is not an array: {other}"),
    }
}

fn only_block(markdown: &str) -> Value {
    let mut blocks = nodes(markdown);
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    blocks.remove(0)
}

fn leaf(text: &str, marks: &[&str]) -> Value {
    let marks: Vec<Value> = marks.iter().map(|m| json!({ "object": "mark", "type": m })).collect();
    json!({ "object": "leaf", "text": text, "marks": marks })
}

fn error(doc: Value) -> String {
    document_to_markdown(&doc).expect_err("the document is refused").0
}

const RICH: &str = r#"---
title: Sample
---

# Getting started

Some **bold**, *italic*, ~~struck~~ and `code` text with a [page link](/pages/abc123),
a [file](/files/f1), an [anchor](#install) and a [site](https://example.com/a?b=1&c=2).\
A second line.

## Install

1. First
2. Second
   - nested
   - items

- [x] done
- [ ] todo

> A quote
>
> > nested
>
> ```
> code in a quote
> ```

```rust
fn main() {
println!("hi");
}
```

{% code title="app.js" overflow="wrap" lineNumbers="true" %}
```js
console.log(1)
```
{% endcode %}

***

![Logo](/files/logo "The logo")

Text with ![icon](https://example.com/i.png) inline.

{% hint style="warning" %}
Careful **here**.

```sh
rm -rf /
```

{% hint style="danger" %}
Nested hint.
{% endhint %}
{% endhint %}

{% tabs %}
{% tab title="macOS" %}
brew install quire

| a | b |
| - | - |
| 1 | 2 |
{% endtab %}

{% tab title="Linux" %}
```sh
apt install quire
```
{% endtab %}
{% endtabs %}

{% content-ref url="/pages/xyz" %}
[Other](/pages/xyz)
{% endcontent-ref %}

{% embed url="https://youtube.com/watch?v=1" %}

$$
E = mc^2
$$

| Name | Value |
| :--- | ---: |
| a | **1** |
| b `x\|y` | [two](/pages/p2) |

{% unknown thing="x" %}

<div>html</div>

### Deep heading

#### Deeper heading
"#;

#[test]
fn empty_markdown_is_an_empty_document() {
    let doc = markdown_to_document("");
    assert_eq!(
        doc,
        json!({ "object": "document", "data": { "schemaVersion": 1 }, "nodes": [] })
    );
    assert_eq!(markdown_to_document("---\ntitle: x\n---\n")["nodes"], json!([]));
    assert_eq!(document_to_markdown(&doc).unwrap(), "");
}

#[test]
fn front_matter_is_not_content() {
    let block = only_block("---\ntitle: T\n---\nHello\n");
    assert_eq!(plain_text(child_nodes(&block)), "Hello");
}

#[test]
fn headings_have_schema_ids() {
    let blocks = nodes("# Getting Started!\n\n## Café & Co\n\n### Three\n\n#### Four\n\n# Getting started\n\n# ¿?\n");
    let kinds: Vec<&str> = blocks.iter().map(node_type).collect();
    assert_eq!(
        kinds,
        [
            "heading-1",
            "heading-2",
            "heading-3",
            "heading-3",
            "heading-1",
            "heading-1"
        ]
    );
    let ids: Vec<&str> = blocks.iter().map(|b| data_str(b, "id").unwrap()).collect();
    assert_eq!(
        ids,
        [
            "getting-started",
            "caf-co",
            "three",
            "four",
            "getting-started-1",
            "heading"
        ]
    );
    for b in &blocks {
        assert_eq!(b["meta"]["id"], b["data"]["id"]);
        assert_eq!(b["isVoid"], json!(false));
    }
    assert_eq!(
        blocks[0]["nodes"],
        json!([{ "object": "text", "leaves": [leaf("Getting Started!", &[])] }])
    );
}

#[test]
fn lists_ordered_unordered_and_tasks() {
    let ordered = only_block("3. three\n4. four\n");
    assert_eq!(node_type(&ordered), "list-ordered");
    assert_eq!(ordered["data"], json!({ "start": 3 }));
    let item = &ordered["nodes"][0];
    assert_eq!(node_type(item), "list-item");
    assert_eq!(node_type(&item["nodes"][0]), "paragraph");
    assert_eq!(plain_text(child_nodes(&item["nodes"][0])), "three");

    let unordered = only_block("- a\n  - nested\n- b\n");
    assert_eq!(node_type(&unordered), "list-unordered");
    assert_eq!(unordered["data"], json!({}));
    let nested = &unordered["nodes"][0]["nodes"][1];
    assert_eq!(node_type(nested), "list-unordered");

    let tasks = only_block("- [x] done\n- [ ] todo\n");
    assert_eq!(node_type(&tasks), "list-tasks");
    assert_eq!(tasks["nodes"][0]["data"], json!({ "checked": true }));
    assert_eq!(tasks["nodes"][1]["data"], json!({ "checked": false }));
    assert_eq!(plain_text(child_nodes(&tasks["nodes"][1]["nodes"][0])), "todo");

    let loose_tasks = only_block("- [x] done\n\n- [ ] todo\n");
    assert_eq!(node_type(&loose_tasks), "list-tasks");
    assert_eq!(loose_tasks["nodes"][0]["data"], json!({ "checked": true }));
}

#[test]
fn code_blocks_have_one_line_per_line() {
    let code = only_block("```rust\nfn main() {\n\n}\n```\n");
    assert_eq!(node_type(&code), "code");
    assert_eq!(code["data"], json!({ "syntax": "rust" }));
    let lines: Vec<String> = child_nodes(&code)
        .iter()
        .map(|l| {
            assert_eq!(node_type(l), "code-line");
            assert_eq!(l["data"], json!({ "highlighted": false }));
            plain_text(child_nodes(l))
        })
        .collect();
    assert_eq!(lines, ["fn main() {", "", "}"]);

    let indented = only_block("    indented\n");
    assert_eq!(indented["data"], json!({}));

    let titled = only_block(
        "{% code title=\"app.js\" overflow=\"wrap\" lineNumbers=\"true\" %}\n```js\nx\n```\n{% endcode %}\n",
    );
    assert_eq!(
        titled["data"],
        json!({ "syntax": "js", "title": "app.js", "overflow": "wrap", "lineNumbers": true })
    );
}

#[test]
fn hints_keep_style_and_marks() {
    let hint = only_block("{% hint style=\"success\" %}\nWell **done**.\n{% endhint %}\n");
    assert_eq!(node_type(&hint), "hint");
    assert_eq!(hint["data"], json!({ "style": "success" }));
    assert_eq!(
        hint["nodes"][0]["nodes"][0]["leaves"],
        json!([leaf("Well ", &[]), leaf("done", &["bold"]), leaf(".", &[])])
    );
    let unknown_style = only_block("{% hint style=\"purple\" %}\nx\n{% endhint %}\n");
    assert_eq!(unknown_style["data"], json!({ "style": "info" }));
}

#[test]
fn links_become_content_references() {
    let p = only_block("[a](/pages/abc) [b](/files/f1) [c](#top) [d](https://x.org) [e](/pages/abc#sec) [f](/docs/x)");
    let refs: Vec<Value> = child_nodes(&p)
        .iter()
        .filter(|n| node_type(n) == "link")
        .map(|n| n["data"]["ref"].clone())
        .collect();
    assert_eq!(
        refs,
        [
            json!({ "kind": "page", "page": "abc" }),
            json!({ "kind": "file", "file": "f1" }),
            json!({ "kind": "anchor", "anchor": "top" }),
            json!({ "kind": "url", "url": "https://x.org" }),
            json!({ "kind": "anchor", "anchor": "sec", "page": "abc" }),
            json!({ "kind": "url", "url": "/docs/x" }),
        ]
    );
    let first = &child_nodes(&p)[0];
    assert_eq!(first["object"], "inline");
    assert_eq!(first["isVoid"], json!(false));
    assert_eq!(
        first["nodes"],
        json!([{ "object": "text", "leaves": [leaf("a", &[])] }])
    );
}

#[test]
fn images_standalone_and_inline() {
    let images = only_block("![Logo](/files/logo \"The logo\")\n![](https://x.org/a.png)\n");
    assert_eq!(node_type(&images), "images");
    assert_eq!(images["isVoid"], json!(false));
    let first = &images["nodes"][0];
    assert_eq!(node_type(first), "image");
    assert_eq!(first["isVoid"], json!(true));
    assert_eq!(
        first["data"],
        json!({ "ref": { "kind": "file", "file": "logo" }, "alt": "Logo" })
    );
    assert_eq!(first["fragments"][0]["fragment"], "caption");
    assert_eq!(caption_text(first), "The logo");
    assert_eq!(
        images["nodes"][1]["data"],
        json!({ "ref": { "kind": "url", "url": "https://x.org/a.png" } })
    );

    let p = only_block("See ![icon](/files/i) here");
    assert_eq!(node_type(&p), "paragraph");
    let inline = &p["nodes"][1];
    assert_eq!(node_type(inline), "inline-image");
    assert_eq!(inline["isVoid"], json!(true));
    assert_eq!(
        inline["data"],
        json!({ "ref": { "kind": "file", "file": "i" }, "alt": "icon" })
    );
}

#[test]
fn marks_on_leaves() {
    let p = only_block("a **b *c*** ~~d~~ `e` **`f`**");
    assert_eq!(
        p["nodes"][0]["leaves"],
        json!([
            leaf("a ", &[]),
            leaf("b", &["bold"]),
            leaf(" ", &[]),
            leaf("c", &["bold", "italic"]),
            leaf(" ", &[]),
            leaf("d", &["strikethrough"]),
            leaf(" ", &[]),
            leaf("e", &["code"]),
            leaf(" ", &[]),
            leaf("f", &["bold", "code"]),
        ])
    );
}

#[test]
fn tabs_content_refs_embeds_math_and_dividers() {
    let blocks = nodes(
        "{% tabs %}\n{% tab title=\"A\" %}\nalpha\n{% endtab %}\n{% tab title=\"B\" %}\nbeta\n{% endtab %}\n{% endtabs %}\n\n\
         {% content-ref url=\"/pages/p1\" %}\n[P](/pages/p1)\n{% endcontent-ref %}\n\n\
         {% content-ref url=\"https://x.org\" %}\n[X](https://x.org)\n{% endcontent-ref %}\n\n\
         {% embed url=\"https://v.org/1\" %}\n\n$$\nx^2\n$$\n\n$$y$$\n\n---\n",
    );
    let kinds: Vec<&str> = blocks.iter().map(node_type).collect();
    assert_eq!(
        kinds,
        ["tabs", "content-ref", "content-ref", "embed", "math", "math", "divider"]
    );
    let tabs = &blocks[0];
    assert_eq!(tabs["nodes"][0]["data"], json!({ "title": "A" }));
    assert_eq!(tabs["nodes"][0]["meta"], json!({ "id": "tab-1" }));
    assert_eq!(tabs["nodes"][1]["meta"], json!({ "id": "tab-2" }));
    assert_eq!(plain_text(child_nodes(&tabs["nodes"][1]["nodes"][0])), "beta");
    assert_eq!(blocks[1]["data"], json!({ "ref": { "kind": "page", "page": "p1" } }));
    assert_eq!(
        blocks[2]["data"],
        json!({ "ref": { "kind": "url", "url": "https://x.org" } })
    );
    assert_eq!(blocks[3]["data"], json!({ "url": "https://v.org/1" }));
    assert_eq!(blocks[4]["data"], json!({ "formula": "x^2" }));
    assert_eq!(blocks[5]["data"], json!({ "formula": "y" }));
    assert_eq!(
        without_key(&blocks[6]),
        json!({ "object": "block", "type": "divider", "isVoid": true, "data": {} })
    );
}

#[test]
fn tables_are_grid_tables() {
    let table = only_block("| Name | Value |\n| :-: | --: |\n| a | **1** |\n");
    assert_eq!(node_type(&table), "table");
    assert_eq!(table["isVoid"], json!(true));
    let data = &table["data"];
    assert_eq!(
        data["view"],
        json!({ "type": "grid", "columns": ["c0", "c1"], "hideHeader": false })
    );
    assert_eq!(
        data["definition"]["c1"],
        json!({ "id": "c1", "title": "Value", "type": "text", "textAlignment": "right" })
    );
    assert_eq!(data["definition"]["c0"]["textAlignment"], "center");
    let key = data["records"]["r0"]["values"]["c1"].as_str().unwrap();
    let cell = fragment(&table, key).unwrap();
    assert_eq!(cell["nodes"][0]["nodes"][0]["leaves"], json!([leaf("1", &["bold"])]));
}

#[test]
fn gitbook_tags_we_do_not_know_stay_text() {
    let blocks = nodes("{% swagger src=\"x\" %}\nbody\n{% endswagger %}\n\n{% hint %}\nno end\n");
    let texts: Vec<String> = blocks.iter().map(|b| plain_text(child_nodes(b))).collect();
    assert_eq!(
        texts,
        [
            "{% swagger src=\"x\" %}",
            "body",
            "{% endswagger %}",
            "{% hint %}",
            "no end"
        ]
    );
    // Tags inside code are code.
    let code = only_block("```\n{% hint style=\"info\" %}\n{% endhint %}\n```\n");
    assert_eq!(node_type(&code), "code");
}

#[test]
fn blocks_the_schema_forbids_in_a_container_are_rewritten() {
    // Code is not allowed in a hint: its lines become code-marked text.
    let hint = only_block("{% hint style=\"info\" %}\n```sh\nls\ncd /\n```\n{% endhint %}\n");
    assert_eq!(
        hint["nodes"],
        json!([paragraph(vec![json!({
            "object": "text",
            "leaves": [leaf("ls", &["code"]), leaf("\n", &[]), leaf("cd /", &["code"])],
        })])])
    );
    // Images are not allowed in a list item: they stay inline.
    let list = only_block("- ![a](/files/x)\n");
    assert_eq!(node_type(&list["nodes"][0]["nodes"][0]), "paragraph");
    assert_eq!(node_type(&list["nodes"][0]["nodes"][0]["nodes"][0]), "inline-image");
    // A hint inside a hint gives up its wrapper.
    let outer =
        only_block("{% hint style=\"info\" %}\n{% hint style=\"danger\" %}\ninner\n{% endhint %}\n{% endhint %}\n");
    assert_eq!(node_type(&outer["nodes"][0]), "paragraph");
    // A table in a quote becomes a paragraph per row.
    let quote = only_block("> | a | b |\n> | - | - |\n> | 1 | 2 |\n");
    let rows: Vec<String> = child_nodes(&quote).iter().map(|p| plain_text(child_nodes(p))).collect();
    assert_eq!(rows, ["a | b", "1 | 2"]);
    for markdown in [
        "{% hint style=\"info\" %}\n```sh\nls\n\n  cd /\n```\n{% endhint %}\n",
        "- ![a](/files/x)\n",
        "> | a | b |\n> | - | - |\n> | 1 | `2` |\n",
        "{% tabs %}\n{% tab title=\"T\" %}\n| a |\n| - |\n| 1 |\n{% endtab %}\n{% endtabs %}\n",
    ] {
        round_trip(markdown);
    }
}

#[test]
fn round_trips_each_construct() {
    for markdown in [
        "Plain paragraph.\n",
        "Two\nlines joined, and a hard\\\nbreak.\n",
        "# One\n\n## Two\n\n### Three\n\n#### Four\n",
        "# Heading with `code` and *marks* #\n",
        "**bold** *italic* ***both*** ~~strike~~ `code` **`bold code`** a*b*c\n",
        "**a***b* and *a***b** and **x** **y**\n",
        "Escapes: \\*not\\* \\_em\\_ \\[x\\] \\<b> 1 < 2 & 3 &amp; \\# {\\% x %} \\$\\$x\\$\\$ a|b\n",
        "\\# not a heading\n\n\\- not a list\n\n1\\. not a list\n\n\\> not a quote\n",
        "``code with ` tick`` and ` `` ` and `  spaced  `\n",
        "[page](/pages/abc) [file](/files/f) [anchor](#a) [url](https://x.org/a_b?c=1&d=2) [spaced](<a b>) [sec](/pages/p#s)\n",
        "[**bold link**](https://x.org) and <https://auto.link>\n",
        "- a\n- b\n  - c\n\n    more c\n- d\n",
        "3. three\n4. four\n\n10. ten\n",
        "- a\n  3. three\n- b\n  1. one\n- c\n  -\n",
        "- [x] done\n- [ ] todo\n",
        "- a\n\n\n* b\n\n\n- c\n",
        "1. a\n\n\n1) b\n",
        "> quote\n>\n> > nested\n>\n> - list\n",
        "```rust\nfn main() {\n\n    ```not a fence\n}\n```\n",
        "````md\n```\ninner\n```\n````\n",
        "```\n```\n",
        "    indented code\n",
        "{% code title=\"app \\\"x\\\".js\" overflow=\"wrap\" lineNumbers=\"true\" %}\n```js\nx\n```\n{% endcode %}\n",
        "***\n\n---\n\n___\n",
        "![Logo](/files/logo \"The \\\"logo\\\"\")\n![](https://x.org/a%20b.png)\n",
        "Text ![icon](https://x.org/i.png \"cap\") inline and [![img](/files/i)](/pages/p)\n",
        "{% hint style=\"info\" %}\nInfo **text**.\n\n- a list\n{% endhint %}\n\n{% hint style=\"danger\" %}\n{% endhint %}\n",
        "{% tabs %}\n{% tab title=\"A\" %}\nalpha\n{% endtab %}\n\n{% tab title=\"B\" %}\n```sh\nbeta\n```\n{% endtab %}\n{% endtabs %}\n",
        "{% content-ref url=\"/pages/p1\" %}\n[P](/pages/p1)\n{% endcontent-ref %}\n",
        "{% embed url=\"https://v.org/1\" %}\n",
        "$$\nE = mc^2\n$$\n",
        "| a | b | c |\n| :- | :-: | -: |\n| 1 | **2** | [x](/pages/p) |\n| `x\\|y` |  | z |\n",
        "{% unknown a=\"b\" %}\n\n{% endhint %}\n",
        "<div>\n<p>html</p>\n</div>\n\ninline <br> html\n",
        "- {% hint style=\"info\" %}\n  in a list\n  {% endhint %}\n",
        "> ```\n> code in a quote\n> ```\n",
        RICH,
    ] {
        round_trip(markdown);
    }
}

#[test]
fn canonical_markdown_is_gitbook_style() {
    let written = round_trip(
        "{% hint style=\"warning\" %}\nCareful.\n{% endhint %}\n\n- one\n- two\n\n1. a\n\n{% code title=\"x.sh\" %}\n```sh\nls\n```\n{% endcode %}\n",
    );
    assert_eq!(
        written,
        "{% hint style=\"warning\" %}\nCareful.\n{% endhint %}\n\n- one\n- two\n\n1. a\n\n{% code title=\"x.sh\" %}\n```sh\nls\n```\n{% endcode %}\n"
    );
}

#[test]
fn documents_from_users_convert() {
    let doc = json!({
        "object": "document",
        "data": {},
        "nodes": [
            { "object": "block", "type": "heading-2", "data": { "id": "x" }, "nodes": [
                { "object": "text", "leaves": [{ "object": "leaf", "text": "Title", "marks": [] }] }
            ] },
            { "object": "block", "type": "paragraph", "nodes": [
                { "object": "text", "leaves": [
                    { "object": "leaf", "text": "see ", "marks": [] },
                    { "object": "leaf", "text": "this ", "marks": [{ "object": "mark", "type": "bold" }] },
                    { "object": "leaf", "text": "red", "marks": [{ "object": "mark", "type": "color", "data": { "text": "red", "background": "default" } }] }
                ] },
                { "object": "inline", "type": "link", "data": { "ref": { "kind": "page", "page": "p1" } }, "nodes": [
                    { "object": "text", "leaves": [{ "object": "leaf", "text": "page", "marks": [] }] }
                ] },
                { "object": "inline", "type": "emoji", "data": { "code": "1f600" }, "isVoid": true }
            ] },
            { "object": "block", "type": "hint", "data": { "style": "info" }, "nodes": [
                { "object": "block", "type": "paragraph", "nodes": [] }
            ] }
        ]
    });
    assert_eq!(
        document_to_markdown(&doc).unwrap(),
        "## Title <a href=\"#x\" id=\"x\"></a>\n\nsee **this** red[page](/pages/p1)😀\n\n{% hint style=\"info\" %}\n{% endhint %}\n"
    );
}

#[test]
fn documents_that_are_not_documents_are_refused() {
    let paragraph_in = |node: Value| json!({ "object": "document", "data": {}, "nodes": [node] });
    assert!(error(json!([])).contains("JSON object"));
    assert!(error(json!({ "nodes": [] })).starts_with("object:"));
    assert!(error(json!({ "object": "page", "nodes": [] })).starts_with("object:"));
    assert!(error(json!({ "object": "document" })).starts_with("nodes:"));
    assert!(error(json!({ "object": "document", "data": 1, "nodes": [] })).starts_with("data:"));
    assert_eq!(
        error(paragraph_in(
            json!({ "object": "block", "type": "swagger", "isVoid": true, "data": {} })
        )),
        "nodes[0]: unsupported block type `swagger`"
    );
    assert_eq!(
        error(paragraph_in(json!({ "object": "block", "type": "nope", "nodes": [] }))),
        "nodes[0]: unsupported block type `nope`"
    );
    assert!(error(paragraph_in(json!({ "object": "text", "leaves": [] }))).contains("expected a block"));
    assert!(error(paragraph_in(json!({ "object": "block", "nodes": [] }))).contains("string `type`"));
    assert!(
        error(paragraph_in(json!({ "object": "block", "type": "paragraph" }))).contains("`nodes` must be an array")
    );
    // A block inside a paragraph.
    let nested = error(paragraph_in(json!({ "object": "block", "type": "paragraph", "nodes": [
        { "object": "block", "type": "paragraph", "nodes": [] }
    ] })));
    assert_eq!(nested, "nodes[0].nodes[0]: expected a text or inline node");
    let leafless = error(paragraph_in(json!({ "object": "block", "type": "paragraph", "nodes": [
        { "object": "text", "leaves": [{ "object": "leaf", "marks": [] }] }
    ] })));
    assert_eq!(leafless, "nodes[0].nodes[0].leaves[0]: a leaf needs a string `text`");
    assert!(
        error(paragraph_in(
            json!({ "object": "block", "type": "list-unordered", "nodes": [
            { "object": "block", "type": "paragraph", "nodes": [] }
        ] })
        ))
        .contains("list-item")
    );
    assert!(
        error(paragraph_in(
            json!({ "object": "block", "type": "hint", "data": { "style": "pink" }, "nodes": [] })
        ))
        .contains("hint style")
    );
    assert!(error(paragraph_in(json!({ "object": "block", "type": "hint", "nodes": [] }))).contains("data.style"));
    assert!(
        error(paragraph_in(json!({ "object": "block", "type": "paragraph", "nodes": [
            { "object": "inline", "type": "link", "data": { "ref": { "kind": "user", "user": "u" } }, "nodes": [] }
        ] })))
        .contains("unsupported reference kind `user`")
    );
    assert!(
        error(paragraph_in(
            json!({ "object": "block", "type": "images", "data": {}, "nodes": [
            { "object": "block", "type": "image", "data": { "ref": { "kind": "page", "page": "p" } }, "fragments": [] }
        ] })
        ))
        .contains("`url` or a `file`")
    );
    assert!(
        error(paragraph_in(
            json!({ "object": "block", "type": "code", "data": {}, "nodes": [
        { "object": "block", "type": "paragraph", "nodes": [] }
    ] })
        ))
        .contains("code-line")
    );
    assert!(
        error(paragraph_in(
            json!({ "object": "block", "type": "math", "data": {}, "isVoid": true })
        ))
        .contains("formula")
    );
}

#[test]
fn documents_satisfy_the_official_schema() {
    let doc = markdown_to_document(RICH);
    let kinds: HashSet<&str> = doc["nodes"].as_array().unwrap().iter().map(node_type).collect();
    for kind in [
        "heading-1",
        "list-ordered",
        "list-tasks",
        "blockquote",
        "code",
        "divider",
        "images",
        "hint",
        "tabs",
        "content-ref",
        "embed",
        "math",
        "table",
        "paragraph",
    ] {
        assert!(kinds.contains(kind), "the sample lacks {kind}");
    }
    let errors = schema_errors(&doc);
    assert!(
        errors.is_empty(),
        "{} schema errors:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The model and what is new with it
// ---------------------------------------------------------------------------

use super::{Block, Document, HeadingLevel, Inline, LinkTarget, Marks};

/// A top-level block's JSON without the key every one is given.
fn without_key(block: &Value) -> Value {
    let mut block = block.clone();
    if let Some(map) = block.as_object_mut() {
        map.remove("key");
    }
    block
}

#[test]
fn includes_are_reusable_content() {
    let markdown = "{% include \"../.gitbook/includes/setup.md\" %}\n";
    let block = only_block(markdown);
    assert_eq!(
        without_key(&block),
        json!({ "object": "block", "type": "reusable-content", "isVoid": true, "data": {
            "ref": { "kind": "reusable-content", "reusableContent": "../.gitbook/includes/setup.md" }
        } })
    );
    assert_eq!(round_trip(markdown), markdown);
    // Where the schema allows no reusable content, the tag stays text.
    let hint = only_block("{% hint style=\"info\" %}\n{% include \"a.md\" %}\n{% endhint %}\n");
    assert_eq!(plain_text(child_nodes(&hint["nodes"][0])), "{% include \"a.md\" %}");
}

#[test]
fn gitbook_figures_are_images() {
    let image = only_block(
        "<figure><img src=\"/files/f1\" alt=\"Shot\"><figcaption><p>The <strong>new</strong> screen</p></figcaption></figure>\n",
    );
    assert_eq!(node_type(&image), "images");
    assert_eq!(
        image["nodes"][0]["data"],
        json!({ "ref": { "kind": "file", "file": "f1" }, "alt": "Shot" })
    );
    assert_eq!(caption_text(&image["nodes"][0]), "The new screen");
    let written = document_to_markdown(&markdown_to_document(
        "<figure><img src=\"/files/f1\" alt=\"Shot\"></figure>\n",
    ));
    assert_eq!(written.unwrap(), "![Shot](/files/f1)\n");
}

#[test]
fn double_dollars_are_formulas() {
    let p = only_block("Energy $$E = mc^2$$ and $5 or $6.\n");
    assert_eq!(node_type(&child_nodes(&p)[1]), "inline-math");
    assert_eq!(child_nodes(&p)[1]["data"], json!({ "formula": "E = mc^2" }));
    assert_eq!(plain_text(child_nodes(&p)), "Energy  and $5 or $6.");
    assert_eq!(
        round_trip("Energy $$E = mc^2$$ and $5 or $6.\n"),
        "Energy $$E = mc^2$$ and \\$5 or \\$6.\n"
    );
    // A formula alone in a list item is a display formula.
    let list = only_block("- $$x^2$$\n");
    assert_eq!(list["nodes"][0]["nodes"][0]["type"], "math");
}

#[test]
fn html_tags_mark_text() {
    let p = only_block("<strong>bold</strong>, <em>it</em> and <s>gone</s><b>!</b>\n");
    let marked: Vec<(String, Vec<String>)> = p["nodes"][0]["leaves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|leaf| {
            let marks = leaf["marks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["type"].as_str().unwrap().to_owned());
            (leaf["text"].as_str().unwrap().to_owned(), marks.collect())
        })
        .collect();
    assert_eq!(
        marked,
        [
            ("bold".to_owned(), vec!["bold".to_owned()]),
            (", ".to_owned(), vec![]),
            ("it".to_owned(), vec!["italic".to_owned()]),
            (" and ".to_owned(), vec![]),
            ("gone".to_owned(), vec!["strikethrough".to_owned()]),
            ("!".to_owned(), vec!["bold".to_owned()]),
        ]
    );
}

#[test]
fn marks_that_cross_still_read_back() {
    // Bold over "ab", italic over "bc": delimiters would pair otherwise.
    let bold = Marks {
        bold: true,
        ..Marks::NONE
    };
    let both = Marks {
        bold: true,
        italic: true,
        ..Marks::NONE
    };
    let italic = Marks {
        italic: true,
        ..Marks::NONE
    };
    for (a, b, c) in [("a", "b", "c"), ("a.", "b", "c"), ("0", "a", "a")] {
        let doc = Document {
            front_matter: None,
            blocks: vec![Block::Paragraph(vec![
                Inline::marked(a, bold),
                Inline::marked(b, both),
                Inline::marked(c, italic),
            ])],
        };
        let markdown = doc.to_markdown();
        assert_eq!(Document::from_markdown(&markdown), doc, "{markdown}");
    }
}

#[test]
fn the_model_reads_and_writes_front_matter() {
    let markdown = "---\ntitle: Guide\n---\n\n# Guide\n\nText.\n";
    let doc = Document::from_markdown(markdown);
    assert_eq!(doc.front_matter.as_deref(), Some("title: Guide\n"));
    assert_eq!(doc.to_markdown(), markdown);
    // JSON has no front matter.
    assert_eq!(Document::from_json(&doc.to_json()).unwrap().front_matter, None);
}

#[test]
fn headings_and_plain_text_for_consumers() {
    let doc = Document::from_markdown(
        "# Intro\n\nSome **bold** [link](/pages/p).\n\n{% hint style=\"info\" %}\n## Inside `code`\n{% endhint %}\n\n- item\n\n  ### Deep\n\n```sh\nls\n```\n",
    );
    let headings: Vec<(HeadingLevel, &str, String)> =
        doc.headings().map(|h| (h.level, h.id.as_str(), h.text())).collect();
    assert_eq!(
        headings,
        [
            (HeadingLevel::One, "intro", "Intro".to_owned()),
            (HeadingLevel::Two, "inside-code", "Inside code".to_owned()),
            (HeadingLevel::Three, "deep", "Deep".to_owned()),
        ]
    );
    let texts: Vec<String> = doc.blocks.iter().map(Block::plain_text).collect();
    assert_eq!(texts, ["Intro", "Some bold link.", "Inside code", "item\nDeep", "ls"]);
    assert_eq!(doc.walk().count(), 8);
    assert!(matches!(
        &doc.blocks[1],
        Block::Paragraph(content) if matches!(&content[3], Inline::Link { target: LinkTarget::Page { page }, .. } if page == "p")
    ));
}

#[test]
fn deep_nesting_is_capped() {
    let doc = markdown_to_document(&format!("{}deep\n", "> ".repeat(10_000)));
    let mut depth = 0;
    let mut node = &doc["nodes"][0];
    while node_type(node) == "blockquote" {
        depth += 1;
        node = &node["nodes"][0];
    }
    assert_eq!(depth, 32);
    assert_eq!(plain_text(child_nodes(node)), "deep");
    markdown_to_document(&format!("{}deep\n", "- ".repeat(10_000)));
    markdown_to_document(&"{% hint style=\"info\" %}\n".repeat(1_000));
    let mut deep = json!({ "object": "text", "leaves": [] });
    for _ in 0..200 {
        deep = json!({ "object": "block", "type": "blockquote", "nodes": [deep] });
    }
    let error = document_to_markdown(&json!({ "object": "document", "data": {}, "nodes": [deep] })).unwrap_err();
    assert!(error.0.contains("levels"), "{error}");
}

#[test]
fn tab_ids_follow_reading_order() {
    let doc = markdown_to_document(
        "{% tabs %}\n{% tab title=\"A\" %}\na\n{% endtab %}\n{% endtabs %}\n\n{% tabs %}\n{% tab title=\"B\" %}\nb\n{% endtab %}\n{% tab title=\"C\" %}\nc\n{% endtab %}\n{% endtabs %}\n",
    );
    let ids: Vec<&Value> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|tabs| child_nodes(tabs).iter().map(|tab| &tab["meta"]["id"]))
        .collect();
    assert_eq!(ids, ["tab-1", "tab-2", "tab-3"]);
}

#[test]
fn sections_split_at_top_level_headings() {
    let doc = Document::from_markdown(
        "Intro line.\n\n## Install\n\nRun `quire serve`.\n\n- one\n- two\n\n## Use\n\n{% hint style=\"info\" %}\nA hint.\n{% endhint %}\n",
    );
    let sections = doc.sections();
    assert_eq!(sections.len(), 3);
    assert_eq!(sections[0].anchor, None);
    assert_eq!(sections[0].text, "Intro line.");
    assert_eq!(sections[1].heading, "Install");
    assert_eq!(sections[1].anchor.as_deref(), Some("install"));
    assert!(sections[1].text.contains("quire serve") && sections[1].text.contains("two"));
    assert_eq!(sections[2].heading, "Use");
    assert!(sections[2].text.contains("A hint."));
    assert!(
        Document::from_markdown("## Only\n\ntext\n").sections()[0]
            .anchor
            .is_some()
    );
}

#[test]
fn expandables_are_details_with_a_summary() {
    let markdown = "<details>\n\n<summary>How do I <strong>reset</strong> it?</summary>\n\nHold the button.\n\n```sh\nreset --hard\n```\n\n</details>\n\n<details open>\n\n<summary>Open one</summary>\n\n- a\n\n</details>\n";
    let doc = markdown_to_document(markdown);
    assert!(schema_errors(&doc).is_empty(), "{:?}", schema_errors(&doc));
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0]["type"], "expandable");
    assert_eq!(nodes[0]["data"]["defaultExpanded"], false);
    assert_eq!(nodes[1]["data"]["defaultExpanded"], true);
    let title = &nodes[0]["fragments"][0];
    assert_eq!(title["fragment"], "expandable-title");
    let leaves = &title["nodes"][0]["nodes"][0]["leaves"];
    assert_eq!(leaves[1]["text"], "reset");
    assert_eq!(leaves[1]["marks"][0]["type"], "bold");
    let body = nodes[0]["fragments"][1]["nodes"].as_array().unwrap();
    assert_eq!(body[1]["type"], "code");
    assert_eq!(
        document_to_markdown(&doc).unwrap(),
        "<details>\n\n<summary>How do I **reset** it?</summary>\n\nHold the button.\n\n```sh\nreset --hard\n```\n\n</details>\n\n<details open>\n\n<summary>Open one</summary>\n\n- a\n\n</details>\n"
    );
    // Without its end it is text; inside a list it is its title and body.
    assert_eq!(
        markdown_to_document("<details>\n\n<summary>x</summary>\n")["nodes"][0]["type"],
        "paragraph"
    );
    let in_tabs = markdown_to_document(
        "{% tabs %}\n{% tab title=\"A\" %}\n<details>\n\n<summary>T</summary>\n\nBody\n\n</details>\n{% endtab %}\n{% endtabs %}\n",
    );
    assert!(schema_errors(&in_tabs).is_empty());
    let tab = &in_tabs["nodes"][0]["nodes"][0]["nodes"];
    assert_eq!(tab[0]["nodes"][0]["leaves"][0]["marks"][0]["type"], "bold");
    assert_eq!(tab[1]["nodes"][0]["leaves"][0]["text"], "Body");
}

#[test]
fn an_openapi_operation_closed_as_gitbook_writes_it_is_one_block() {
    let doc = markdown_to_document(
        "{% openapi-operation spec=\"pets\" path=\"/pets\" method=\"get\" %}\n[OpenAPI pets](https://api.example.com/openapi.yaml)\n{% endopenapi-operation %}\n\nAfter.\n",
    );
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 2, "{doc}");
    assert_eq!(nodes[0]["type"], "openapi-operation");
    assert_eq!(nodes[1]["nodes"][0]["leaves"][0]["text"], "After.");
    assert!(!document_to_markdown(&doc).unwrap().contains("endopenapi"));
}

#[test]
fn openapi_operations_are_blocks_in_every_form() {
    let doc = markdown_to_document(
        "{% openapi-operation spec=\"pets\" path=\"/pets/{id}\" method=\"GET\" %}\n\n{% swagger src=\"https://api.example.com/openapi.yaml\" path=\"/pets\" method=\"post\" %}\n[https://api.example.com/openapi.yaml](https://api.example.com/openapi.yaml)\n{% endswagger %}\n",
    );
    assert!(schema_errors(&doc).is_empty(), "{:?}", schema_errors(&doc));
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["type"], "openapi-operation");
    assert_eq!(nodes[0]["data"]["ref"]["spec"], "pets");
    assert_eq!(nodes[0]["data"]["method"], "get");
    assert_eq!(nodes[1]["data"]["ref"]["spec"], "https://api.example.com/openapi.yaml");
    assert_eq!(nodes[1]["data"]["path"], "/pets");
    assert_eq!(
        document_to_markdown(&doc).unwrap(),
        "{% openapi-operation spec=\"pets\" path=\"/pets/{id}\" method=\"get\" %}\n\n{% openapi-operation spec=\"https://api.example.com/openapi.yaml\" path=\"/pets\" method=\"post\" %}\n"
    );
}

#[test]
fn gitbook_html_is_kept_as_html() {
    use super::{Block, Document, Inline};
    let markdown = "## Adding links <a href=\"#adding-links-and-images\" id=\"adding-links-and-images\"></a>\n\n\
<table data-view=\"cards\"><thead><tr><th></th></tr></thead><tbody><tr><td><strong>Home</strong></td></tr></tbody></table>\n\n\
<mark style=\"color:orange;\">Orange</mark> and <kbd>Ctrl</kbd> <i class=\"fa-github\">:github:</i> *it*\n";
    let doc = Document::from_markdown(markdown);
    let Block::Heading(heading) = &doc.blocks[0] else {
        panic!("{:?}", doc.blocks)
    };
    assert_eq!(heading.id, "adding-links-and-images");
    assert_eq!(heading.content, vec![Inline::plain("Adding links")]);
    assert!(matches!(&doc.blocks[1], Block::Html(html) if html.starts_with("<table data-view=\"cards\">")));
    let Block::Paragraph(content) = &doc.blocks[2] else {
        panic!("{:?}", doc.blocks)
    };
    assert_eq!(content[0], Inline::Html("<mark style=\"color:orange;\">".into()));
    assert!(content.contains(&Inline::Icon { icon: "github".into() }), "{content:?}");
    assert!(!super::plain_text(content).contains(":github:"), "{content:?}");
    assert!(super::plain_text(content).contains("Orange and Ctrl"), "{content:?}");
    assert!(
        content
            .iter()
            .any(|i| matches!(i, Inline::Text { text, marks } if text == "it" && marks.italic)),
        "{content:?}"
    );
    assert_eq!(doc.blocks[1].plain_text(), "Home");
    // Written back as GitBook wrote it, and read back the same.
    let written = doc.to_markdown();
    assert_eq!(written, markdown, "{written}");
    assert_eq!(Document::from_markdown(&written), doc);
    // The JSON form carries the icon as the official icon inline.
    let json = doc.to_json().to_string();
    assert!(
        json.contains("{\"data\":{\"icon\":\"github\"},\"isVoid\":true,\"object\":\"inline\",\"type\":\"icon\"}"),
        "{json}"
    );
}

#[test]
fn gitbook_containers_are_blocks() {
    use super::{Block, ContainerKind, Document};
    let markdown = "{% stepper %}\n{% step %}\n### Open the settings\n\nChoose **Settings**.\n{% endstep %}\n\n{% step %}\nConnect.\n{% endstep %}\n{% endstepper %}\n\n\
{% columns %}\n{% column width=\"50%\" %}\nLeft\n{% endcolumn %}\n\n{% column %}\nRight\n{% endcolumn %}\n{% endcolumns %}\n\n\
{% updates format=\"full\" %}\n{% update date=\"2025-12-25\" tags=\"beta\" %}\n## New\n\nShipped.\n{% endupdate %}\n{% endupdates %}\n\n\
{% if visitor.claims.unsigned.beta %}\nBeta only.\n{% endif %}\n\n\
{% file src=\"../.gitbook/assets/guide.pdf\" %}\nThe guide.\n{% endfile %}\n\n\
{% embed url=\"https://example.com/x\" %}\nA caption\n{% endembed %}\n";
    let doc = Document::from_markdown(markdown);
    let kinds: Vec<_> = doc
        .blocks
        .iter()
        .map(|b| match b {
            Block::Container(c) => Some(c.kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            Some(ContainerKind::Stepper),
            Some(ContainerKind::Columns),
            Some(ContainerKind::Updates),
            Some(ContainerKind::If),
            Some(ContainerKind::File),
            None
        ]
    );
    let Block::Container(stepper) = &doc.blocks[0] else {
        unreachable!()
    };
    assert_eq!(stepper.blocks.len(), 2);
    assert!(
        matches!(&stepper.blocks[0], Block::Container(step) if step.kind == ContainerKind::Step && step.blocks.len() == 2)
    );
    let Block::Container(condition) = &doc.blocks[3] else {
        unreachable!()
    };
    assert_eq!(condition.attr("condition"), Some("visitor.claims.unsigned.beta"));
    assert!(
        matches!(&doc.blocks[5], Block::Embed { url } if url == "https://example.com/x"),
        "{:?}",
        doc.blocks[5]
    );
    let text: Vec<String> = doc.blocks.iter().map(Block::plain_text).collect();
    assert!(!text.concat().contains("{%"), "{text:?}");
    // Written back with their tags, and read back the same.
    let written = doc.to_markdown();
    assert!(
        written.starts_with("{% stepper %}\n{% step %}\n### Open the settings"),
        "{written}"
    );
    assert_eq!(Document::from_markdown(&written), doc, "{written}");
    // The JSON form has the schema's blocks of those kinds, valid against
    // it, and reads back to the same document.
    // A file of the space is the schema's file reference; a path or URL
    // (which the schema cannot hold) a URL reference, read back the same.
    let json = doc.to_json();
    let errors = schema_errors(&json);
    assert!(errors.len() == 1 && errors[0].ends_with("/nodes/4"), "{errors:?}");
    let in_space = Document::from_markdown(&written.replace("../.gitbook/assets/guide.pdf", "/files/F1")).to_json();
    assert!(schema_errors(&in_space).is_empty(), "{:?}", schema_errors(&in_space));
    assert_eq!(
        in_space["nodes"][4]["data"]["ref"],
        serde_json::json!({"kind": "file", "file": "F1"})
    );
    let types: Vec<&str> = (0..6).filter_map(|i| json["nodes"][i]["type"].as_str()).collect();
    assert_eq!(types, ["stepper", "columns", "updates", "if", "file", "embed"]);
    assert_eq!(
        json["nodes"][1]["nodes"][0]["data"]["width"],
        serde_json::json!({"unit": "%", "value": 50.0})
    );
    assert_eq!(json["nodes"][2]["nodes"][0]["data"]["tags"][0]["tag"], "beta");
    assert_eq!(
        Document::from_json(&json).as_ref().map(Document::to_markdown),
        Ok(written)
    );
}

#[test]
fn prompts_read_back_from_json_with_their_attributes_in_gitbooks_order() {
    use super::Document;
    let markdown = "{% prompt description=\"Example prompt\" icon=\"rectangle-terminal\" openInAIProviders=\"true\" defaultExpanded=\"full\" %}\n```markdown\nSummarize the release.\n```\n{% endprompt %}\n";
    let doc = Document::from_markdown(markdown);
    let json = doc.to_json();
    assert!(schema_errors(&json).is_empty(), "{:?}", schema_errors(&json));
    assert_eq!(json["nodes"][0]["data"]["openInAIProviders"], true);
    let read = Document::from_json(&json).map(|d| d.to_markdown());
    assert_eq!(read.as_deref(), Ok(markdown));
}

#[test]
fn a_file_without_a_caption_is_one_tag() {
    use super::{Block, ContainerKind, Document};
    let doc = Document::from_markdown("{% file src=\"../a.pdf\" %}\n\nAfter.\n");
    assert!(
        matches!(&doc.blocks[0], Block::Container(c) if c.kind == ContainerKind::File && c.blocks.is_empty() && c.attr("src") == Some("../a.pdf")),
        "{:?}",
        doc.blocks
    );
    assert_eq!(doc.blocks.len(), 2, "{:?}", doc.blocks);
}

#[test]
fn expressions_are_inlines() {
    use super::{Block, Document, Inline};
    let markdown = "Version <code class=\"expression\">space.vars.version</code> is out.\n";
    let doc = Document::from_markdown(markdown);
    let Block::Paragraph(content) = &doc.blocks[0] else {
        panic!("{:?}", doc.blocks)
    };
    assert_eq!(
        content[1],
        Inline::Expression {
            expression: "space.vars.version".into()
        }
    );
    assert_eq!(doc.to_markdown(), markdown);
    let json = doc.to_json();
    assert!(schema_errors(&json).is_empty(), "{:?}", schema_errors(&json));
    assert_eq!(Document::from_json(&json).unwrap(), doc);
}

#[test]
fn openapi_schemas_are_blocks() {
    use super::{Block, Document, OpenApiSchemas};
    let markdown = "{% openapi-schemas spec=\"petstore\" schemas=\"Pet,Tag\" grouped=\"false\" %}\nThe Pet object\n{% endopenapi-schemas %}\n\nAfter.\n";
    let doc = Document::from_markdown(markdown);
    assert_eq!(
        doc.blocks[0],
        Block::OpenApiSchemas(OpenApiSchemas {
            spec: "petstore".into(),
            schemas: vec!["Pet".into(), "Tag".into()],
            grouped: false
        })
    );
    assert_eq!(
        doc.blocks.len(),
        2,
        "the caption is GitBook's, not a paragraph: {:?}",
        doc.blocks
    );
    assert_eq!(Document::from_markdown(&doc.to_markdown()), doc);
    let json = doc.to_json();
    assert!(schema_errors(&json).is_empty(), "{:?}", schema_errors(&json));
    assert_eq!(Document::from_json(&json).unwrap(), doc);
}

/// HTML kept as written (GitBook's card tables, say) goes through the JSON
/// form and back unchanged, where before it came back as escaped text.
#[test]
fn html_kept_as_written_survives_the_json_form() {
    let markdown = "# Home\n\nStart here.\n\n<table data-view=\"cards\"><thead><tr><th></th></tr></thead><tbody><tr><td><strong>A card</strong></td></tr></tbody></table>\n";
    let json = super::markdown_to_document(markdown);
    assert_eq!(super::document_to_markdown(&json).expect("the JSON reads"), markdown);
    // A paragraph that merely looks like HTML stays a paragraph.
    let typed = serde_json::json!({
        "object": "document",
        "data": {},
        "nodes": [{ "object": "block", "type": "paragraph", "nodes": [{ "object": "text", "leaves": [{ "object": "leaf", "text": "<b>not markup</b>", "marks": [] }] }] }]
    });
    assert!(
        super::document_to_markdown(&typed)
            .expect("the JSON reads")
            .contains("\\<b>")
    );
}

#[test]
fn an_expandable_code_block_keeps_its_attribute_through_json() {
    use super::Document;
    let markdown = "{% code title=\"install.sh\" expandable=\"true\" %}\n```bash\nnpx skills add GitBookIO/gitbook-skills\n```\n{% endcode %}\n";
    let doc = Document::from_markdown(markdown);
    assert_eq!(doc.to_markdown(), markdown);
    let json = doc.to_json();
    assert_eq!(json["nodes"][0]["data"]["expandable"], true);
    assert_eq!(
        Document::from_json(&json).map(|d| d.to_markdown()).as_deref(),
        Ok(markdown)
    );
}

#[test]
fn a_mark_spanning_code_and_spaces_is_written_once() {
    use super::Document;
    for markdown in [
        "**The `authors` server-side filter is available** (see above).\n",
        "Automation from ***outside*** GitBook and **default to `type: site` on Ultimate**.\n",
    ] {
        let doc = Document::from_markdown(markdown);
        let written = doc.to_markdown();
        assert_eq!(written, markdown);
        assert_eq!(Document::from_markdown(&written), doc);
    }
}

#[test]
fn single_dollars_are_text_even_inside_emphasis() {
    use super::{Block, Document, Inline};
    let markdown = "- **Premium** costs **$65 per site per month** plus **$12 per member per month**.\n";
    let doc = Document::from_markdown(markdown);
    let Block::List(list) = &doc.blocks[0] else {
        panic!("{:?}", doc.blocks)
    };
    let Block::Paragraph(content) = &list.items[0].blocks[0] else {
        panic!()
    };
    let bold: Vec<&str> = content
        .iter()
        .filter_map(|inline| match inline {
            Inline::Text { text, marks } if marks.bold => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(bold, ["Premium", "$65 per site per month", "$12 per member per month"]);
    assert_eq!(Document::from_markdown(&doc.to_markdown()), doc);
}

#[test]
fn top_level_blocks_keep_their_key_while_unchanged() {
    let keys = |markdown: &str| -> Vec<String> {
        Document::from_markdown(markdown).to_json()["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .map(|n| n["key"].as_str().expect("a key").to_owned())
            .collect()
    };
    let before = keys("# Title\n\nOne.\n\nTwo.\n\nOne.\n");
    assert_eq!(before.len(), 4);
    // Repeated blocks are told apart.
    assert_eq!(before[3], format!("{}-2", before[1]));
    // Unchanged blocks keep their keys when others change or move; an
    // edited block gets a new one.
    let after = keys("# Title\n\nTwo, edited.\n\nOne.\n\nInserted.\n\nOne.\n");
    assert_eq!(after[0], before[0]);
    assert_ne!(after[1], before[2]);
    assert_eq!(after[2], before[1]);
    assert_eq!(after[4], before[3]);
    // A key is the one the schema allows a comment's node to name.
    assert!(
        before
            .iter()
            .all(|k| k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    );
}
