//! Property tests: markdown written from any document reads back as the same
//! markdown; JSON written from any document satisfies the official schema and
//! reads back as the same document; markdown-ish junk never panics the
//! reader and its canonical markdown is stable after one round.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRng, TestRunner};
use serde_json::{Value, json};

use super::model::{
    Block, CodeBlock, Column, ColumnAlign, Document, Expandable, Heading, HeadingLevel, Hint, HintStyle, Image,
    ImageSource, Inline, LinkTarget, List, ListItem, ListKind, Marks, OpenApiOperation, Overflow, Tab, Table,
    anchor_id, normalize_inlines,
};
use super::spec::schema_errors;

// ---------------------------------------------------------------------------
// Typed documents
// ---------------------------------------------------------------------------

/// Characters text is made of: words, markdown's special characters,
/// GitBook's, spaces and a line break now and then, non-ASCII.
fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::char::range('a', 'z'),
        2 => Just(' '),
        1 => prop::char::range('0', '9'),
        3 => prop::sample::select(
            "*_~`[]()<>#-+=!|$&;{}%:.,'\"\\/@^?"
                .chars()
                .collect::<Vec<_>>()
        ),
        1 => prop::sample::select(vec!['é', 'ß', '中', '🎉', '\u{a0}', 'Ω', '\t']),
        1 => Just('\n'),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(text_char(), 0..max).prop_map(|chars| chars.into_iter().collect())
}

/// Text without line breaks (titles, alt text…).
fn line(max: usize) -> impl Strategy<Value = String> {
    text(max).prop_map(|s| s.replace('\n', " "))
}

fn id() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select("abcdefxyz0123456789".chars().collect::<Vec<_>>()),
        1..8,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn url() -> impl Strategy<Value = String> {
    prop_oneof![
        (id(), line(6)).prop_map(|(a, b)| format!("https://example.com/{a}?q={b}")),
        id().prop_map(|a| format!("https://x.org/{a}")),
        line(8),
    ]
}

fn link_target() -> impl Strategy<Value = LinkTarget> {
    prop_oneof![
        id().prop_map(|page| LinkTarget::Page { page }),
        (prop::option::of(id()), id()).prop_map(|(page, anchor)| LinkTarget::Anchor { page, anchor }),
        id().prop_map(|file| LinkTarget::File { file }),
        url().prop_map(|url| LinkTarget::Url { url }),
    ]
}

fn image() -> impl Strategy<Value = Image> {
    let source = prop_oneof![id().prop_map(ImageSource::File), url().prop_map(ImageSource::Url)];
    (source, line(8), line(8)).prop_map(|(source, alt, caption)| Image { source, alt, caption })
}

fn marks() -> impl Strategy<Value = Marks> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(bold, italic, strikethrough, code)| Marks {
        bold,
        italic,
        strikethrough,
        code,
    })
}

fn formula() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select("abcxyz019 +-=^_{}()\\,.\n".chars().collect::<Vec<_>>()),
        0..14,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn text_inline() -> impl Strategy<Value = Inline> {
    (text(10), marks()).prop_map(|(text, marks)| Inline::Text { text, marks })
}

fn inline() -> impl Strategy<Value = Inline> {
    prop_oneof![
        8 => text_inline(),
        2 => (link_target(), prop::collection::vec(prop_oneof![4 => text_inline(), 1 => image().prop_map(Inline::Image)], 0..3))
            .prop_map(|(target, content)| Inline::Link { target, content }),
        1 => image().prop_map(Inline::Image),
        1 => formula().prop_map(|formula| Inline::Math { formula }),
    ]
}

fn content() -> impl Strategy<Value = Vec<Inline>> {
    prop::collection::vec(inline(), 0..5)
}

