//! Reading inline content: text nodes and their leaves and marks, links,
//! inline images, formulas and emoji, and content references.

use serde_json::Value;

use super::super::model::{Image, ImageSource, Inline, LinkTarget, Marks, normalize_inlines};
use super::fields::{Obj, Path, Result, array, invalid};

/// The colours of a `color` mark (the schema's `DocumentTextColor`).
const TEXT_COLORS: &[&str] = &[
    "default", "green", "blue", "red", "orange", "yellow", "purple", "pink", "violet", "cyan", "$primary", "$info",
    "$success", "$warning", "$danger", "$tint",
];

/// What may hold the inline content: a block takes any inline, a link only
/// text and inline images.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Holder {
    Block,
    Link,
}

/// The inline content in `nodes` (at `path`, the `nodes` array), normalized.
pub(super) fn read_inlines(nodes: &[Value], path: &Path, holder: Holder) -> Result<Vec<Inline>> {
    let mut out = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        let path = path.index(i);
        match node.get("object").and_then(Value::as_str) {
            Some("text") if node.get("key").and_then(Value::as_str) == Some(super::HTML_INLINE_KEY) => {
                let mut tag = Vec::new();
                push_leaves(node, &path, &mut tag)?;
                out.push(Inline::Html(super::super::text::plain_text(&tag)));
            }
            Some("text") => push_leaves(node, &path, &mut out)?,
            Some("inline") => out.push(read_inline(node, &path, holder)?),
            _ => return Err(invalid(&path, "expected a text or inline node")),
        }
    }
    Ok(normalize_inlines(out))
}

/// A text node's leaves, appended to `out` as marked text.
pub(super) fn read_text(node: &Value, path: &Path, out: &mut Vec<Inline>) -> Result<()> {
    if node.get("object").and_then(Value::as_str) != Some("text") {
        return Err(invalid(path, "expected a text node (`object` \"text\")"));
    }
    push_leaves(node, path, out)
}

/// [`read_text`] for a node known to be a text node.
fn push_leaves(node: &Value, path: &Path, out: &mut Vec<Inline>) -> Result<()> {
    let [_, key, leaves] = Obj::of(node, path)?.take(["object", "key", "leaves"])?;
    if key.is_some_and(|key| !key.is_string()) {
        return Err(invalid(&path.field("key"), "must be a string"));
    }
    let Some(Value::Array(leaves)) = leaves else {
        return Err(invalid(path, "a text node needs a `leaves` array"));
    };
    let leaves_path = path.field("leaves");
    for (i, leaf) in leaves.iter().enumerate() {
        let path = leaves_path.index(i);
        let [object, text, marks] = Obj::of(leaf, &path)?.take(["object", "text", "marks"])?;
        if object.and_then(Value::as_str) != Some("leaf") {
            return Err(invalid(&path, "expected a leaf (`object` \"leaf\")"));
        }
        let Some(Value::String(text)) = text else {
            return Err(invalid(&path, "a leaf needs a string `text`"));
        };
        let marks = match marks {
            Some(Value::Array(marks)) => read_marks(marks, &path.field("marks"))?,
            _ => return Err(invalid(&path, "`marks` must be an array")),
        };
        out.push(Inline::marked(text.as_str(), marks));
    }
    Ok(())
}

/// The marks markdown can write; the schema's others (keyboard, colour,
/// superscript, subscript) are checked and left out.
fn read_marks(marks: &[Value], path: &Path) -> Result<Marks> {
    let mut out = Marks::NONE;
    for (i, mark) in marks.iter().enumerate() {
        let path = path.index(i);
        let mark = Obj::of(mark, &path)?;
        let [object, kind, data] = mark.take(["object", "type", "data"])?;
        if object.and_then(Value::as_str) != Some("mark") {
            return Err(invalid(&path, "expected a mark (`object` \"mark\")"));
        }
        let Some(Value::String(kind)) = kind else {
            return Err(invalid(&path, "a mark needs a string `type`"));
        };
        if kind == "color" {
            let data_path = path.field("data");
            let data = match data {
                Some(data) => Obj::of(data, &data_path)?,
                None => return Err(invalid(&path, "missing `data`")),
            };
            data.only(&["text", "background"])?;
            for key in ["text", "background"] {
                data.one_of(key, TEXT_COLORS)?
                    .ok_or_else(|| invalid(&data_path, format!("missing `{key}`")))?;
            }
            continue;
        }
        if data.is_some() {
            mark.only(&["object", "type"])?;
        }
        match kind.as_str() {
            "bold" => out.bold = true,
            "italic" => out.italic = true,
            "strikethrough" => out.strikethrough = true,
            "code" => out.code = true,
            "keyboard" | "superscript" | "subscript" => {}
            other => return Err(invalid(&path, format!("unknown mark type `{other}`"))),
        }
    }
    Ok(out)
}

