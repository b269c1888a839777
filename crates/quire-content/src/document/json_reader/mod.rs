//! JSON to model, strictly: an official `JSONDocument` read into a
//! [`Document`], or a [`DocumentError`] naming where and what the problem is
//! (`nodes[2].nodes[0]: …`). Never panics, whatever the input.
//!
//! Every node is checked against its schema: required fields, the type of
//! every value, and no field the schema does not list (only the document's
//! `data` takes any). Fields markdown cannot carry (`key`, alignments,
//! icons, image sizes, colour marks, merged cells…) are checked, then left
//! out. A block the schema does not allow where it sits (code in a hint…)
//! is refused, as are the schema's block, inline and reference types Quire
//! cannot write as markdown (drawings, mentions, links to users…).
//! Headings without an id get one from their text.

mod containers;
mod fields;
mod inline;
mod table;

use std::collections::HashSet;

use serde_json::Value;

use super::DocumentError;
use super::fit::{Place, allows};
use super::model::{
    Block, CodeBlock, Document, Heading, HeadingLevel, Hint, HintStyle, Image, Inline, List, ListItem, ListKind,
    Overflow, Tab, anchor_id, is_anchor_id,
};
use super::text::plain_text;
use fields::{Obj, Path, Result, array, check_icon, check_length, check_meta, check_text_align, invalid};
use inline::{Holder, read_image_ref, read_inlines, read_link_ref, read_text};

impl Document {
    /// Reads an official JSON document, refusing anything the schema does
    /// not allow or markdown cannot say.
    pub fn from_json(doc: &Value) -> std::result::Result<Document, DocumentError> {
        let Value::Object(map) = doc else {
            return Err(DocumentError("a document must be a JSON object".into()));
        };
        let document = Obj { map, path: &Path::Root };
        if document.get("object").and_then(Value::as_str) != Some("document") {
            return Err(invalid(&Path::Root.field("object"), "must be \"document\""));
        }
        let nodes_path = Path::Root.field("nodes");
        let nodes = match document.get("nodes") {
            Some(Value::Array(nodes)) => nodes,
            _ => return Err(invalid(&nodes_path, "must be an array of blocks")),
        };
        let data_path = Path::Root.field("data");
        match document.get("data") {
            Some(data @ Value::Object(_)) => {
                // The schema lets the document's data hold anything else.
                Obj::of(data, &data_path)?.integer("schemaVersion", f64::MIN..=f64::MAX)?;
            }
            Some(_) => return Err(invalid(&data_path, "must be an object")),
            None => return Err(invalid(&data_path, "is missing (the schema requires it)")),
        }
        check_meta(&document, &["token"], None)?;
        document.only(&["object", "data", "nodes", "meta"])?;
        let mut blocks = read_blocks(nodes, &nodes_path, Place::Top)?;
        name_headings(&mut blocks);
        Ok(Document {
            front_matter: None,
            blocks,
        })
    }
}

/// How deep a document's JSON may nest (serde_json's own parsing limit):
/// reading and writing recurse over it.
const MAX_JSON_DEPTH: usize = 128;

/// The blocks in `nodes` (at `path`), each allowed in `place`.
fn read_blocks(nodes: &[Value], path: &Path, place: Place) -> Result<Vec<Block>> {
    if path.deeper_than(MAX_JSON_DEPTH) {
        return Err(invalid(
            path,
            format!("a document nests at most {MAX_JSON_DEPTH} levels of JSON deep"),
        ));
    }
    nodes
        .iter()
        .enumerate()
        .map(|(i, node)| read_block(node, &path.index(i), place))
        .collect()
}

/// The `nodes` array of a node.
fn child_nodes<'v>(node: &Obj<'v, '_>) -> Result<&'v [Value]> {
    match node.get("nodes") {
        Some(nodes) => array(nodes, node.path, "`nodes` must be an array"),
        None => Err(invalid(node.path, "`nodes` must be an array")),
    }
}

