//! OpenAPI operations as HTML: method and path, summary and description,
//! parameters, request body, responses, schemas with their nesting and
//! examples. Used for operation blocks on pages and for the public
//! reference of a spec. Pure, like [`crate::render`].

use quire_openapi::{Body, Media, Operation, Schema, Spec};

use crate::html::{escape, push_escaped};

/// One operation, as a section of a page.
pub fn operation(op: &Operation) -> String {
    let mut out = String::with_capacity(2048);
    let method = op.method.to_ascii_uppercase();
    out.push_str(&format!(
        "<section class=\"openapi\"><p class=\"endpoint\"><span class=\"method method-{}\">{}</span> <code>",
        escape(&op.method),
        escape(&method)
    ));
    if let Some(server) = op.servers.first() {
        push_escaped(&mut out, server.trim_end_matches('/'));
    }
    push_escaped(&mut out, &op.path);
    out.push_str("</code>");
    if op.deprecated {
        out.push_str(" <span class=\"deprecated\">deprecated</span>");
    }
    out.push_str("</p>");
    if let Some(summary) = &op.summary {
        out.push_str("<p class=\"summary\"><strong>");
        push_escaped(&mut out, summary);
        out.push_str("</strong></p>");
    }
    if let Some(description) = &op.description {
        paragraph(&mut out, description);
    }
    if !op.parameters.is_empty() {
        out.push_str("<h4>Parameters</h4><div class=\"table\"><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>");
        for p in &op.parameters {
            out.push_str("<tr><td><code>");
            push_escaped(&mut out, &p.name);
            out.push_str("</code>");
            if p.required {
                out.push_str(" <span class=\"required\">required</span>");
            }
            out.push_str("</td><td>");
            push_escaped(&mut out, &p.location);
            out.push_str("</td><td>");
            push_escaped(&mut out, &p.schema.label);
            out.push_str("</td><td>");
            push_escaped(
                &mut out,
                p.description
                    .as_deref()
                    .or(p.schema.description.as_deref())
                    .unwrap_or(""),
            );
            out.push_str("</td></tr>");
        }
        out.push_str("</tbody></table></div>");
    }
    if let Some(body) = &op.request_body {
        out.push_str("<h4>Request body</h4>");
        body_html(&mut out, body);
    }
    if !op.responses.is_empty() {
        out.push_str("<h4>Responses</h4>");
        for r in &op.responses {
            out.push_str(&format!(
                "<details class=\"response\"><summary><code>{}</code> ",
                escape(&r.status)
            ));
            push_escaped(&mut out, r.description.as_deref().unwrap_or(""));
            out.push_str("</summary>");
            for media in &r.content {
                media_html(&mut out, media);
            }
            out.push_str("</details>");
        }
    }
    out.push_str("</section>\n");
    out
}

/// Every operation of a spec, for its public reference.
pub fn reference(spec: &Spec) -> String {
    let mut out = String::new();
    for (path, method, _) in spec.operations() {
        if let Some(op) = spec.operation(&path, &method) {
            out.push_str(&format!(
                "<h2 id=\"{}\">",
                escape(&format!(
                    "{method}-{}",
                    path.trim_matches('/').replace(['/', '{', '}'], "-")
                ))
            ));
            push_escaped(
                &mut out,
                op.summary
                    .as_deref()
                    .unwrap_or(&format!("{} {}", method.to_ascii_uppercase(), path)),
            );
            out.push_str("</h2>");
            out.push_str(&operation(&op));
        }
    }
    out
}

fn paragraph(out: &mut String, text: &str) {
    for part in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        out.push_str("<p>");
        push_escaped(out, part.trim());
        out.push_str("</p>");
    }
}

fn body_html(out: &mut String, body: &Body) {
    if let Some(description) = &body.description {
        paragraph(out, description);
    }
    if body.required {
        out.push_str("<p class=\"required\">required</p>");
    }
    for media in &body.content {
        media_html(out, media);
    }
}

fn media_html(out: &mut String, media: &Media) {
    out.push_str("<p class=\"media\"><code>");
    push_escaped(out, &media.media_type);
    out.push_str("</code></p>");
    if let Some(schema) = &media.schema {
        schema_html(out, schema);
    }
    if let Some(example) = &media.example {
        out.push_str("<pre class=\"example\"><code>");
        push_escaped(out, &serde_json::to_string_pretty(example).unwrap_or_default());
        out.push_str("</code></pre>");
    }
}

/// Named schemas of a spec (an `openapi-schemas` block): each with its
/// name as a heading, then its properties.
pub fn schemas(named: &[(String, Schema)]) -> String {
    let mut out = String::from("<section class=\"openapi schemas\">");
    for (name, schema) in named {
        out.push_str("<h4>");
        push_escaped(&mut out, &format!("The {name} object"));
        out.push_str("</h4>");
        schema_html(&mut out, schema);
    }
    out.push_str("</section>\n");
    out
}

/// A schema as nested lists of its properties.
fn schema_html(out: &mut String, schema: &Schema) {
    out.push_str("<div class=\"schema\"><code>");
    push_escaped(out, &schema.label);
    out.push_str("</code>");
    if let Some(description) = &schema.description {
        out.push_str(" — ");
        push_escaped(out, description);
    }
    if !schema.enum_values.is_empty() {
        out.push_str(" <span class=\"enum\">one of ");
        let values: Vec<String> = schema.enum_values.iter().map(|v| v.to_string()).collect();
        push_escaped(out, &values.join(", "));
        out.push_str("</span>");
    }
    let shown = if schema.properties.is_empty() {
        schema.items.as_deref().filter(|i| !i.properties.is_empty())
    } else {
        Some(schema)
    };
    if let Some(holder) = shown {
        out.push_str("<ul>");
        for property in &holder.properties {
            out.push_str("<li><code>");
            push_escaped(out, &property.name);
            out.push_str("</code>");
            if property.required {
                out.push_str(" <span class=\"required\">required</span>");
            }
            out.push(' ');
            schema_html(out, &property.schema);
            out.push_str("</li>");
        }
        out.push_str("</ul>");
    }
    for variant in &schema.variants {
        out.push_str("<div class=\"variant\">");
        schema_html(out, variant);
        out.push_str("</div>");
    }
    out.push_str("</div>");
}