fn leaf_block() -> impl Strategy<Value = Block> {
    prop_oneof![
        8 => content().prop_map(Block::Paragraph),
        2 => (0u8..3, content()).prop_map(|(level, content)| Block::Heading(Heading {
            level: HeadingLevel::from_depth(level + 1),
            id: String::new(),
            content,
        })),
        2 => code_block().prop_map(Block::Code),
        1 => link_target().prop_map(|target| Block::ContentRef { target }),
        1 => line(10).prop_map(|path| Block::Include { path }),
        1 => prop::collection::vec(image(), 1..3).prop_map(Block::Images),
        1 => table().prop_map(Block::Table),
        1 => Just(Block::Divider),
        1 => url().prop_map(|url| Block::Embed { url }),
        1 => (id(), line(4), prop::sample::select(vec!["get", "post", "delete"])).prop_map(|(spec, path, method)| {
            Block::OpenApiOperation(OpenApiOperation {
                spec,
                path: format!("/{}", path.trim()),
                method: method.to_owned(),
            })
        }),
        1 => formula().prop_map(|formula| Block::Math { formula }),
    ]
}

fn code_block() -> impl Strategy<Value = CodeBlock> {
    let syntax = prop::option::of(prop_oneof![Just("rust".to_owned()), Just("js".to_owned()), id()]);
    let overflow = prop::option::of(prop_oneof![Just(Overflow::Wrap), Just(Overflow::Scroll)]);
    (
        syntax,
        prop::option::of(line(8)),
        prop::option::of(any::<bool>()),
        overflow,
        prop::option::of(Just(true)),
        prop::collection::vec(line(12), 0..4),
    )
        .prop_map(|(syntax, title, line_numbers, overflow, expandable, lines)| CodeBlock {
            syntax,
            title,
            line_numbers,
            overflow,
            expandable,
            lines,
        })
}

fn table() -> impl Strategy<Value = Table> {
    (1usize..4, 0usize..3).prop_flat_map(|(width, height)| {
        let align = prop_oneof![
            Just(ColumnAlign::Left),
            Just(ColumnAlign::Center),
            Just(ColumnAlign::Right)
        ];
        let columns = prop::collection::vec(
            (line(6), align).prop_map(|(title, align)| Column { title, align }),
            width,
        );
        let rows = prop::collection::vec(prop::collection::vec(content(), width), height);
        (columns, rows).prop_map(|(columns, rows)| Table { columns, rows })
    })
}

fn block() -> impl Strategy<Value = Block> {
    leaf_block().prop_recursive(3, 24, 4, |inner| {
        let blocks = prop::collection::vec(inner, 0..4);
        let list_kind = prop_oneof![
            Just(ListKind::Bulleted),
            Just(ListKind::Tasks),
            (0u64..12).prop_map(|start| ListKind::Numbered { start }),
        ];
        let style = prop::sample::select(HintStyle::ALL.to_vec());
        prop_oneof![
            (list_kind, prop::collection::vec((any::<bool>(), blocks.clone()), 1..4)).prop_map(|(kind, items)| {
                let items = items
                    .into_iter()
                    .map(|(checked, blocks)| ListItem {
                        checked: checked && kind == ListKind::Tasks,
                        blocks,
                    })
                    .collect();
                Block::List(List { kind, items })
            }),
            blocks.clone().prop_map(Block::Quote),
            (style, blocks.clone()).prop_map(|(style, blocks)| Block::Hint(Hint { style, blocks })),
            prop::collection::vec((line(6), blocks.clone()), 1..3)
                .prop_map(|tabs| Block::Tabs(tabs.into_iter().map(|(title, blocks)| Tab { title, blocks }).collect())),
            (content(), any::<bool>(), blocks).prop_map(|(title, open, blocks)| Block::Expandable(Expandable {
                title,
                open,
                blocks
            })),
        ]
    })
}

/// A document as the readers give them: inline content normalized, heading
/// ids from their text, containers fitted to the schema.
fn document() -> impl Strategy<Value = Document> {
    let front_matter = prop::option::of(id().prop_map(|title| format!("title: {title}\n")));
    (front_matter, prop::collection::vec(block(), 0..6)).prop_map(|(front_matter, blocks)| {
        let mut doc = Document { front_matter, blocks };
        doc.fit();
        normalize_blocks(&mut doc.blocks);
        doc
    })
}