/// A child block's type, refusing other nodes.
fn block_type<'v>(node: &'v Value, path: &Path) -> Result<&'v str> {
    if node.get("object").and_then(Value::as_str) != Some("block") {
        return Err(invalid(path, "expected a block (`object` \"block\")"));
    }
    node.get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(path, "a block needs a string `type`"))
}

fn place_name(place: Place) -> &'static str {
    match place {
        Place::Top => "the document",
        Place::ListItem => "a list item",
        Place::Quote => "a quote",
        Place::Hint => "a hint",
        Place::Tab => "a tab",
        Place::Expandable => "an expandable block",
        Place::Container => "a block",
    }
}

const NON_VOID: &Value = &Value::Bool(false);

/// The key prefix of paragraphs that carry HTML kept as written.
pub(crate) const HTML_KEY: &str = "quire-html-";
/// The key of a text node that is an inline HTML tag as written.
pub(crate) const HTML_INLINE_KEY: &str = "quire-html-inline";

/// A block at `path`, allowed in `place`.
fn read_block(node: &Value, path: &Path, place: Place) -> Result<Block> {
    let kind = block_type(node, path)?;
    let block = Obj::of(node, path)?;
    block.string("key")?;
    let data_path = path.field("data");
    let nodes_path = path.field("nodes");
    let read = match kind {
        "paragraph" => {
            let [_, _, _, nodes, is_void, data] = block.take(["object", "type", "key", "nodes", "isVoid", "data"])?;
            if is_void.is_some_and(|v| v != NON_VOID) {
                return Err(invalid(&path.field("isVoid"), "must be false"));
            }
            if let Some(data) = data {
                let data = Obj::of(data, &data_path)?;
                data.only(&["align"])?;
                check_text_align(&data)?;
            }
            let nodes = match nodes {
                Some(Value::Array(nodes)) => nodes,
                _ => return Err(invalid(path, "`nodes` must be an array")),
            };
            let content = read_inlines(nodes, &nodes_path, Holder::Block)?;
            // HTML kept as written travels as the text of a paragraph keyed
            // `quire-html-…` (see the writer): read back as HTML.
            match block.string("key")? {
                Some(key) if key.starts_with(HTML_KEY) => Block::Html(crate::document::text::plain_text(&content)),
                _ => Block::Paragraph(content),
            }
        }
        "heading-1" | "heading-2" | "heading-3" => {
            block.only(&["object", "type", "key", "nodes", "data", "meta", "isVoid"])?;
            block.fixed("isVoid", NON_VOID)?;
            let data = block.required_object("data", &data_path)?;
            data.only(&["id", "align"])?;
            check_text_align(&data)?;
            let id = data.string("id")?.unwrap_or_default();
            if data.get("id").is_some() && !is_anchor_id(id) {
                return Err(invalid(&data_path.field("id"), "must match ^[-a-z0-9.+_]+$"));
            }
            check_meta(&block, &["id"], Some("id"))?;
            let level = match kind {
                "heading-1" => HeadingLevel::One,
                "heading-2" => HeadingLevel::Two,
                _ => HeadingLevel::Three,
            };
            Block::Heading(Heading {
                level,
                id: id.to_owned(),
                content: read_inlines(child_nodes(&block)?, &nodes_path, Holder::Block)?,
            })
        }
        "list-ordered" | "list-unordered" | "list-tasks" => read_list(&block, kind)?,
        "blockquote" => {
            block.only(&["object", "type", "key", "nodes", "isVoid", "data"])?;
            block.fixed("isVoid", NON_VOID)?;
            if let Some(data) = block.object("data", &data_path)? {
                data.only(&[])?;
            }
            Block::Quote(read_blocks(child_nodes(&block)?, &nodes_path, Place::Quote)?)
        }
        "hint" => {
            block.only(&["object", "type", "key", "data", "nodes", "isVoid"])?;
            block.fixed("isVoid", NON_VOID)?;
            let data = block.object("data", &data_path)?;
            let style = data
                .map(|data| data.string("style"))
                .transpose()?
                .flatten()
                .ok_or_else(|| invalid(path, "hint needs `data.style`"))?;
            let style =
                HintStyle::parse(style).ok_or_else(|| invalid(path, format!("unknown hint style `{style}`")))?;
            if let Some(data) = data {
                data.only(&["style", "icon"])?;
                check_icon(&data, "icon")?;
            }
            Block::Hint(Hint {
                style,
                blocks: read_blocks(child_nodes(&block)?, &nodes_path, Place::Hint)?,
            })
        }
        "code" => read_code(&block)?,
        "tabs" => read_tabs(&block)?,
        "expandable" => read_expandable(&block)?,
        "content-ref" => {
            block.only(&["object", "type", "key", "data", "isVoid"])?;
            let data = block.required_object("data", &data_path)?;
            data.only(&["ref"])?;
            let target = match data.get("ref") {
                Some(reference) => read_link_ref(reference, &data_path.field("ref"))?,
                None => return Err(invalid(path, "`data.ref` is missing")),
            };
            Block::ContentRef { target }
        }
        "reusable-content" => {
            block.only(&["object", "type", "key", "data", "isVoid", "meta"])?;
            check_meta(&block, &["token"], None)?;
            let data = block.required_object("data", &data_path)?;
            data.only(&["ref"])?;
            let ref_path = data_path.field("ref");
            let reference = data.required_object("ref", &ref_path)?;
            reference.only(&["kind", "reusableContent", "space"])?;
            if reference.string("kind")? != Some("reusable-content") {
                return Err(invalid(&ref_path, "the reference needs `kind` \"reusable-content\""));
            }
            reference.string("space")?;
            Block::Include {
                path: reference.required_string("reusableContent")?.to_owned(),
            }
        }
        "images" => {
            block.only(&["object", "type", "key", "data", "nodes", "isVoid"])?;
            block.fixed("isVoid", NON_VOID)?;
            let data = block.required_object("data", &data_path)?;
            data.only(&["align", "fullWidth", "withFrame"])?;
            data.one_of("align", &["center", "left", "right"])?;
            data.boolean("fullWidth")?;
            data.boolean("withFrame")?;
            let mut images = Vec::new();
            for (i, image) in child_nodes(&block)?.iter().enumerate() {
                let image_path = nodes_path.index(i);
                if block_type(image, &image_path)? != "image" {
                    return Err(invalid(&image_path, "images hold `image` blocks only"));
                }
                images.push(read_image(&Obj::of(image, &image_path)?)?);
            }
            block.require("isVoid")?;
            Block::Images(images)
        }
        "divider" => {
            block.only(&["object", "type", "key", "isVoid", "data"])?;
            block.required_object("data", &data_path)?.only(&[])?;
            Block::Divider
        }
        "embed" => {
            block.only(&["object", "type", "key", "data", "isVoid"])?;
            let data = block.object("data", &data_path)?;
            let url = data
                .map(|data| data.string("url"))
                .transpose()?
                .flatten()
                .ok_or_else(|| invalid(path, "embed needs `data.url`"))?;
            if let Some(data) = data {
                data.only(&["url", "fullWidth"])?;
                data.boolean("fullWidth")?;
            }
            Block::Embed { url: url.to_owned() }
        }
        "math" => {
            block.only(&["object", "type", "key", "data", "isVoid"])?;
            let data = block.object("data", &data_path)?;
            let formula = data
                .map(|data| data.string("formula"))
                .transpose()?
                .flatten()
                .ok_or_else(|| invalid(path, "math needs `data.formula`"))?;
            if let Some(data) = data {
                data.only(&["formula"])?;
            }
            Block::Math {
                formula: formula.to_owned(),
            }
        }
        "table" => table::read_table(&block)?,
        "stepper" | "stepper-step" | "columns" | "column" | "updates" | "update" | "if" | "prompt" | "file" => {
            containers::read_container(&block, kind)?
        }
        "openapi-operation" => {
            block.only(&["object", "type", "key", "data", "isVoid", "meta"])?;
            check_meta(&block, &["id"], Some("id"))?;
            let data = block.required_object("data", &data_path)?;
            data.only(&["ref", "path", "method", "headless"])?;
            data.boolean("headless")?;
            let ref_path = data_path.field("ref");
            let reference = data.required_object("ref", &ref_path)?;
            reference.only(&["kind", "spec"])?;
            if reference.string("kind")? != Some("openapi") {
                return Err(invalid(&ref_path, "the reference needs `kind` \"openapi\""));
            }
            Block::OpenApiOperation(super::model::OpenApiOperation {
                spec: reference.required_string("spec")?.to_owned(),
                path: data.required_string("path")?.to_owned(),
                method: data.required_string("method")?.to_ascii_lowercase(),
            })
        }
        "openapi-schemas" => {
            block.only(&["object", "type", "key", "data", "isVoid", "meta"])?;
            check_meta(&block, &["id"], Some("id"))?;
            let data = block.required_object("data", &data_path)?;
            data.only(&["ref", "schemas", "grouped", "title"])?;
            data.string("title")?;
            let ref_path = data_path.field("ref");
            let reference = data.required_object("ref", &ref_path)?;
            reference.only(&["kind", "spec"])?;
            if reference.string("kind")? != Some("openapi") {
                return Err(invalid(&ref_path, "the reference needs `kind` \"openapi\""));
            }
            let schemas = match data.get("schemas") {
                Some(Value::Array(names)) => names
                    .iter()
                    .map(|n| n.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| invalid(&data_path.field("schemas"), "schema names are strings"))?,
                _ => {
                    return Err(invalid(
                        &data_path.field("schemas"),
                        "`schemas` must be an array of names",
                    ));
                }
            };
            Block::OpenApiSchemas(super::model::OpenApiSchemas {
                spec: reference.required_string("spec")?.to_owned(),
                schemas,
                grouped: data.boolean("grouped")?.unwrap_or(true),
            })
        }
        other => return Err(invalid(path, format!("unsupported block type `{other}`"))),
    };
    if matches!(
        read,
        Block::ContentRef { .. }
            | Block::Include { .. }
            | Block::Divider
            | Block::Embed { .. }
            | Block::Math { .. }
            | Block::OpenApiOperation(_)
            | Block::OpenApiSchemas(_)
    ) {
        block.fixed("isVoid", &Value::Bool(true))?;
        block.require("isVoid")?;
    }
    if !allows(place, &read) {
        return Err(invalid(
            path,
            format!("{} cannot hold a `{kind}` block", place_name(place)),
        ));
    }
    Ok(read)
}

