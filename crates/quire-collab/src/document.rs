//! The editor's ProseMirror document in the API's form (GitBook's JSON
//! document), the way `web/src/editor/document.js`'s `fromEditor` writes it:
//! the server saves what people edit together with the same result the
//! browser would have saved alone. No I/O. The two are held together by the
//! browser test, which compares what the server saved with `fromEditor` of
//! the same editor.

use serde_json::{Map, Value, json};

/// The API's JSON document of a ProseMirror `doc`.
pub fn from_editor(doc: &Value) -> Value {
    json!({ "object": "document", "data": { "schemaVersion": 1 }, "nodes": blocks(content(doc)) })
}

fn content(node: &Value) -> &[Value] {
    node.get("content").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn attr<'a>(node: &'a Value, name: &str) -> Option<&'a Value> {
    node.get("attrs").and_then(|a| a.get(name)).filter(|v| !v.is_null())
}

fn attr_str<'a>(node: &'a Value, name: &str) -> Option<&'a str> {
    attr(node, name).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn attr_bool(node: &Value, name: &str) -> bool {
    attr(node, name).and_then(Value::as_bool).unwrap_or(false)
}

/// A JSON text attribute parsed (opaque blocks, containers' data, code's
/// extra data); a corrupt one reads as `fallback`.
fn attr_json(node: &Value, name: &str, fallback: Value) -> Value {
    attr_str(node, name)
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or(fallback)
}

fn block(kind: &str, data: Value, nodes: Vec<Value>) -> Value {
    json!({ "object": "block", "type": kind, "isVoid": false, "data": data, "nodes": nodes })
}

/// GitBook's container types by the editor's node names.
fn container_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "stepper" => "stepper",
        "stepperStep" => "stepper-step",
        "columns" => "columns",
        "column" => "column",
        "updates" => "updates",
        "update" => "update",
        "conditional" => "if",
        "prompt" => "prompt",
        _ => return None,
    })
}

fn mark_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "bold" => "bold",
        "italic" => "italic",
        "strike" => "strikethrough",
        "code" => "code",
        _ => return None,
    })
}

