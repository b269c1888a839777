//! Model to JSON: a [`Document`] as the official API's `JSONDocument`.
//!
//! Every node carries `object`, `type`, `isVoid` and `data` (the schema
//! requires some of them on some nodes; writing them always is simplest for
//! clients). Neighbouring text is one text node of leaves; an empty
//! paragraph holds one empty leaf. Headings carry their anchor as `data.id`
//! and `meta.id`, tabs a `meta.id` (`tab-1`, `tab-2`… in reading order).
//! Tables are grid tables whose text cells live in fragments. GitBook's
//! containers (steppers, columns, updates, conditions, prompts, files) are
//! the schema's blocks of those kinds. A document
//! that does not fit the schema's containers is fitted first
//! ([`Document::fit`]).

use serde_json::{Map, Value};

use super::model::{
    Block, CodeBlock, Container, ContainerKind, Document, Heading, Image, ImageSource, Inline, LinkTarget, List,
    ListKind, Marks, Table, anchor_id, is_anchor_id,
};

impl Document {
    /// The document as an official `JSONDocument` (front matter aside).
    pub fn to_json(&self) -> Value {
        if !self.fits() {
            let mut fitted = self.clone();
            fitted.fit();
            return fitted.to_json();
        }
        let mut writer = JsonWriter { tabs: 0, html: 0 };
        let mut nodes = writer.blocks(&self.blocks);
        stamp_keys(&mut nodes);
        object([
            ("object", "document".into()),
            ("data", object([("schemaVersion", 1.into())])),
            ("nodes", nodes),
        ])
    }
}

/// Gives each top-level block without a key one: `b` and a hash of the
/// block as written (with `-2`, `-3`… for the second and later blocks
/// alike). A block keeps its key while it is unchanged, wherever it moves
/// and whatever changes around it, so a comment on it finds it again; an
/// edited block has a new key (the comment is then about what it was).
fn stamp_keys(nodes: &mut Value) {
    let Value::Array(nodes) = nodes else {
        return;
    };
    let mut seen: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for node in nodes {
        let Value::Object(map) = node else {
            continue;
        };
        if map.contains_key("key") {
            continue;
        }
        let hash = fnv1a(serde_json::to_string(map).unwrap_or_default().as_bytes());
        let count = seen.entry(hash).or_insert(0);
        *count += 1;
        let key = if *count == 1 {
            format!("b{hash:016x}")
        } else {
            format!("b{hash:016x}-{count}")
        };
        map.insert("key".into(), key.into());
    }
}