fn read_list(block: &Obj, kind: &str) -> Result<Block> {
    let path = block.path;
    block.only(&["object", "type", "key", "data", "nodes", "isVoid"])?;
    block.fixed("isVoid", NON_VOID)?;
    let data_path = path.field("data");
    let list_kind = match kind {
        "list-ordered" => {
            let data = block.required_object("data", &data_path)?;
            data.only(&["start"])?;
            let start = match data.get("start") {
                None => 1,
                Some(n) => n
                    .as_f64()
                    .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < 1e9)
                    .ok_or_else(|| invalid(path, "`data.start` must be a whole number below 1000000000"))?
                    as u64,
            };
            ListKind::Numbered { start }
        }
        _ => {
            if let Some(data) = block.object("data", &data_path)? {
                data.only(&[])?;
            }
            if kind == "list-tasks" {
                ListKind::Tasks
            } else {
                ListKind::Bulleted
            }
        }
    };
    let nodes_path = path.field("nodes");
    let mut items = Vec::new();
    for (i, item) in child_nodes(block)?.iter().enumerate() {
        let item_path = nodes_path.index(i);
        if block_type(item, &item_path)? != "list-item" {
            return Err(invalid(&item_path, "a list holds `list-item` blocks only"));
        }
        let item = Obj::of(item, &item_path)?;
        item.only(&["object", "type", "key", "nodes", "isVoid", "data"])?;
        item.string("key")?;
        item.fixed("isVoid", NON_VOID)?;
        let item_data_path = item_path.field("data");
        let checked = match item.object("data", &item_data_path)? {
            Some(data) => {
                data.only(&["checked"])?;
                data.boolean("checked")?
            }
            None => None,
        };
        let blocks = read_blocks(child_nodes(&item)?, &item_path.field("nodes"), Place::ListItem)?;
        items.push(ListItem {
            checked: list_kind == ListKind::Tasks && checked == Some(true),
            blocks,
        });
    }
    Ok(Block::List(List { kind: list_kind, items }))
}

