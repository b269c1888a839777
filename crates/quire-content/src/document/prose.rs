//! The prose of a document — what a translator translates — apart from
//! everything that must stay as written: code blocks and inline code,
//! link and image targets, formulas, block tags and their attributes,
//! front matter, includes and OpenAPI blocks.
//!
//! [`Document::prose`] lists the texts in reading order (each without its
//! surrounding spaces, which stay in place); [`Document::set_prose`] puts
//! translations back in the same order. Texts without a letter (numbers,
//! punctuation) are not listed.

use super::model::{Block, Document, Inline};

/// Visits every translatable text, in reading order.
fn visit_blocks(blocks: &mut [Block], f: &mut dyn FnMut(&mut String)) {
    for block in blocks {
        match block {
            Block::Paragraph(content) => visit_inlines(content, f),
            Block::Heading(heading) => visit_inlines(&mut heading.content, f),
            Block::List(list) => list.items.iter_mut().for_each(|i| visit_blocks(&mut i.blocks, f)),
            Block::Quote(blocks) => visit_blocks(blocks, f),
            Block::Hint(hint) => visit_blocks(&mut hint.blocks, f),
            Block::Container(container) => visit_blocks(&mut container.blocks, f),
            Block::Tabs(tabs) => {
                for tab in tabs {
                    f(&mut tab.title);
                    visit_blocks(&mut tab.blocks, f);
                }
            }
            Block::Expandable(expandable) => {
                visit_inlines(&mut expandable.title, f);
                visit_blocks(&mut expandable.blocks, f);
            }
            Block::Images(images) => {
                for image in images {
                    f(&mut image.alt);
                    f(&mut image.caption);
                }
            }
            Block::Table(table) => {
                for column in &mut table.columns {
                    f(&mut column.title);
                }
                for cell in table.rows.iter_mut().flatten() {
                    visit_inlines(cell, f);
                }
            }
            Block::Code(_)
            | Block::ContentRef { .. }
            | Block::Include { .. }
            | Block::Divider
            | Block::Embed { .. }
            | Block::Math { .. }
            | Block::Html(_)
            | Block::OpenApiOperation(_)
            | Block::OpenApiSchemas(_) => {}
        }
    }
}

fn visit_inlines(content: &mut [Inline], f: &mut dyn FnMut(&mut String)) {
    for inline in content {
        match inline {
            Inline::Text { text, marks } if !marks.code => f(text),
            Inline::Link { content, .. } => visit_inlines(content, f),
            Inline::Image(image) => f(&mut image.alt),
            _ => {}
        }
    }
}

/// Whether a text holds anything to translate.
fn has_words(text: &str) -> bool {
    text.chars().any(char::is_alphabetic)
}

impl Document {
    /// The texts to translate, in reading order, trimmed.
    pub fn prose(&self) -> Vec<String> {
        let mut copy = self.clone();
        let mut out = Vec::new();
        visit_blocks(&mut copy.blocks, &mut |text| {
            if has_words(text) {
                out.push(text.trim().to_owned());
            }
        });
        out
    }

    /// Puts `texts` (translations of [`Document::prose`], same order) back;
    /// the spaces around each original text stay.
    pub fn set_prose(&mut self, texts: &[String]) {
        let mut next = texts.iter();
        visit_blocks(&mut self.blocks, &mut |text| {
            if !has_words(text) {
                return;
            }
            let Some(translated) = next.next() else { return };
            let leading = &text[..text.len() - text.trim_start().len()];
            let trailing = &text[text.trim_end().len()..];
            *text = format!("{leading}{}{trailing}", translated.trim());
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Document;

    #[test]
    fn only_prose_is_listed_and_put_back() {
        let markdown = "# Install the `quire` binary\n\nRun it with **care** and read [the guide](https://example.com/guide).\n\n```bash\nquire serve # start\n```\n\n| Flag | Meaning |\n| --- | --- |\n| `--listen` | address |\n\n{% hint style=\"info\" %}\nA hint.\n{% endhint %}\n\n42\n";
        let doc = Document::from_markdown(markdown);
        let prose = doc.prose();
        assert_eq!(
            prose,
            [
                "Install the",
                "binary",
                "Run it with",
                "care",
                "and read",
                "the guide",
                ".",
                "Flag",
                "Meaning",
                "address",
                "A hint."
            ]
            .iter()
            .filter(|t| t.chars().any(char::is_alphabetic))
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
        );
        let upper: Vec<String> = prose.iter().map(|t| t.to_uppercase()).collect();
        let mut translated = doc.clone();
        translated.set_prose(&upper);
        let out = translated.to_markdown();
        assert!(out.starts_with("# INSTALL THE `quire` BINARY\n"), "{out}");
        assert!(
            out.contains("RUN IT WITH **CARE** AND READ [THE GUIDE](https://example.com/guide)."),
            "{out}"
        );
        assert!(out.contains("```bash\nquire serve # start\n```"), "code stays: {out}");
        assert!(out.contains("| `--listen` | ADDRESS |"), "{out}");
        assert!(
            out.contains("{% hint style=\"info\" %}\nA HINT.\n{% endhint %}"),
            "{out}"
        );
        assert!(out.contains("\n42\n"));
    }
}