/// The 64-bit FNV-1a hash: the same on every machine and every release
/// (keys are kept in comments).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    let mut map = Map::new();
    for (key, value) in entries {
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

fn empty() -> Value {
    Value::Object(Map::new())
}

fn block(kind: &str, data: Value, nodes: Value) -> Value {
    object([
        ("object", "block".into()),
        ("type", kind.into()),
        ("isVoid", false.into()),
        ("data", data),
        ("nodes", nodes),
    ])
}

fn void_block(kind: &str, data: Value) -> Value {
    object([
        ("object", "block".into()),
        ("type", kind.into()),
        ("isVoid", true.into()),
        ("data", data),
    ])
}

struct JsonWriter {
    /// Tabs written so far, for their ids.
    tabs: usize,
    /// HTML blocks written so far, for their keys.
    html: usize,
}

impl JsonWriter {
    fn blocks(&mut self, blocks: &[Block]) -> Value {
        Value::Array(blocks.iter().map(|node| self.block(node)).collect())
    }

    /// A GitBook container as the schema's block of that kind, its
    /// attributes typed as the schema has them (see `json_reader::containers`
    /// for the way back).
    fn container(&mut self, container: &Container) -> Value {
        let attr = |key: &str| container.attr(key).filter(|v| !v.is_empty());
        let mut data = Map::new();
        let kind = match container.kind {
            ContainerKind::Stepper => "stepper",
            ContainerKind::Step => {
                if let Some(icon) = attr("icon") {
                    data.insert("icon".into(), icon.into());
                }
                "stepper-step"
            }
            ContainerKind::Columns => {
                if let Some(full) = attr("fullWidth").and_then(parse_bool) {
                    data.insert("fullWidth".into(), full.into());
                }
                "columns"
            }
            ContainerKind::Column => {
                if let Some(width) = attr("width").and_then(length) {
                    data.insert("width".into(), width);
                }
                if let Some(align) = attr("verticalAlignment").filter(|a| ["top", "middle", "bottom"].contains(a)) {
                    data.insert("verticalAlignment".into(), align.into());
                }
                "column"
            }
            ContainerKind::Updates => {
                data.insert("format".into(), attr("format").unwrap_or("full").into());
                "updates"
            }
            ContainerKind::Update => {
                data.insert("date".into(), attr("date").unwrap_or_default().into());
                if let Some(tags) = attr("tags") {
                    let tags = tags
                        .split(',')
                        .map(str::trim)
                        .filter(|t| !t.is_empty())
                        .map(|tag| object([("kind", "tag".into()), ("tag", tag.into())]))
                        .collect();
                    data.insert("tags".into(), Value::Array(tags));
                }
                "update"
            }
            ContainerKind::If => {
                data.insert("expression".into(), attr("condition").unwrap_or_default().into());
                "if"
            }
            ContainerKind::Prompt => {
                data.insert("description".into(), attr("description").unwrap_or_default().into());
                if let Some(icon) = attr("icon") {
                    data.insert("icon".into(), icon.into());
                }
                if let Some(open) = attr("openInAIProviders").and_then(parse_bool) {
                    data.insert("openInAIProviders".into(), open.into());
                }
                if let Some(shown) = attr("defaultExpanded").filter(|a| ["hidden", "partial", "full"].contains(a)) {
                    data.insert("defaultExpanded".into(), shown.into());
                }
                "prompt"
            }
            // A file is void: its caption (the blocks it holds) is a
            // fragment, as an image's is.
            ContainerKind::File => {
                let target = LinkTarget::from_url(attr("src").unwrap_or_default());
                data.insert("ref".into(), link_ref(&target));
                let caption = self.blocks(&container.blocks);
                return captioned("file", data, caption);
            }
        };
        block(kind, Value::Object(data), self.blocks(&container.blocks))
    }

    fn block(&mut self, node: &Block) -> Value {
        match node {
            Block::Paragraph(content) => paragraph(content),
            Block::Heading(heading) => heading_json(heading),
            Block::List(list) => self.list(list),
            Block::Quote(blocks) => block("blockquote", empty(), self.blocks(blocks)),
            Block::Code(code) => code_json(code),
            Block::Hint(hint) => block(
                "hint",
                object([("style", hint.style.as_str().into())]),
                self.blocks(&hint.blocks),
            ),
            Block::Tabs(tabs) => {
                let items = tabs
                    .iter()
                    .map(|tab| {
                        self.tabs += 1;
                        let id = format!("tab-{}", self.tabs);
                        let mut item = block(
                            "tabs-item",
                            object([("title", tab.title.as_str().into())]),
                            self.blocks(&tab.blocks),
                        );
                        if let Value::Object(map) = &mut item {
                            map.insert("meta".into(), object([("id", id.into())]));
                        }
                        item
                    })
                    .collect();
                block("tabs", empty(), Value::Array(items))
            }
            Block::Expandable(expandable) => {
                let fragment = |kind: &str, nodes: Value| {
                    object([
                        ("object", "fragment".into()),
                        ("fragment", kind.into()),
                        ("type", kind.into()),
                        ("nodes", nodes),
                    ])
                };
                object([
                    ("object", "block".into()),
                    ("type", "expandable".into()),
                    ("isVoid", true.into()),
                    ("data", object([("defaultExpanded", expandable.open.into())])),
                    (
                        "fragments",
                        Value::Array(vec![
                            fragment("expandable-title", Value::Array(vec![paragraph(&expandable.title)])),
                            fragment("expandable-body", self.blocks(&expandable.blocks)),
                        ]),
                    ),
                ])
            }
            Block::ContentRef { target } => void_block("content-ref", object([("ref", link_ref(target))])),
            Block::Include { path } => void_block(
                "reusable-content",
                object([(
                    "ref",
                    object([
                        ("kind", "reusable-content".into()),
                        ("reusableContent", path.as_str().into()),
                    ]),
                )]),
            ),
            Block::Images(images) => block(
                "images",
                empty(),
                Value::Array(images.iter().map(image_block).collect()),
            ),
            Block::Table(table) => table_json(table),
            Block::Divider => void_block("divider", empty()),
            Block::Embed { url } => void_block("embed", object([("url", url.as_str().into())])),
            Block::OpenApiOperation(op) => void_block(
                "openapi-operation",
                object([
                    (
                        "ref",
                        object([("kind", "openapi".into()), ("spec", op.spec.as_str().into())]),
                    ),
                    ("path", op.path.as_str().into()),
                    ("method", op.method.as_str().into()),
                ]),
            ),
            Block::OpenApiSchemas(pointer) => void_block(
                "openapi-schemas",
                object([
                    (
                        "ref",
                        object([("kind", "openapi".into()), ("spec", pointer.spec.as_str().into())]),
                    ),
                    (
                        "schemas",
                        Value::Array(pointer.schemas.iter().map(|s| s.as_str().into()).collect()),
                    ),
                    ("grouped", pointer.grouped.into()),
                ]),
            ),
            Block::Math { formula } => void_block("math", object([("formula", formula.as_str().into())])),
            // The JSON document has no HTML: the markup is the text of a
            // paragraph whose key says so, which the reader turns back
            // into HTML (an editor that keeps keys keeps the block).
            Block::Html(html) => {
                self.html += 1;
                let mut node = paragraph(&[Inline::plain(html.as_str())]);
                if let Value::Object(map) = &mut node {
                    map.insert(
                        "key".into(),
                        format!("{}{}", super::json_reader::HTML_KEY, self.html).into(),
                    );
                }
                node
            }
            Block::Container(container) => self.container(container),
        }
    }

    fn list(&mut self, list: &List) -> Value {
        let tasks = list.kind == ListKind::Tasks;
        let items = list
            .items
            .iter()
            .map(|item| {
                let data = if tasks {
                    object([("checked", item.checked.into())])
                } else {
                    empty()
                };
                block("list-item", data, self.blocks(&item.blocks))
            })
            .collect();
        let (kind, data) = match list.kind {
            ListKind::Tasks => ("list-tasks", empty()),
            ListKind::Numbered { start } => ("list-ordered", object([("start", start.into())])),
            ListKind::Bulleted => ("list-unordered", empty()),
        };
        block(kind, data, Value::Array(items))
    }
}

/// A paragraph; an empty one still holds an (empty) text node.
fn paragraph(content: &[Inline]) -> Value {
    let mut nodes = inline_nodes(content);
    if nodes.is_empty() {
        nodes.push(text_node(std::iter::once(("", Marks::NONE))));
    }
    block("paragraph", empty(), Value::Array(nodes))
}

fn heading_json(heading: &Heading) -> Value {
    let id = if is_anchor_id(&heading.id) {
        heading.id.clone()
    } else {
        anchor_id(&heading.id)
    };
    let kind = match heading.level.depth() {
        1 => "heading-1",
        2 => "heading-2",
        _ => "heading-3",
    };
    let mut node = block(
        kind,
        object([("id", id.as_str().into())]),
        Value::Array(inline_nodes(&heading.content)),
    );
    if let Value::Object(map) = &mut node {
        map.insert("meta".into(), object([("id", id.into())]));
    }
    node
}

/// Inline content as text and inline nodes: neighbouring text is one text
/// node.
fn inline_nodes(content: &[Inline]) -> Vec<Value> {
    let mut nodes = Vec::new();
    let mut i = 0;
    while i < content.len() {
        match &content[i] {
            Inline::Text { .. } => {
                let run = content[i..]
                    .iter()
                    .map_while(|inline| match inline {
                        Inline::Text { text, marks } => Some((text.as_str(), *marks)),
                        _ => None,
                    })
                    .collect::<Vec<_>>();
                i += run.len();
                nodes.push(text_node(run.into_iter()));
                continue;
            }
            // The JSON document has no HTML: a tag is the text of a text
            // node whose key says so, which the reader turns back into the
            // tag (an editor that keeps keys keeps it).
            Inline::Html(tag) => {
                let mut node = text_node(std::iter::once((tag.as_str(), Marks::NONE)));
                if let Value::Object(map) = &mut node {
                    map.insert("key".into(), super::json_reader::HTML_INLINE_KEY.into());
                }
                nodes.push(node);
            }
            Inline::Link { target, content } => nodes.push(object([
                ("object", "inline".into()),
                ("type", "link".into()),
                ("isVoid", false.into()),
                ("data", object([("ref", link_ref(target))])),
                ("nodes", Value::Array(inline_nodes(content))),
            ])),
            Inline::Image(image) => {
                let mut data = Map::new();
                data.insert("ref".into(), image_ref(&image.source));
                if !image.alt.is_empty() {
                    data.insert("alt".into(), image.alt.as_str().into());
                }
                if !image.caption.is_empty() {
                    data.insert("caption".into(), image.caption.as_str().into());
                }
                nodes.push(object([
                    ("object", "inline".into()),
                    ("type", "inline-image".into()),
                    ("isVoid", true.into()),
                    ("data", Value::Object(data)),
                ]));
            }
            Inline::Math { formula } => nodes.push(object([
                ("object", "inline".into()),
                ("type", "inline-math".into()),
                ("isVoid", true.into()),
                ("data", object([("formula", formula.as_str().into())])),
            ])),
            Inline::Expression { expression } => nodes.push(object([
                ("object", "inline".into()),
                ("type", "expression".into()),
                ("isVoid", true.into()),
                ("data", object([("expression", expression.as_str().into())])),
            ])),
            Inline::Icon { icon } => nodes.push(object([
                ("object", "inline".into()),
                ("type", "icon".into()),
                ("isVoid", true.into()),
                ("data", object([("icon", icon.as_str().into())])),
            ])),
        }
        i += 1;
    }
    nodes
}

/// A text node of the pieces given, neighbours with the same marks one leaf
fn text_node<'a>(pieces: impl Iterator<Item = (&'a str, Marks)>) -> Value {
    let mut merged: Vec<(String, Marks)> = Vec::new();
    for (text, marks) in pieces {
        match merged.last_mut() {
            Some((last, last_marks)) if *last_marks == marks => last.push_str(text),
            _ => merged.push((text.to_owned(), marks)),
        }
    }
    let leaves = merged
        .into_iter()
        .map(|(text, marks)| {
            object([
                ("object", "leaf".into()),
                ("text", text.into()),
                ("marks", marks_json(marks)),
            ])
        })
        .collect();
    object([("object", "text".into()), ("leaves", Value::Array(leaves))])
}

