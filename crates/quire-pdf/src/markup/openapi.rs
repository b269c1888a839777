//! OpenAPI blocks as Typst: an operation with its parameters, bodies and
//! responses, and schemas as nested lists.

use quire_content::document::{Document, OpenApiOperation};
use quire_openapi::{Body, Media, Operation, Schema};

use super::Writer;

impl Writer<'_> {
    pub(super) fn operation(&mut self, pointer: &OpenApiOperation) {
        let Some(operation) = self.book.operations.get(pointer) else {
            self.out.push_str("#hint(luma(120))[");
            let missing = format!(
                "{} {} (an operation of the OpenAPI spec \u{201c}{}\u{201d}, not available)",
                pointer.method.to_uppercase(),
                pointer.path,
                pointer.spec
            );
            self.text(&missing);
            self.out.push_str("]\n\n");
            return;
        };
        self.operation_body(operation);
    }

    pub(super) fn operation_body(&mut self, op: &Operation) {
        self.out
            .push_str("#block(breakable: true, width: 100%, inset: 10pt, radius: 3pt, stroke: 0.6pt + luma(190))[");
        self.out.push_str("#method(");
        self.string(&op.method.to_uppercase());
        self.out.push_str(") ");
        let server = op.servers.first().cloned().unwrap_or_default();
        self.out.push_str("#raw(");
        self.string(&format!("{server}{}", op.path));
        self.out.push(')');
        if op.deprecated {
            self.out
                .push_str(" #text(fill: rgb(\"#dc2626\"), size: 9pt)[deprecated]");
        }
        self.out.push_str("\n\n");
        if let Some(summary) = op.summary.as_deref() {
            self.out.push_str("#strong[");
            self.text(summary);
            self.out.push_str("]\n\n");
        }
        if let Some(description) = op.description.as_deref() {
            self.prose(description);
        }
        if !op.parameters.is_empty() {
            self.out.push_str("#text(weight: \"bold\")[Parameters]\n\n#table(columns: (auto, auto, auto, 1fr), table.header([Name], [In], [Type], [Description])");
            for parameter in &op.parameters {
                self.out.push_str(", [#raw(");
                self.string(&parameter.name);
                self.out.push(')');
                if parameter.required {
                    self.out.push_str("#text(fill: rgb(\"#dc2626\"))[\\*]");
                }
                self.out.push_str("], [");
                self.text(&parameter.location);
                self.out.push_str("], [");
                self.text(&parameter.schema.label);
                self.out.push_str("], [");
                self.text(parameter.description.as_deref().unwrap_or(""));
                self.out.push(']');
            }
            self.out.push_str(")\n\n");
        }
        if let Some(body) = &op.request_body {
            self.out.push_str("#text(weight: \"bold\")[Request body");
            if body.required {
                self.out.push_str(" (required)");
            }
            self.out.push_str("]\n\n");
            self.body(body);
        }
        if !op.responses.is_empty() {
            self.out.push_str("#text(weight: \"bold\")[Responses]\n\n");
            for response in &op.responses {
                self.out.push_str("#strong[");
                self.text(&response.status);
                self.out.push_str("] ");
                self.text(response.description.as_deref().unwrap_or(""));
                self.out.push_str("\n\n");
                for media in &response.content {
                    self.media(media);
                }
            }
        }
        self.out.push_str("]\n\n");
    }

    /// Markdown from a spec, as paragraphs of plain text.
    pub(super) fn prose(&mut self, markdown: &str) {
        let document = Document::from_markdown(markdown);
        let saved = self.including;
        // Headings of a description carry no labels of ours.
        self.including = true;
        self.blocks(&document.blocks);
        self.including = saved;
    }

    pub(super) fn body(&mut self, body: &Body) {
        if let Some(description) = body.description.as_deref() {
            self.prose(description);
        }
        for media in &body.content {
            self.media(media);
        }
    }

    pub(super) fn media(&mut self, media: &Media) {
        self.out.push_str("#text(size: 9pt, fill: luma(90))[");
        self.text(&media.media_type);
        self.out.push_str("]\n\n");
        if let Some(schema) = &media.schema {
            self.schema(schema, 0);
        }
        if let Some(example) = &media.example {
            let text = serde_json::to_string_pretty(example).unwrap_or_default();
            self.out.push_str("#raw(block: true, lang: \"json\", ");
            self.string(&text);
            self.out.push_str(")\n\n");
        }
    }

    pub(super) fn schema(&mut self, schema: &Schema, depth: usize) {
        if depth > 8 {
            return;
        }
        if !schema.properties.is_empty() {
            self.out.push_str("#list(tight: true");
            for property in &schema.properties {
                self.out.push_str(", [#raw(");
                self.string(&property.name);
                self.out.push(')');
                if property.required {
                    self.out.push_str("#text(fill: rgb(\"#dc2626\"))[\\*]");
                }
                self.out.push_str(" #text(fill: luma(90))[");
                self.text(&property.schema.label);
                self.out.push(']');
                if let Some(description) = property.schema.description.as_deref() {
                    self.out.push_str(" — ");
                    self.text(description);
                }
                if !property.schema.enum_values.is_empty() {
                    let values: Vec<String> = property.schema.enum_values.iter().map(|v| v.to_string()).collect();
                    self.out.push_str(" #text(size: 9pt)[");
                    self.text(&format!("one of {}", values.join(", ")));
                    self.out.push(']');
                }
                self.out.push('\n');
                self.schema(&property.schema, depth + 1);
                self.out.push(']');
            }
            self.out.push_str(")\n");
        }
        if let Some(items) = &schema.items {
            self.schema(items, depth + 1);
        }
        for variant in &schema.variants {
            self.out.push_str("#text(size: 9pt)[");
            self.text(&format!("one of: {}", variant.label));
            self.out.push_str("]\n");
            self.schema(variant, depth + 1);
        }
    }
}