fn read_code(block: &Obj) -> Result<Block> {
    let path = block.path;
    block.only(&["object", "type", "key", "data", "nodes", "isVoid"])?;
    block.fixed("isVoid", NON_VOID)?;
    let data_path = path.field("data");
    let data = block.required_object("data", &data_path)?;
    data.only(&[
        "syntax",
        "title",
        "overflow",
        "lineNumbers",
        "fullWidth",
        "expandable",
        "collapsedLineCount",
    ])?;
    data.boolean("fullWidth")?;
    data.integer("collapsedLineCount", 1.0..=f64::MAX)?;
    let mut code = CodeBlock {
        syntax: data.string("syntax")?.filter(|s| !s.is_empty()).map(str::to_owned),
        title: data.string("title")?.map(str::to_owned),
        line_numbers: data.boolean("lineNumbers")?,
        // Not expandable is the default, which markdown does not write.
        expandable: data.boolean("expandable")?.filter(|expandable| *expandable),
        overflow: data.one_of("overflow", &["scroll", "wrap"])?.and_then(Overflow::parse),
        lines: Vec::new(),
    };
    let nodes_path = path.field("nodes");
    for (i, line) in child_nodes(block)?.iter().enumerate() {
        let line_path = nodes_path.index(i);
        if block_type(line, &line_path)? != "code-line" {
            return Err(invalid(&line_path, "code holds `code-line` blocks only"));
        }
        let [_, _, key, nodes, data, is_void] =
            Obj::of(line, &line_path)?.take(["object", "type", "key", "nodes", "data", "isVoid"])?;
        if key.is_some_and(|key| !key.is_string()) {
            return Err(invalid(&line_path.field("key"), "must be a string"));
        }
        if is_void.is_some_and(|v| v != NON_VOID) {
            return Err(invalid(&line_path.field("isVoid"), "must be false"));
        }
        let line_data_path = line_path.field("data");
        match data {
            Some(data) => {
                let data = Obj::of(data, &line_data_path)?;
                data.only(&["highlighted"])?;
                data.boolean("highlighted")?;
            }
            None => return Err(invalid(&line_path, "missing `data`")),
        }
        let Some(Value::Array(nodes)) = nodes else {
            return Err(invalid(&line_path, "`nodes` must be an array"));
        };
        let mut text = String::new();
        let mut leaves = Vec::new();
        let line_nodes_path = line_path.field("nodes");
        for (j, child) in nodes.iter().enumerate() {
            let child_path = line_nodes_path.index(j);
            if child.get("object").and_then(Value::as_str) == Some("inline") {
                let kind = child.get("type").and_then(Value::as_str).unwrap_or("");
                return Err(invalid(&child_path, format!("unsupported inline type `{kind}`")));
            }
            leaves.clear();
            read_text(child, &child_path, &mut leaves)?;
            text.extend(leaves.iter().map(|leaf| match leaf {
                Inline::Text { text, .. } => text.as_str(),
                _ => "",
            }));
        }
        code.lines.push(text);
    }
    Ok(Block::Code(code))
}