/// An inline node; an emoji is read as its character.
fn read_inline(node: &Value, path: &Path, holder: Holder) -> Result<Inline> {
    let inline = Obj::of(node, path)?;
    let kind = match inline.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        _ => return Err(invalid(path, "an inline needs a string `type`")),
    };
    inline.string("key")?;
    if holder == Holder::Link && kind != "inline-image" {
        return Err(invalid(path, "a link holds text and inline images only"));
    }
    let data_path = path.field("data");
    let result = match kind {
        "link" => {
            inline.only(&["object", "type", "key", "nodes", "data", "isVoid"])?;
            inline.fixed("isVoid", &Value::Bool(false))?;
            let data = inline.required_object("data", &data_path)?;
            data.only(&["ref"])?;
            let target = match data.get("ref") {
                Some(reference) => read_link_ref(reference, &data_path.field("ref"))?,
                None => return Err(invalid(path, "`data.ref` is missing")),
            };
            let nodes_path = path.field("nodes");
            let nodes = match inline.get("nodes") {
                Some(nodes) => array(nodes, path, "`nodes` must be an array")?,
                None => return Err(invalid(path, "`nodes` must be an array")),
            };
            let content = read_inlines(nodes, &nodes_path, Holder::Link)?;
            return Ok(Inline::Link { target, content });
        }
        "inline-image" => {
            inline.only(&["object", "type", "key", "data", "isVoid"])?;
            let data = inline.required_object("data", &data_path)?;
            data.only(&["ref", "refDark", "caption", "alt", "size"])?;
            let source = match data.get("ref") {
                Some(reference) => read_image_ref(reference, &data_path.field("ref"))?,
                None => return Err(invalid(path, "`data.ref` is missing")),
            };
            if let Some(dark) = data.get("refDark") {
                read_image_ref(dark, &data_path.field("refDark"))?;
            }
            data.one_of("size", &["original", "line"])?;
            let caption = data.string("caption")?.unwrap_or_default().to_owned();
            let alt = data.string("alt")?.unwrap_or_default().to_owned();
            Inline::Image(Image { source, alt, caption })
        }
        "inline-math" => {
            inline.only(&["object", "type", "key", "data", "isVoid"])?;
            let formula = inline
                .object("data", &data_path)?
                .map(|data| data.only(&["formula"]).and_then(|()| data.string("formula")))
                .transpose()?
                .flatten()
                .ok_or_else(|| invalid(path, "inline-math needs `data.formula`"))?;
            Inline::Math {
                formula: formula.to_owned(),
            }
        }
        "expression" => {
            inline.only(&["object", "type", "key", "data", "isVoid"])?;
            let data = inline.required_object("data", &data_path)?;
            data.only(&["expression"])?;
            let expression = data
                .string("expression")?
                .ok_or_else(|| invalid(path, "expression needs `data.expression`"))?;
            Inline::Expression {
                expression: expression.to_owned(),
            }
        }
        "icon" => {
            inline.only(&["object", "type", "key", "data", "isVoid"])?;
            let data = inline.required_object("data", &data_path)?;
            data.only(&["icon", "color"])?;
            let icon = data
                .string("icon")?
                .filter(|icon| !icon.is_empty())
                .ok_or_else(|| invalid(path, "icon needs `data.icon`"))?;
            Inline::Icon { icon: icon.to_owned() }
        }
        "emoji" => {
            inline.only(&["object", "type", "key", "data", "isVoid"])?;
            let code = inline
                .object("data", &data_path)?
                .map(|data| data.only(&["code"]).and_then(|()| data.string("code")))
                .transpose()?
                .flatten()
                .ok_or_else(|| invalid(path, "emoji needs `data.code`"))?;
            let emoji: Option<String> = code
                .split('-')
                .map(|hex| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32))
                .collect();
            let emoji = emoji.ok_or_else(|| invalid(path, format!("unknown emoji code `{code}`")))?;
            Inline::plain(emoji)
        }
        other => return Err(invalid(path, format!("unsupported inline type `{other}`"))),
    };
    // Inline images, formulas and emoji are void.
    inline.fixed("isVoid", &Value::Bool(true))?;
    inline.require("isVoid")?;
    Ok(result)
}

/// A content reference a link (or content-ref block, or table cell) may
/// point at: a page, anchor, file or URL. References to a page or file of
/// another space keep the id and lose the space.
pub(super) fn read_link_ref(value: &Value, path: &Path) -> Result<LinkTarget> {
    let reference = Obj::of(value, path)?;
    let field = |key: &str| {
        reference
            .string(key)?
            .map(str::to_owned)
            .ok_or_else(|| invalid(path, format!("the reference needs a string `{key}`")))
    };
    let kind = field("kind")?;
    match kind.as_str() {
        "url" => {
            reference.only(&["kind", "url"])?;
            Ok(LinkTarget::Url { url: field("url")? })
        }
        "page" => {
            reference.only(&["kind", "page", "space"])?;
            reference.string("space")?;
            Ok(LinkTarget::Page { page: field("page")? })
        }
        "file" => {
            reference.only(&["kind", "file", "space"])?;
            reference.string("space")?;
            Ok(LinkTarget::File { file: field("file")? })
        }
        "anchor" => {
            reference.only(&["kind", "anchor", "space", "page"])?;
            reference.string("space")?;
            Ok(LinkTarget::Anchor {
                page: reference.string("page")?.map(str::to_owned),
                anchor: field("anchor")?,
            })
        }
        other => Err(invalid(path, format!("unsupported reference kind `{other}`"))),
    }
}

/// An image source: a `url` or `file` reference.
pub(super) fn read_image_ref(value: &Value, path: &Path) -> Result<ImageSource> {
    match value.get("kind").and_then(Value::as_str) {
        Some("url" | "file") => match read_link_ref(value, path)? {
            LinkTarget::File { file } => Ok(ImageSource::File(file)),
            LinkTarget::Url { url } => Ok(ImageSource::Url(url)),
            _ => Err(invalid(path, "an image reference must be a `url` or a `file`")),
        },
        _ => Err(invalid(path, "an image reference must be a `url` or a `file`")),
    }
}