fn normalize_blocks(blocks: &mut [Block]) {
    let normalize = |content: &mut Vec<Inline>| *content = normalize_inlines(std::mem::take(content));
    for block in blocks {
        match block {
            Block::Paragraph(content) => normalize(content),
            Block::Heading(heading) => {
                normalize(&mut heading.content);
                heading.id = anchor_id(&super::plain_text(&heading.content));
            }
            Block::Table(table) => table.rows.iter_mut().flatten().for_each(normalize),
            Block::List(list) => list.items.iter_mut().for_each(|i| normalize_blocks(&mut i.blocks)),
            Block::Quote(blocks) => normalize_blocks(blocks),
            Block::Hint(hint) => normalize_blocks(&mut hint.blocks),
            Block::Tabs(tabs) => tabs.iter_mut().for_each(|t| normalize_blocks(&mut t.blocks)),
            Block::Expandable(e) => {
                normalize(&mut e.title);
                normalize_blocks(&mut e.blocks);
            }
            _ => {}
        }
    }
}

/// A runner for `cases` cases: the same ones every run, or new ones when
/// `QUIRE_PROPTEST_RANDOM` is set (and `PROPTEST_CASES` how many).
fn runner(cases: u32) -> TestRunner {
    let random = std::env::var_os("QUIRE_PROPTEST_RANDOM").is_some();
    let config = Config {
        cases: if random {
            Config::default().cases.max(cases)
        } else {
            cases
        },
        failure_persistence: None,
        ..Config::default()
    };
    if random {
        TestRunner::new(config)
    } else {
        let rng = TestRng::deterministic_rng(config.rng_algorithm);
        TestRunner::new_with_rng(config, rng)
    }
}

#[test]
fn markdown_written_from_any_document_is_stable() {
    runner(2000)
        .run(&document(), |doc| {
            let first = doc.to_markdown();
            let second = Document::from_markdown(&first).to_markdown();
            prop_assert_eq!(&first, &second, "document: {:#?}", doc);
            Ok(())
        })
        .unwrap();
}

#[test]
fn json_written_from_any_document_is_valid_and_reads_back() {
    runner(1000)
        .run(&document(), |doc| {
            let json = doc.to_json();
            let errors = schema_errors(&json);
            prop_assert!(errors.is_empty(), "{}\n{json:#}", errors.join("\n"));
            let read = Document::from_json(&json).map_err(|e| TestCaseError::fail(format!("{e}\n{json:#}")))?;
            let expected = Document {
                front_matter: None,
                ..doc
            };
            prop_assert_eq!(read, expected);
            Ok(())
        })
        .unwrap();
}

/// JSON pointers to every object in `value`.
fn object_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                object_pointers(child, format!("{at}/{key}"), out);
            }
            out.push(at);
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                object_pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// A document's JSON with one object changed: a field removed, a field's
/// value replaced by one of another type, a field added, or the object
/// replaced.
fn mutated_json() -> impl Strategy<Value = Value> {
    let replacement = prop::sample::select(vec![
        Value::Null,
        json!(1.5),
        json!(-1),
        json!("x"),
        json!(true),
        json!([]),
        json!({}),
        json!([{}]),
    ]);
    (
        document(),
        any::<prop::sample::Index>(),
        0u8..4,
        any::<prop::sample::Index>(),
        replacement,
    )
        .prop_map(|(doc, which, how, key, replacement)| {
            let mut json = doc.to_json();
            let mut pointers = Vec::new();
            object_pointers(&json, String::new(), &mut pointers);
            let pointer = which.get(&pointers).clone();
            let Some(target) = json.pointer_mut(&pointer) else {
                return json;
            };
            let keys: Vec<String> = target
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            match (how, target) {
                (0, Value::Object(map)) if !keys.is_empty() => {
                    map.remove(key.get(&keys));
                }
                (1, Value::Object(map)) if !keys.is_empty() => {
                    map.insert(key.get(&keys).clone(), replacement);
                }
                (2, Value::Object(map)) => {
                    map.insert("extra".into(), replacement);
                }
                (_, target) => *target = replacement,
            }
            json
        })
}