fn marks_of(node: &Value) -> &[Value] {
    node.get("marks").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn link_of(node: &Value) -> Option<&Value> {
    marks_of(node).iter().find(|m| m["type"] == "link")
}

/// The nodes from `content[*i]` on that `belongs` takes, without their
/// `mark` (the link or tag the run stands inside); `*i` moves past them.
fn take_run(content: &[Value], i: &mut usize, mark: &str, belongs: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut run = Vec::new();
    while *i < content.len() && belongs(&content[*i]) {
        let mut inner = content[*i].clone();
        let kept: Vec<Value> = marks_of(&content[*i])
            .iter()
            .filter(|m| m["type"] != mark)
            .cloned()
            .collect();
        inner["marks"] = Value::Array(kept);
        run.push(inner);
        *i += 1;
    }
    run
}

fn html_tag_of(node: &Value) -> Option<&Value> {
    marks_of(node).iter().find(|m| m["type"] == "htmlTag")
}

/// An `htmlTag` mark's opening and closing tags.
fn html_tag_attrs(mark: &Value) -> (&str, &str) {
    (
        mark["attrs"]["open"].as_str().unwrap_or_default(),
        mark["attrs"]["close"].as_str().unwrap_or_default(),
    )
}

/// A tag as written: a text node keyed as inline HTML.
fn html_text(tag: &str) -> Value {
    json!({ "object": "text", "key": "quire-html-inline", "leaves": [{ "object": "leaf", "text": tag, "marks": [] }] })
}

fn link_attrs(mark: Option<&Value>) -> Option<(Option<&str>, Option<&str>)> {
    mark.map(|m| (attr_str(m, "href"), attr_str(m, "gitbookRef")))
}

/// Editor inline content as text nodes and link inlines.
fn inlines(content: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut leaves: Vec<Value> = Vec::new();
    let flush = |leaves: &mut Vec<Value>, out: &mut Vec<Value>| {
        if !leaves.is_empty() {
            out.push(json!({ "object": "text", "leaves": std::mem::take(leaves) }));
        }
    };
    let mut i = 0;
    while i < content.len() {
        let node = &content[i];
        if let Some(link) = link_of(node) {
            flush(&mut leaves, &mut out);
            let wanted = link_attrs(Some(link));
            let run = take_run(content, &mut i, "link", |n| link_attrs(link_of(n)) == wanted);
            let reference = match wanted {
                Some((_, Some(gitbook_ref))) => serde_json::from_str(gitbook_ref).unwrap_or(Value::Null),
                Some((href, None)) => json!({ "kind": "url", "url": href }),
                None => Value::Null,
            };
            out.push(json!({
                "object": "inline", "type": "link", "isVoid": false,
                "data": { "ref": reference }, "nodes": inlines(&run),
            }));
            continue;
        }
        if let Some(tag) = html_tag_of(node) {
            // Text GitBook wrapped in an HTML tag: the tags as written
            // around it (as `document.js` does).
            flush(&mut leaves, &mut out);
            let wanted = html_tag_attrs(tag);
            let run = take_run(content, &mut i, "htmlTag", |n| {
                html_tag_of(n).map(html_tag_attrs) == Some(wanted)
            });
            let (open, close) = wanted;
            out.push(html_text(open));
            out.extend(inlines(&run));
            out.push(html_text(close));
            continue;
        }
        match node["type"].as_str() {
            Some("text") => {
                let marks: Vec<Value> = marks_of(node)
                    .iter()
                    .filter_map(|m| m["type"].as_str().and_then(mark_type))
                    .map(|t| json!({ "object": "mark", "type": t }))
                    .collect();
                let text = node["text"].as_str().unwrap_or_default();
                match leaves.last_mut() {
                    Some(last) if last["marks"] == Value::Array(marks.clone()) => {
                        let joined = format!("{}{text}", last["text"].as_str().unwrap_or_default());
                        last["text"] = Value::String(joined);
                    }
                    _ => leaves.push(json!({ "object": "leaf", "text": text, "marks": marks })),
                }
            }
            Some("opaqueInline") => {
                flush(&mut leaves, &mut out);
                out.push(attr_json(node, "json", json!({})));
            }
            Some("hardBreak") => match leaves.last_mut() {
                Some(last) if last["marks"].as_array().is_some_and(Vec::is_empty) => {
                    let joined = format!("{}\n", last["text"].as_str().unwrap_or_default());
                    last["text"] = Value::String(joined);
                }
                _ => leaves.push(json!({ "object": "leaf", "text": "\n", "marks": [] })),
            },
            _ => {}
        }
        i += 1;
    }
    flush(&mut leaves, &mut out);
    out
}

/// The text of a heading's content as `document.js`'s `headingText` reads
/// it: its text, and each kept inline's JSON as the editor holds it.
fn heading_text(node: &Value) -> String {
    content(node)
        .iter()
        .map(|n| match n["type"].as_str() {
            Some("text") => n["text"].as_str().unwrap_or_default(),
            Some("opaqueInline") => attr_str(n, "json").unwrap_or_default(),
            _ => "",
        })
        .collect()
}

fn paragraph(content: &[Value]) -> Value {
    let nodes = inlines(content);
    let nodes = if nodes.is_empty() {
        vec![json!({ "object": "text", "leaves": [{ "object": "leaf", "text": "", "marks": [] }] })]
    } else {
        nodes
    };
    block("paragraph", json!({}), nodes)
}

fn blocks(content: &[Value]) -> Vec<Value> {
    content.iter().map(block_of).collect()
}

fn block_of(node: &Value) -> Value {
    let kind = node["type"].as_str().unwrap_or_default();
    match kind {
        "paragraph" => paragraph(content(node)),
        "heading" => {
            let level = attr(node, "level")
                .and_then(Value::as_f64)
                .unwrap_or(1.0)
                .clamp(1.0, 3.0) as u8;
            // The anchor travels with the text it was made for (as
            // `document.js` does).
            let keeps =
                attr_str(node, "anchor").filter(|_| attr_str(node, "anchorText") == Some(heading_text(node).as_str()));
            let data = keeps.map_or_else(|| json!({}), |anchor| json!({ "id": anchor }));
            block(&format!("heading-{level}"), data, inlines(content(node)))
        }
        "blockquote" => block("blockquote", json!({}), blocks(content(node))),
        "horizontalRule" => json!({ "object": "block", "type": "divider", "isVoid": true, "data": {} }),
        "hint" => block(
            "hint",
            json!({ "style": attr_str(node, "style").unwrap_or("info") }),
            blocks(content(node)),
        ),
        "table" => table(node),
        "tabs" => block(
            "tabs",
            json!({}),
            content(node)
                .iter()
                .map(|item| {
                    block(
                        "tabs-item",
                        json!({ "title": attr(item, "title").and_then(Value::as_str).unwrap_or("") }),
                        blocks(content(item)),
                    )
                })
                .collect(),
        ),
        "expandable" => {
            let title = attr_str(node, "title")
                .map(|t| vec![json!({ "type": "text", "text": t })])
                .unwrap_or_default();
            let fragment = |name: &str, nodes: Vec<Value>| json!({ "object": "fragment", "fragment": name, "type": name, "nodes": nodes });
            json!({
                "object": "block", "type": "expandable", "isVoid": true,
                "data": { "defaultExpanded": attr_bool(node, "open") },
                "fragments": [
                    fragment("expandable-title", vec![paragraph(&title)]),
                    fragment("expandable-body", blocks(content(node))),
                ],
            })
        }
        "codeBlock" => {
            let text: String = content(node).iter().filter_map(|t| t["text"].as_str()).collect();
            let mut data = match attr_json(node, "extra", json!({})) {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            if let Some(language) = attr_str(node, "language") {
                data.insert("syntax".into(), language.into());
            }
            if let Some(title) = attr_str(node, "title") {
                data.insert("title".into(), title.into());
            }
            let lines = text
                .split('\n')
                .map(|line| {
                    block(
                        "code-line",
                        json!({ "highlighted": false }),
                        vec![json!({ "object": "text", "leaves": [{ "object": "leaf", "text": line, "marks": [] }] })],
                    )
                })
                .collect();
            block("code", Value::Object(data), lines)
        }
        "bulletList" => block("list-unordered", json!({}), list_items(node, false)),
        "orderedList" => {
            let start = attr(node, "start").and_then(Value::as_f64).unwrap_or(1.0);
            block(
                "list-ordered",
                json!({ "start": start as i64 }),
                list_items(node, false),
            )
        }
        "taskList" => block("list-tasks", json!({}), list_items(node, true)),
        "opaque" => attr_json(node, "json", paragraph(&[])),
        other => match container_type(other) {
            Some(kind) => block(kind, attr_json(node, "data", json!({})), blocks(content(node))),
            None => paragraph(&[]),
        },
    }
}

fn list_items(node: &Value, tasks: bool) -> Vec<Value> {
    content(node)
        .iter()
        .map(|item| {
            let data = if tasks {
                json!({ "checked": attr_bool(item, "checked") })
            } else {
                json!({})
            };
            // Without the paragraph the editor added in front of the
            // item's first block, while nobody wrote in it (as
            // `document.js` does).
            let items = content(item);
            let filler = items.first().is_some_and(|first| {
                first["type"] == "paragraph" && attr_bool(first, "filler") && content(first).is_empty()
            });
            block("list-item", data, blocks(if filler { &items[1..] } else { items }))
        })
        .collect()
}

/// A grid table: its header row the column titles, one paragraph per cell.
fn table(node: &Value) -> Value {
    let rows = content(node);
    let header = rows.first();
    let align: Vec<Value> = attr_json(node, "extra", json!({}))
        .get("align")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let header_cells = header.map(content).unwrap_or_default();
    let columns: Vec<String> = (0..header_cells.len()).map(|i| format!("c{i}")).collect();
    let cell_text = |cell: Option<&Value>| -> String {
        cell.map(content)
            .and_then(|c| c.first())
            .map(content)
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["text"].as_str())
            .collect()
    };
    let mut definition = Map::new();
    for (i, id) in columns.iter().enumerate() {
        definition.insert(
            id.clone(),
            json!({
                "id": id, "title": cell_text(header_cells.get(i)), "type": "text",
                "textAlignment": align.get(i).cloned().unwrap_or_else(|| "left".into()),
            }),
        );
    }
    let mut records = Map::new();
    let mut fragments = Vec::new();
    for (r, row) in rows.iter().skip(1).enumerate() {
        let mut values = Map::new();
        for (i, c) in columns.iter().enumerate() {
            let key = format!("r{r}-{c}");
            values.insert(c.clone(), Value::String(key.clone()));
            let cell_paragraph = content(row).get(i).map(content).and_then(|c| c.first());
            let inline = cell_paragraph.map(content).unwrap_or_default();
            fragments.push(json!({ "object": "fragment", "fragment": key, "nodes": [paragraph(inline)] }));
        }
        records.insert(
            format!("r{r}"),
            json!({ "orderIndex": format!("a{r:06}"), "values": values }),
        );
    }
    json!({
        "object": "block", "type": "table", "isVoid": true,
        "data": { "view": { "type": "grid", "columns": columns, "hideHeader": false }, "records": records, "definition": definition },
        "fragments": fragments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_marks_links_and_breaks_become_leaves_and_inlines() {
        let doc = json!({ "type": "doc", "content": [
            { "type": "paragraph", "content": [
                { "type": "text", "text": "Read " },
                { "type": "text", "text": "the", "marks": [{ "type": "bold" }, { "type": "link", "attrs": { "href": "https://x.test" } }] },
                { "type": "text", "text": " guide", "marks": [{ "type": "link", "attrs": { "href": "https://x.test" } }] },
                { "type": "hardBreak" },
                { "type": "text", "text": "now" },
            ] },
        ] });
        let nodes = &from_editor(&doc)["nodes"][0]["nodes"];
        assert_eq!(nodes[0]["leaves"][0]["text"], "Read ");
        assert_eq!(nodes[1]["type"], "link");
        assert_eq!(
            nodes[1]["data"]["ref"],
            json!({ "kind": "url", "url": "https://x.test" })
        );
        assert_eq!(nodes[1]["nodes"][0]["leaves"][0]["marks"][0]["type"], "bold");
        assert_eq!(nodes[1]["nodes"][0]["leaves"][1]["text"], " guide");
        assert_eq!(nodes[2]["leaves"][0]["text"], "\nnow");
    }

    #[test]
    fn a_list_items_filling_paragraph_goes_while_empty() {
        let filler = json!({ "type": "paragraph", "attrs": { "filler": true } });
        let heading =
            json!({ "type": "heading", "attrs": { "level": 3.0 }, "content": [{ "type": "text", "text": "T" }] });
        let written =
            json!({ "type": "paragraph", "attrs": { "filler": true }, "content": [{ "type": "text", "text": "x" }] });
        let doc = json!({ "type": "doc", "content": [{ "type": "bulletList", "content": [
            { "type": "listItem", "content": [filler.clone(), heading] },
            { "type": "listItem", "content": [filler] },
            { "type": "listItem", "content": [written] },
        ] }] });
        let items = &from_editor(&doc)["nodes"][0]["nodes"];
        let kinds = |i: usize| -> Vec<String> {
            items[i]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["type"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(kinds(0), vec!["heading-3"]);
        assert!(kinds(1).is_empty());
        assert_eq!(kinds(2), vec!["paragraph"]);
    }

    #[test]
    fn text_in_an_html_tag_is_written_between_its_tags() {
        let mark = json!({ "type": "htmlTag", "attrs": { "open": "<kbd>", "close": "</kbd>" } });
        let doc = json!({ "type": "doc", "content": [{ "type": "paragraph", "content": [
            { "type": "text", "text": "Press " },
            { "type": "text", "text": "Ctrl", "marks": [mark] },
            { "type": "text", "text": "K", "marks": [mark, { "type": "bold" }] },
            { "type": "text", "text": " now" },
        ] }] });
        let nodes = &from_editor(&doc)["nodes"][0]["nodes"];
        let texts: Vec<(Option<&str>, String)> = nodes
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let text = n["leaves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l["text"].as_str().unwrap())
                    .collect();
                (n["key"].as_str(), text)
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                (None, "Press ".to_owned()),
                (Some("quire-html-inline"), "<kbd>".to_owned()),
                (None, "CtrlK".to_owned()),
                (Some("quire-html-inline"), "</kbd>".to_owned()),
                (None, " now".to_owned()),
            ]
        );
        assert_eq!(
            nodes[2]["leaves"][1]["marks"],
            json!([{ "object": "mark", "type": "bold" }])
        );
    }

    #[test]
    fn blocks_keep_their_attributes_and_opaque_blocks_travel_whole() {
        let opaque = json!({ "object": "block", "type": "embed", "isVoid": true, "data": { "url": "https://e.test" } });
        let doc = json!({ "type": "doc", "content": [
            { "type": "heading", "attrs": { "level": 2.0 }, "content": [{ "type": "text", "text": "Title" }] },
            { "type": "codeBlock", "attrs": { "language": "rust", "extra": "{\"expandable\":true}" }, "content": [{ "type": "text", "text": "a\nb" }] },
            { "type": "taskList", "content": [{ "type": "taskItem", "attrs": { "checked": true }, "content": [{ "type": "paragraph" }] }] },
            { "type": "opaque", "attrs": { "json": opaque.to_string() } },
            { "type": "column", "attrs": { "data": "{\"width\":{\"value\":50,\"unit\":\"%\"}}" }, "content": [{ "type": "paragraph" }] },
        ] });
        let nodes = from_editor(&doc)["nodes"].clone();
        assert_eq!(nodes[0]["type"], "heading-2");
        assert_eq!(nodes[1]["data"], json!({ "syntax": "rust", "expandable": true }));
        assert_eq!(nodes[1]["nodes"].as_array().map(Vec::len), Some(2));
        assert_eq!(nodes[2]["nodes"][0]["data"]["checked"], true);
        assert_eq!(nodes[3], opaque);
        assert_eq!(nodes[4]["type"], "column");
        assert_eq!(nodes[4]["data"]["width"]["value"], 50);
    }
}