fn read_tabs(block: &Obj) -> Result<Block> {
    let path = block.path;
    block.only(&["object", "type", "key", "nodes", "isVoid", "data"])?;
    block.fixed("isVoid", NON_VOID)?;
    let data_path = path.field("data");
    if let Some(data) = block.object("data", &data_path)? {
        data.only(&["fullWidth"])?;
        data.boolean("fullWidth")?;
    }
    let nodes_path = path.field("nodes");
    let mut tabs = Vec::new();
    for (i, item) in child_nodes(block)?.iter().enumerate() {
        let item_path = nodes_path.index(i);
        if block_type(item, &item_path)? != "tabs-item" {
            return Err(invalid(&item_path, "tabs hold `tabs-item` blocks only"));
        }
        let item = Obj::of(item, &item_path)?;
        item.only(&["object", "type", "key", "nodes", "data", "meta", "isVoid"])?;
        item.string("key")?;
        item.fixed("isVoid", NON_VOID)?;
        check_meta(&item, &["id"], Some("id"))?;
        let item_data_path = item_path.field("data");
        let data = item.required_object("data", &item_data_path)?;
        data.only(&["title", "icon", "slug"])?;
        check_icon(&data, "icon")?;
        data.string("slug")?;
        tabs.push(Tab {
            title: data.string("title")?.unwrap_or_default().to_owned(),
            blocks: read_blocks(child_nodes(&item)?, &item_path.field("nodes"), Place::Tab)?,
        });
    }
    Ok(Block::Tabs(tabs))
}