#[test]
fn changed_json_never_panics_and_is_read_only_when_schema_valid() {
    runner(1000)
        .run(&mutated_json(), |json| {
            if let Ok(doc) = Document::from_json(&json) {
                let errors = schema_errors(&json);
                prop_assert!(errors.is_empty(), "accepted, yet {}\n{json:#}", errors.join("\n"));
                doc.to_markdown();
            }
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------
// Markdown-ish junk
// ---------------------------------------------------------------------------

/// Pieces markdown is made of, GitBook's tags included, and some junk.
const PIECES: &[&str] = &[
    "word",
    "other",
    " ",
    " ",
    "\n",
    "\n",
    "\n",
    "\n\n",
    "# ",
    "## ",
    "#### ",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "3) ",
    "> ",
    "  ",
    "    ",
    "\t",
    "```",
    "```js",
    "~~~",
    "{% hint style=\"info\" %}",
    "{% hint style=\"danger\" %}",
    "{% endhint %}",
    "{% tabs %}",
    "{% tab title=\"A\" %}",
    "{% endtab %}",
    "{% endtabs %}",
    "{% code title=\"a.js\" lineNumbers=\"true\" %}",
    "{% endcode %}",
    "{% content-ref url=\"/pages/p1\" %}",
    "{% endcontent-ref %}",
    "{% embed url=\"https://e.x/v\" %}",
    "{% include \"../.gitbook/includes/a.md\" %}",
    "{% stepper %}",
    "{% step %}",
    "{% endstep %}",
    "{% endstepper %}",
    "{% columns %}",
    "{% column width=\"50%\" %}",
    "{% endcolumn %}",
    "{% endcolumns %}",
    "{% updates format=\"full\" %}",
    "{% update date=\"2025-01-02\" tags=\"a,b\" %}",
    "{% endupdate %}",
    "{% endupdates %}",
    "{% file src=\"/files/f1\" %}",
    "{% endfile %}",
    "{% unknown %}",
    "{%",
    "%}",
    "$$",
    "$",
    "| a | b |",
    "| - | :-: |",
    "|",
    "**",
    "*",
    "_",
    "~~",
    "`",
    "[",
    "]",
    "](",
    ")",
    "![",
    "(/files/f1)",
    "(https://x.org/a b)",
    "<figure><img src=\"/files/a\" alt=\"b\"><figcaption><p>c</p></figcaption></figure>",
    "<div>",
    "</div>",
    "<br>",
    "&amp;",
    "&#x41;",
    "\\",
    "é",
    "中文",
    "🎉",
    "[x] ",
    "[ ] ",
    "---",
    "***",
    "===",
    "___",
    "https://x.org",
    "/pages/p1",
    "#anchor",
    "{",
    "}",
    "\"",
    "'",
    "\r\n",
    "\u{a0}",
];

fn markdownish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..40).prop_map(|pieces| pieces.concat())
}

#[test]
fn markdownish_junk_reads_and_its_markdown_is_stable() {
    runner(4000)
        .run(&markdownish(), |markdown| {
            let doc = Document::from_markdown(&markdown);
            let first = doc.to_markdown();
            let again = Document::from_markdown(&first);
            let second = again.to_markdown();
            prop_assert_eq!(&first, &second, "from:\n{}", markdown);
            let json = doc.to_json();
            let errors = schema_errors(&json);
            prop_assert!(errors.is_empty(), "{}\nfrom:\n{markdown}", errors.join("\n"));
            // What fits the schema's containers reads back from its JSON
            // (inline HTML aside: the JSON holds it as text).
            if doc.fits() && !markdown.contains('<') {
                let read =
                    Document::from_json(&json).map_err(|e| TestCaseError::fail(format!("{e}\nfrom:\n{markdown}")))?;
                prop_assert_eq!(read.to_markdown(), first, "from:\n{}", markdown);
            }
            Ok(())
        })
        .unwrap();
}
