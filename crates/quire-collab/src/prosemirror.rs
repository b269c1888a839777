//! The shared document as ProseMirror JSON. Editors bind ProseMirror to a
//! Yjs XML fragment the way y-prosemirror does: a node is an element named
//! after its type with its non-null attributes, a run of text is a text
//! item whose formatting attributes are its marks (`{bold: {}}`,
//! `{link: {href}}`, a `--suffix` when one kind of mark overlaps itself),
//! and other inline nodes are elements between the text. This reads it
//! back, with no I/O.

use serde_json::{Map, Value, json};
use yrs::types::text::Diff;
use yrs::types::xml::{Xml, XmlFragment, XmlOut};
use yrs::{Out, ReadTxn, Text};

/// The name of the fragment Tiptap's collaboration binds by default.
pub const FRAGMENT: &str = "default";

/// The whole shared document as ProseMirror's `doc` node.
pub fn doc<T: ReadTxn>(txn: &T, fragment: &yrs::XmlFragmentRef) -> Value {
    json!({ "type": "doc", "content": children(txn, fragment) })
}

fn children<T: ReadTxn, F: XmlFragment>(txn: &T, parent: &F) -> Vec<Value> {
    let mut out = Vec::new();
    for child in parent.children(txn) {
        match child {
            XmlOut::Element(element) => {
                let mut node = Map::new();
                node.insert("type".into(), Value::String(element.tag().to_string()));
                let attrs: Map<String, Value> = element
                    .attributes(txn)
                    .filter_map(|(name, value)| {
                        let value = out_json(value);
                        (!value.is_null()).then(|| (name.to_string(), value))
                    })
                    .collect();
                if !attrs.is_empty() {
                    node.insert("attrs".into(), Value::Object(attrs));
                }
                let content = children(txn, &element);
                if !content.is_empty() {
                    node.insert("content".into(), Value::Array(content));
                }
                out.push(Value::Object(node));
            }
            XmlOut::Text(text) => {
                for Diff { insert, attributes, .. } in text.diff(txn, |_| ()) {
                    let Out::Any(yrs::Any::String(s)) = insert else {
                        continue;
                    };
                    if s.is_empty() {
                        continue;
                    }
                    let mut node = json!({ "type": "text", "text": s.to_string() });
                    let marks: Vec<Value> = attributes
                        .map(|attrs| {
                            let mut marks: Vec<(String, Value)> = attrs
                                .iter()
                                .filter(|(_, v)| !matches!(v, yrs::Any::Null | yrs::Any::Undefined))
                                .map(|(k, v)| {
                                    let name = k.split_once("--").map_or(k.as_ref(), |(n, _)| n).to_owned();
                                    (name, serde_json::to_value(v).unwrap_or(Value::Null))
                                })
                                .collect();
                            marks.sort_by(|a, b| a.0.cmp(&b.0));
                            marks
                                .into_iter()
                                .map(|(name, attrs)| match attrs {
                                    Value::Object(a) if !a.is_empty() => json!({ "type": name, "attrs": a }),
                                    _ => json!({ "type": name }),
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    if !marks.is_empty() {
                        node["marks"] = Value::Array(marks);
                    }
                    out.push(node);
                }
            }
            XmlOut::Fragment(_) => {}
        }
    }
    out
}

fn out_json(value: Out) -> Value {
    match value {
        Out::Any(any) => serde_json::to_value(&any).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yrs::{Doc, Transact, XmlElementPrelim, XmlTextPrelim};

    #[test]
    fn elements_attributes_text_and_marks_read_back_as_prosemirror_json() {
        let doc = Doc::new();
        let fragment = doc.get_or_insert_xml_fragment(FRAGMENT);
        {
            let mut txn = doc.transact_mut();
            let heading = fragment.push_back(&mut txn, XmlElementPrelim::empty("heading"));
            heading.insert_attribute(&mut txn, "level", 2);
            let text = heading.push_back(&mut txn, XmlTextPrelim::new(""));
            text.insert(&mut txn, 0, "Hello world");
            let bold: yrs::types::Attrs = [(
                std::sync::Arc::from("bold"),
                yrs::Any::from(std::collections::HashMap::<String, yrs::Any>::new()),
            )]
            .into_iter()
            .collect();
            text.format(&mut txn, 6, 5, bold);
            let paragraph = fragment.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
            paragraph.push_back(&mut txn, XmlTextPrelim::new("a"));
            paragraph.push_back(&mut txn, XmlElementPrelim::empty("hardBreak"));
            paragraph.push_back(&mut txn, XmlTextPrelim::new("b"));
        }
        let txn = doc.transact();
        assert_eq!(
            doc_json(&txn, &fragment),
            json!({ "type": "doc", "content": [
                { "type": "heading", "attrs": { "level": 2 }, "content": [
                    { "type": "text", "text": "Hello " },
                    { "type": "text", "text": "world", "marks": [{ "type": "bold" }] },
                ] },
                { "type": "paragraph", "content": [
                    { "type": "text", "text": "a" },
                    { "type": "hardBreak" },
                    { "type": "text", "text": "b" },
                ] },
            ] })
        );
    }

    fn doc_json<T: ReadTxn>(txn: &T, fragment: &yrs::XmlFragmentRef) -> Value {
        doc(txn, fragment)
    }
}