/// A fragment of a block: where it is, its name (`fragment`), its `type`
/// and its nodes.
struct Fragment<'v, 'p> {
    path: &'p Path<'p>,
    name: Option<&'v str>,
    kind: Option<&'v str>,
    nodes: &'v [Value],
    nodes_path: &'p Path<'p>,
}

/// Calls `f` with each fragment of `block` (its `fragments` array), after
/// the checks every fragment gets.
fn each_fragment<'v>(block: &Obj<'v, '_>, mut f: impl FnMut(Fragment<'v, '_>) -> Result<()>) -> Result<()> {
    let path = block.path;
    let fragments_path = path.field("fragments");
    let fragments = match block.get("fragments") {
        Some(fragments) => array(fragments, &fragments_path, "must be an array")?,
        None => return Err(invalid(path, "missing `fragments`")),
    };
    for (i, fragment) in fragments.iter().enumerate() {
        let fragment_path = fragments_path.index(i);
        let fragment = Obj::of(fragment, &fragment_path)?;
        fragment.only(&["object", "key", "fragment", "type", "nodes"])?;
        if fragment.get("object") != Some(&Value::from("fragment")) {
            return Err(invalid(&fragment_path, "expected a fragment (`object` \"fragment\")"));
        }
        fragment.string("key")?;
        let nodes_path = fragment_path.field("nodes");
        let nodes = match fragment.get("nodes") {
            Some(nodes) => array(nodes, &fragment_path, "`nodes` must be an array")?,
            None => return Err(invalid(&fragment_path, "`nodes` must be an array")),
        };
        f(Fragment {
            path: &fragment_path,
            name: fragment.string("fragment")?,
            kind: fragment.string("type")?,
            nodes,
            nodes_path: &nodes_path,
        })?;
    }
    Ok(())
}

/// An expandable block: its `expandable-title` fragment (one paragraph)
/// and its `expandable-body` fragment.
fn read_expandable(block: &Obj) -> Result<Block> {
    let path = block.path;
    block.only(&["object", "type", "key", "isVoid", "data", "fragments", "meta"])?;
    check_meta(block, &["id"], Some("id"))?;
    block.fixed("isVoid", &Value::Bool(true))?;
    block.require("isVoid")?;
    let data_path = path.field("data");
    let data = block.required_object("data", &data_path)?;
    data.only(&["defaultExpanded"])?;
    let open = data.boolean("defaultExpanded")?.unwrap_or(false);
    let mut title = None;
    let mut body = None;
    each_fragment(block, |fragment| {
        let Some(name) = fragment.name.filter(|name| fragment.kind == Some(name)) else {
            return Err(invalid(fragment.path, "a fragment's `type` is its `fragment`"));
        };
        let (nodes, nodes_path) = (fragment.nodes, fragment.nodes_path);
        match name {
            "expandable-title" if title.is_none() => {
                let [node] = nodes else {
                    return Err(invalid(nodes_path, "an expandable's title is one paragraph"));
                };
                match read_block(node, &nodes_path.index(0), Place::Top)? {
                    Block::Paragraph(content) => title = Some(content),
                    _ => return Err(invalid(nodes_path, "an expandable's title is one paragraph")),
                }
            }
            "expandable-body" if body.is_none() => {
                if nodes.is_empty() {
                    return Err(invalid(nodes_path, "an expandable's body holds at least one block"));
                }
                body = Some(read_blocks(nodes, nodes_path, Place::Expandable)?);
            }
            _ => {
                return Err(invalid(
                    fragment.path,
                    "an expandable holds one `expandable-title` and one `expandable-body` fragment",
                ));
            }
        }
        Ok(())
    })?;
    match (title, body) {
        (Some(title), Some(blocks)) => Ok(Block::Expandable(super::model::Expandable { title, open, blocks })),
        _ => Err(invalid(
            &path.field("fragments"),
            "an expandable needs its `expandable-title` and `expandable-body` fragments",
        )),
    }
}