fn marks_json(marks: Marks) -> Value {
    let list = [
        (marks.bold, "bold"),
        (marks.italic, "italic"),
        (marks.strikethrough, "strikethrough"),
        (marks.code, "code"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, kind)| object([("object", "mark".into()), ("type", kind.into())]))
    .collect();
    Value::Array(list)
}

/// A void block with a `caption` fragment holding `caption` (an image's,
/// a file's).
fn captioned(kind: &str, data: Map<String, Value>, caption: Value) -> Value {
    object([
        ("object", "block".into()),
        ("type", kind.into()),
        ("isVoid", true.into()),
        ("data", Value::Object(data)),
        (
            "fragments",
            Value::Array(vec![object([
                ("object", "fragment".into()),
                ("fragment", "caption".into()),
                ("nodes", caption),
            ])]),
        ),
    ])
}

fn parse_bool(value: &str) -> Option<bool> {
    match value {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A markdown width (`50%`, `120px`, `300`) as the schema's `Length`.
fn length(value: &str) -> Option<Value> {
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(value.len());
    let number: f64 = value[..split].parse().ok().filter(|n: &f64| n.is_finite())?;
    let unit = value[split..].trim();
    Some(if unit.is_empty() {
        number.into()
    } else {
        object([("unit", unit.into()), ("value", number.into())])
    })
}

fn link_ref(target: &LinkTarget) -> Value {
    match target {
        LinkTarget::Page { page } => object([("kind", "page".into()), ("page", page.as_str().into())]),
        LinkTarget::Anchor {
            page: Some(page),
            anchor,
        } => object([
            ("kind", "anchor".into()),
            ("anchor", anchor.as_str().into()),
            ("page", page.as_str().into()),
        ]),
        LinkTarget::Anchor { page: None, anchor } => {
            object([("kind", "anchor".into()), ("anchor", anchor.as_str().into())])
        }
        LinkTarget::File { file } => object([("kind", "file".into()), ("file", file.as_str().into())]),
        LinkTarget::Url { url } => object([("kind", "url".into()), ("url", url.as_str().into())]),
    }
}

fn image_ref(source: &ImageSource) -> Value {
    match source {
        ImageSource::File(file) => object([("kind", "file".into()), ("file", file.as_str().into())]),
        ImageSource::Url(url) => object([("kind", "url".into()), ("url", url.as_str().into())]),
    }
}

fn image_block(image: &Image) -> Value {
    let mut data = Map::new();
    data.insert("ref".into(), image_ref(&image.source));
    if !image.alt.is_empty() {
        data.insert("alt".into(), image.alt.as_str().into());
    }
    let caption = if image.caption.is_empty() {
        Vec::new()
    } else {
        vec![Inline::plain(image.caption.as_str())]
    };
    captioned("image", data, Value::Array(vec![paragraph(&caption)]))
}

fn code_json(code: &CodeBlock) -> Value {
    let mut data = Map::new();
    if let Some(syntax) = code.syntax.as_deref().filter(|s| !s.is_empty()) {
        data.insert("syntax".into(), syntax.into());
    }
    if let Some(title) = &code.title {
        data.insert("title".into(), title.as_str().into());
    }
    if let Some(overflow) = code.overflow {
        data.insert("overflow".into(), overflow.as_str().into());
    }
    if let Some(numbers) = code.line_numbers {
        data.insert("lineNumbers".into(), numbers.into());
    }
    if let Some(expandable) = code.expandable {
        data.insert("expandable".into(), expandable.into());
    }
    let lines = code
        .lines
        .iter()
        .map(|line| {
            block(
                "code-line",
                object([("highlighted", false.into())]),
                Value::Array(vec![text_node(std::iter::once((line.as_str(), Marks::NONE)))]),
            )
        })
        .collect();
    block("code", Value::Object(data), Value::Array(lines))
}

/// A table as the schema's grid table: one text column definition per
/// column (`c0`, `c1`…) and one record per row (`r0`…) whose values name
/// the fragments holding the cells' paragraphs (`r0-c0`…).
fn table_json(table: &Table) -> Value {
    let columns: Vec<String> = (0..table.columns.len()).map(|c| format!("c{c}")).collect();
    let mut definition = Map::new();
    for (id, column) in columns.iter().zip(&table.columns) {
        definition.insert(
            id.clone(),
            object([
                ("id", id.as_str().into()),
                ("title", column.title.as_str().into()),
                ("type", "text".into()),
                ("textAlignment", column.align.as_str().into()),
            ]),
        );
    }
    let mut records = Map::new();
    let mut fragments = Vec::new();
    let no_cell = Vec::new();
    for (r, row) in table.rows.iter().enumerate() {
        let mut values = Map::new();
        for (c, column) in columns.iter().enumerate() {
            let key = format!("r{r}-{column}");
            values.insert(column.clone(), key.as_str().into());
            let cell = row.get(c).unwrap_or(&no_cell);
            fragments.push(object([
                ("object", "fragment".into()),
                ("fragment", key.into()),
                ("nodes", Value::Array(vec![paragraph(cell)])),
            ]));
        }
        records.insert(
            format!("r{r}"),
            object([
                ("orderIndex", format!("a{r:06}").into()),
                ("values", Value::Object(values)),
            ]),
        );
    }
    let columns = Value::Array(columns.into_iter().map(Value::String).collect());
    object([
        ("object", "block".into()),
        ("type", "table".into()),
        ("isVoid", true.into()),
        (
            "data",
            object([
                (
                    "view",
                    object([
                        ("type", "grid".into()),
                        ("columns", columns),
                        ("hideHeader", false.into()),
                    ]),
                ),
                ("records", Value::Object(records)),
                ("definition", Value::Object(definition)),
            ]),
        ),
        ("fragments", Value::Array(fragments)),
    ])
}
