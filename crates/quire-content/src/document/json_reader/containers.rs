//! Reading GitBook's container blocks (steppers and their steps, columns,
//! updates, conditions, prompts, files) into [`Container`]s whose
//! attributes are written as GitBook's markdown writes them, in its order:
//! `{% update date="…" tags="a,b" %}`, `{% column width="50%" %}`.

use serde_json::Value;

use super::super::fit::Place;
use super::super::model::{Block, Container, ContainerKind};
use super::fields::{Obj, Result, array, check_icon, invalid};
use super::inline::read_link_ref;
use super::{NON_VOID, child_nodes, each_fragment, read_blocks};

/// A container block of the schema (`kind` is its `type`).
pub(super) fn read_container(block: &Obj, kind: &str) -> Result<Block> {
    let path = block.path;
    if kind == "file" {
        return read_file(block);
    }
    block.only(&["object", "type", "key", "data", "nodes", "isVoid"])?;
    block.fixed("isVoid", NON_VOID)?;
    let data_path = path.field("data");
    let data = block.required_object("data", &data_path)?;
    let mut attrs: Vec<(String, String)> = Vec::new();
    let mut push = |key: &str, value: Option<&str>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            attrs.push((key.to_owned(), value.to_owned()));
        }
    };
    let kind = match kind {
        "stepper" => {
            data.only(&[])?;
            ContainerKind::Stepper
        }
        "stepper-step" => {
            data.only(&["icon"])?;
            check_icon(&data, "icon")?;
            push("icon", data.string("icon")?);
            ContainerKind::Step
        }
        "columns" => {
            data.only(&["fullWidth"])?;
            push("fullWidth", data.boolean("fullWidth")?.map(bool_text));
            ContainerKind::Columns
        }
        "column" => {
            data.only(&["width", "verticalAlignment"])?;
            let width = length_text(&data, "width")?;
            push("width", width.as_deref());
            push(
                "verticalAlignment",
                data.one_of("verticalAlignment", &["top", "middle", "bottom"])?,
            );
            ContainerKind::Column
        }
        "updates" => {
            data.only(&["format"])?;
            push("format", data.one_of("format", &["numeric", "full", "short"])?);
            ContainerKind::Updates
        }
        "update" => {
            data.only(&["date", "tags"])?;
            push("date", Some(data.required_string("date")?));
            let tags = tags_text(&data)?;
            push("tags", tags.as_deref());
            ContainerKind::Update
        }
        "if" => {
            data.only(&["expression"])?;
            push("condition", Some(data.required_string("expression")?));
            ContainerKind::If
        }
        _ => {
            data.only(&["description", "icon", "openInAIProviders", "defaultExpanded"])?;
            check_icon(&data, "icon")?;
            push("description", Some(data.required_string("description")?));
            push("icon", data.string("icon")?);
            push("openInAIProviders", data.boolean("openInAIProviders")?.map(bool_text));
            push(
                "defaultExpanded",
                data.one_of("defaultExpanded", &["hidden", "partial", "full"])?,
            );
            ContainerKind::Prompt
        }
    };
    let blocks = read_blocks(child_nodes(block)?, &path.field("nodes"), Place::Container)?;
    Ok(Block::Container(Container { kind, attrs, blocks }))
}

/// A file: void, its target in `data.ref`, its caption blocks in a
/// `caption` fragment (as an image's).
fn read_file(block: &Obj) -> Result<Block> {
    let path = block.path;
    block.only(&["object", "type", "key", "data", "fragments", "isVoid"])?;
    block.fixed("isVoid", &Value::Bool(true))?;
    block.require("isVoid")?;
    let data_path = path.field("data");
    let data = block.required_object("data", &data_path)?;
    data.only(&["ref"])?;
    let target = match data.get("ref") {
        Some(reference) => read_link_ref(reference, &data_path.field("ref"))?,
        None => return Err(invalid(path, "`data.ref` is missing")),
    };
    let src = target.to_url();
    let mut blocks = Vec::new();
    if block.get("fragments").is_some() {
        each_fragment(block, |fragment| {
            if fragment.name != Some("caption") {
                return Err(invalid(fragment.path, "a file's fragments are its `caption`"));
            }
            blocks.extend(read_blocks(fragment.nodes, fragment.nodes_path, Place::Container)?);
            Ok(())
        })?;
    }
    let attrs = if src.is_empty() {
        Vec::new()
    } else {
        vec![("src".to_owned(), src)]
    };
    Ok(Block::Container(Container {
        kind: ContainerKind::File,
        attrs,
        blocks,
    }))
}

fn bool_text(value: bool) -> &'static str {
    if value { "true" } else { "false" }
}

/// A `Length` as markdown writes a width: `50%`, `120px`, `300`.
fn length_text(data: &Obj, key: &str) -> Result<Option<String>> {
    let path = data.path.field(key);
    let number = |value: f64| format!("{value}");
    match data.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64().map(number)),
        Some(value @ Value::Object(_)) => {
            let length = Obj::of(value, &path)?;
            length.only(&["unit", "value"])?;
            let unit = length.required_string("unit")?;
            let value = length
                .number("value")?
                .ok_or_else(|| invalid(&path, "missing `value`"))?;
            Ok(Some(format!("{}{unit}", number(value))))
        }
        Some(_) => Err(invalid(&path, "must be a number or a `{ unit, value }` object")),
    }
}

/// An update's tags (references to tags by slug) as `a,b`.
fn tags_text(data: &Obj) -> Result<Option<String>> {
    let path = data.path.field("tags");
    let Some(tags) = data.get("tags") else {
        return Ok(None);
    };
    let mut slugs = Vec::new();
    for (i, tag) in array(tags, &path, "must be an array of tag references")?
        .iter()
        .enumerate()
    {
        let tag_path = path.index(i);
        let tag = Obj::of(tag, &tag_path)?;
        tag.only(&["kind", "tag", "space"])?;
        if tag.string("kind")? != Some("tag") {
            return Err(invalid(&tag_path, "a tag reference needs `kind` \"tag\""));
        }
        tag.string("space")?;
        slugs.push(tag.required_string("tag")?);
    }
    Ok(Some(slugs.join(",")))
}