/// An `image` block of an images block; its caption is the text of its
/// caption fragments' paragraphs.
fn read_image(image: &Obj) -> Result<Image> {
    let path = image.path;
    image.only(&["object", "type", "key", "data", "fragments", "isVoid"])?;
    image.string("key")?;
    let data_path = path.field("data");
    let data = image.required_object("data", &data_path)?;
    data.only(&["ref", "refDark", "width", "height", "alt"])?;
    let source = match data.get("ref") {
        Some(reference) => read_image_ref(reference, &data_path.field("ref"))?,
        None => return Err(invalid(path, "`data.ref` is missing")),
    };
    if let Some(dark) = data.get("refDark") {
        read_image_ref(dark, &data_path.field("refDark"))?;
    }
    check_length(&data, "width")?;
    check_length(&data, "height")?;
    let alt = data.string("alt")?.unwrap_or_default().to_owned();
    let mut captions = Vec::new();
    each_fragment(image, |fragment| {
        if fragment.name != Some("caption") {
            return Err(invalid(fragment.path, "an image's fragments are its `caption`"));
        }
        for (j, node) in fragment.nodes.iter().enumerate() {
            let node_path = fragment.nodes_path.index(j);
            match read_block(node, &node_path, Place::Top)? {
                Block::Paragraph(content) => captions.push(plain_text(&content)),
                _ => return Err(invalid(&node_path, "a caption holds paragraphs only")),
            }
        }
        Ok(())
    })?;
    image.fixed("isVoid", &Value::Bool(true))?;
    image.require("isVoid")?;
    Ok(Image {
        source,
        alt,
        caption: captions.join(" "),
    })
}

/// Gives headings read without an id one from their text, unique among
/// the document's ids.
fn name_headings(blocks: &mut [Block]) {
    fn visit(blocks: &mut [Block], f: &mut impl FnMut(&mut Heading)) {
        for block in blocks {
            match block {
                Block::Heading(heading) => f(heading),
                Block::List(list) => list.items.iter_mut().for_each(|i| visit(&mut i.blocks, f)),
                Block::Quote(blocks) => visit(blocks, f),
                Block::Hint(hint) => visit(&mut hint.blocks, f),
                Block::Tabs(tabs) => tabs.iter_mut().for_each(|t| visit(&mut t.blocks, f)),
                Block::Expandable(e) => visit(&mut e.blocks, f),
                _ => {}
            }
        }
    }
    let mut used = HashSet::new();
    let mut missing = false;
    visit(blocks, &mut |heading| {
        missing |= heading.id.is_empty();
        used.insert(heading.id.clone());
    });
    if !missing {
        return;
    }
    visit(blocks, &mut |heading| {
        if heading.id.is_empty() {
            let base = anchor_id(&plain_text(&heading.content));
            let mut id = base.clone();
            let mut n = 1;
            while !used.insert(id.clone()) {
                id = format!("{base}-{n}");
                n += 1;
            }
            heading.id = id;
        }
    });
}

#[cfg(test)]
mod tests;
