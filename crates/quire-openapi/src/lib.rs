//! OpenAPI documents for Quire, without I/O: [`parse`] reads a document
//! (JSON or YAML, OpenAPI 3.0 or 3.1) and checks what Quire relies on;
//! [`Spec::operation`] reads one operation with its parameters, request
//! body and responses, local `$ref`s resolved and schemas unfolded to a
//! bounded depth (recursive schemas stop where they repeat), ready to
//! render on a page, a published site or a PDF.

use serde_json::{Map, Value};

/// A parsed OpenAPI document.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub document: Value,
    /// `3.0.3`, `3.1.0`…
    pub version: String,
    pub title: String,
}

/// Why a document is not one Quire can use; the message says where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// The HTTP methods an operation may have, in display order.
pub const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// Reads a document: JSON when it starts with `{`, YAML otherwise.
pub fn parse(text: &str) -> Result<Spec, ParseError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let document: Value = if trimmed.starts_with('{') {
        serde_json::from_str(trimmed).map_err(|e| ParseError(format!("JSON: {e}")))?
    } else {
        quire_core::yaml::check_nesting(trimmed, quire_core::yaml::MAX_FLOW_DEPTH)
            .map_err(|e| ParseError(format!("YAML: {e}")))?;
        serde_norway::from_str(trimmed).map_err(|e| ParseError(format!("YAML: {e}")))?
    };
    let Some(object) = document.as_object() else {
        return Err(ParseError("an OpenAPI document is an object".into()));
    };
    let version = match object.get("openapi") {
        Some(Value::String(v)) if v.starts_with("3.") => v.clone(),
        Some(Value::String(v)) => return Err(ParseError(format!("OpenAPI {v} is not supported: use 3.0 or 3.1"))),
        _ if object.contains_key("swagger") => {
            return Err(ParseError(
                "Swagger 2.0 is not supported: use OpenAPI 3.0 or 3.1".into(),
            ));
        }
        _ => return Err(ParseError("`openapi` (the version, 3.0 or 3.1) is missing".into())),
    };
    let title = object
        .get("info")
        .and_then(|i| i.get("title"))
        .and_then(Value::as_str)
        .ok_or_else(|| ParseError("`info.title` is missing".into()))?
        .to_owned();
    match object.get("paths") {
        None | Some(Value::Object(_)) => {}
        Some(_) => return Err(ParseError("`paths` must be an object".into())),
    }
    if object.get("paths").is_none() && object.get("webhooks").is_none() && object.get("components").is_none() {
        return Err(ParseError(
            "the document has no `paths`, `webhooks` or `components`".into(),
        ));
    }
    Ok(Spec {
        document,
        version,
        title,
    })
}

/// An operation as a page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub method: String,
    pub path: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    pub parameters: Vec<Parameter>,
    pub request_body: Option<Body>,
    pub responses: Vec<Response>,
    /// Servers the operation is called on (the first one is shown).
    pub servers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    /// `path`, `query`, `header` or `cookie`.
    pub location: String,
    pub required: bool,
    pub description: Option<String>,
    pub schema: Schema,
}

/// A request or response body: its description and one schema per media
/// type.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub description: Option<String>,
    pub required: bool,
    pub content: Vec<Media>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Media {
    pub media_type: String,
    pub schema: Option<Schema>,
    /// An example, from the media type or its schema.
    pub example: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// `200`, `4XX`, `default`…
    pub status: String,
    pub description: Option<String>,
    pub content: Vec<Media>,
}

/// A schema unfolded for reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    /// `string`, `integer (int64)`, `array of object`, `one of`, `User`…
    pub label: String,
    pub description: Option<String>,
    pub properties: Vec<Property>,
    /// The schema of an array's items.
    pub items: Option<Box<Schema>>,
    /// The alternatives of `oneOf` / `anyOf`.
    pub variants: Vec<Schema>,
    pub enum_values: Vec<Value>,
    pub example: Option<Value>,
    /// Not unfolded further: a schema that refers to itself, or too deep.
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub required: bool,
    pub schema: Schema,
}

/// How deep schemas are unfolded.
const MAX_DEPTH: usize = 8;

impl Spec {
    /// A local reference (`#/components/schemas/User`), followed.
    fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        let mut current = value;
        for _ in 0..16 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                return current;
            };
            match reference
                .strip_prefix('#')
                .and_then(|p| self.document.pointer(&decode_pointer(p)))
            {
                Some(target) => current = target,
                None => return current,
            }
        }
        current
    }

    /// Every operation: `(path, method, summary)`, in document order.
    pub fn operations(&self) -> Vec<(String, String, Option<String>)> {
        let mut out = Vec::new();
        if let Some(paths) = self.document.get("paths").and_then(Value::as_object) {
            for (path, item) in paths {
                let item = self.resolve(item);
                for method in METHODS {
                    if let Some(op) = item.get(method) {
                        let summary = op.get("summary").and_then(Value::as_str).map(str::to_owned);
                        out.push((path.clone(), method.to_owned(), summary));
                    }
                }
            }
        }
        out
    }

    /// A schema of the spec's components by name (`Pet` is
    /// `#/components/schemas/Pet`), unfolded for reading.
    pub fn component_schema(&self, name: &str) -> Option<Schema> {
        let raw = self.document.get("components")?.get("schemas")?.get(name)?;
        let mut schema = self.schema(raw, 0, &mut Vec::new());
        if schema.label.is_empty() || schema.label == "object" {
            schema.label = name.to_owned();
        }
        Some(schema)
    }

    /// The operation at `path` and `method` (any case).
    pub fn operation(&self, path: &str, method: &str) -> Option<Operation> {
        let method = method.to_ascii_lowercase();
        let item = self.resolve(self.document.get("paths")?.get(path)?);
        let op = item.get(&method)?;
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        // Path-level parameters apply unless the operation overrides them.
        let mut parameters: Vec<Parameter> = Vec::new();
        for source in [op.get("parameters"), item.get("parameters")].into_iter().flatten() {
            for raw in source.as_array().into_iter().flatten() {
                let p = self.resolve(raw);
                let (Some(name), Some(location)) = (text(p, "name"), text(p, "in")) else {
                    continue;
                };
                if parameters.iter().any(|q| q.name == name && q.location == location) {
                    continue;
                }
                let schema = p
                    .get("schema")
                    .map(|s| self.schema(s, 0, &mut Vec::new()))
                    .unwrap_or_default();
                parameters.push(Parameter {
                    required: p.get("required").and_then(Value::as_bool).unwrap_or(location == "path"),
                    description: text(p, "description"),
                    name,
                    location,
                    schema,
                });
            }
        }
        let request_body = op.get("requestBody").map(|b| {
            let b = self.resolve(b);
            Body {
                description: text(b, "description"),
                required: b.get("required").and_then(Value::as_bool).unwrap_or(false),
                content: self.content(b),
            }
        });
        let mut responses = Vec::new();
        if let Some(map) = op.get("responses").and_then(Value::as_object) {
            for (status, r) in map {
                let r = self.resolve(r);
                responses.push(Response {
                    status: status.clone(),
                    description: text(r, "description"),
                    content: self.content(r),
                });
            }
        }
        let servers = op
            .get("servers")
            .or_else(|| item.get("servers"))
            .or_else(|| self.document.get("servers"))
            .and_then(Value::as_array)
            .map(|s| s.iter().filter_map(|x| text(x, "url")).collect())
            .unwrap_or_default();
        Some(Operation {
            method,
            path: path.to_owned(),
            summary: text(op, "summary"),
            description: text(op, "description"),
            deprecated: op.get("deprecated").and_then(Value::as_bool).unwrap_or(false),
            parameters,
            request_body,
            responses,
            servers,
        })
    }

    fn content(&self, holder: &Value) -> Vec<Media> {
        let Some(map) = holder.get("content").and_then(Value::as_object) else {
            return Vec::new();
        };
        map.iter()
            .map(|(media_type, m)| {
                let schema = m.get("schema").map(|s| self.schema(s, 0, &mut Vec::new()));
                let example = m
                    .get("example")
                    .cloned()
                    .or_else(|| {
                        m.get("examples")
                            .and_then(Value::as_object)
                            .and_then(|e| e.values().next())
                            .map(|e| self.resolve(e))
                            .and_then(|e| e.get("value").cloned())
                    })
                    .or_else(|| schema.as_ref().and_then(|s| s.example.clone()));
                Media {
                    media_type: media_type.clone(),
                    schema,
                    example,
                }
            })
            .collect()
    }

    /// A schema unfolded; `seen` holds the references being unfolded (a
    /// schema that refers to itself stops there).
    fn schema(&self, raw: &Value, depth: usize, seen: &mut Vec<String>) -> Schema {
        let reference = raw.get("$ref").and_then(Value::as_str).map(str::to_owned);
        let name = reference
            .as_deref()
            .and_then(|r| r.rsplit('/').next())
            .map(str::to_owned);
        if let Some(r) = &reference
            && (seen.contains(r) || depth >= MAX_DEPTH)
        {
            return Schema {
                label: name.unwrap_or_else(|| "object".into()),
                truncated: true,
                ..Schema::default()
            };
        }
        if depth >= MAX_DEPTH {
            return Schema {
                label: "object".into(),
                truncated: true,
                ..Schema::default()
            };
        }
        if let Some(r) = &reference {
            seen.push(r.clone());
        }
        let s = self.resolve(raw);
        let text = |key: &str| s.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut out = Schema {
            description: text("description"),
            enum_values: s.get("enum").and_then(Value::as_array).cloned().unwrap_or_default(),
            example: s.get("example").cloned().or_else(|| {
                s.get("examples")
                    .and_then(Value::as_array)
                    .and_then(|e| e.first().cloned())
            }),
            ..Schema::default()
        };
        // 3.1 writes `type: [string, "null"]`, 3.0 `nullable: true`.
        let types: Vec<String> = match s.get("type") {
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let nullable = s.get("nullable").and_then(Value::as_bool).unwrap_or(false) || types.iter().any(|t| t == "null");
        let main: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
        let mut required: Vec<String> = Vec::new();
        let mut properties: Map<String, Value> = Map::new();
        let mut merge = |schema: &Value, required: &mut Vec<String>| {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    properties.insert(k.clone(), v.clone());
                }
            }
            required.extend(
                schema
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned),
            );
        };
        merge(s, &mut required);
        // `allOf` parts merge into one object.
        for part in s.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            merge(self.resolve(part), &mut required);
        }
        for (key, label) in [("oneOf", "one of"), ("anyOf", "any of")] {
            if let Some(variants) = s.get(key).and_then(Value::as_array) {
                out.variants = variants.iter().map(|v| self.schema(v, depth + 1, seen)).collect();
                out.label = label.into();
            }
        }
        for (name, prop) in &properties {
            out.properties.push(Property {
                name: name.clone(),
                required: required.contains(name),
                schema: self.schema(prop, depth + 1, seen),
            });
        }
        if let Some(items) = s.get("items") {
            out.items = Some(Box::new(self.schema(items, depth + 1, seen)));
        }
        if out.label.is_empty() {
            out.label = match main.first().map(|t| t.as_str()) {
                Some("array") => format!(
                    "array of {}",
                    out.items.as_ref().map_or("any".to_owned(), |i| i.label.clone())
                ),
                Some(t) => match text("format") {
                    Some(format) => format!("{t} ({format})"),
                    None => t.to_owned(),
                },
                None if !out.properties.is_empty() => "object".into(),
                None => "any".into(),
            };
            if let Some(name) = &name
                && (main.first().map(|t| t.as_str()) == Some("object") || main.is_empty())
                && !out.properties.is_empty()
            {
                out.label = name.clone();
            }
        }
        if nullable {
            out.label.push_str(" | null");
        }
        if reference.is_some() {
            seen.pop();
        }
        out
    }
}

/// A JSON pointer from a `$ref` fragment (`/components/schemas/A~1B`).
fn decode_pointer(fragment: &str) -> String {
    let mut out = String::with_capacity(fragment.len());
    let bytes = fragment.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = fragment.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b as char);
            i += 3;
            continue;
        }
        out.push(bytes[i] as char);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 400 KB line of brackets is refused at once (a YAML parser takes
    /// minutes over it before its own depth limit).
    #[test]
    fn deeply_nested_yaml_is_refused_before_parsing() {
        let text = format!("openapi: 3.1.0\nx: {}{}", "[".repeat(200_000), "]".repeat(200_000));
        let err = parse(&text).map(|_| ()).unwrap_err();
        assert!(err.0.contains("nested deeper than"), "{}", err.0);
    }

    const PETSTORE: &str = r##"
openapi: 3.1.0
info:
  title: Pet store
  version: 1.0.0
servers:
  - url: https://api.pets.example/v1
paths:
  /pets/{petId}:
    parameters:
      - name: petId
        in: path
        description: The pet's id
        schema: { type: string }
    get:
      summary: Find a pet
      parameters:
        - name: expand
          in: query
          schema: { type: array, items: { type: string, enum: [owner, vet] } }
      responses:
        "200":
          description: The pet
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Pet" }
              example: { id: "p1", name: "Rex" }
        "404":
          $ref: "#/components/responses/NotFound"
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              allOf:
                - $ref: "#/components/schemas/Pet"
                - type: object
                  required: [age]
                  properties: { age: { type: integer, format: int32 } }
      responses:
        "201": { description: Created }
components:
  responses:
    NotFound: { description: No such pet }
  schemas:
    Pet:
      type: object
      required: [id]
      properties:
        id: { type: string }
        name: { type: [string, "null"] }
        parent: { $ref: "#/components/schemas/Pet" }
        tags: { type: array, items: { $ref: "#/components/schemas/Tag" } }
    Tag:
      type: object
      properties: { label: { type: string } }
"##;

    #[test]
    fn operations_are_read_with_references_resolved() {
        let spec = parse(PETSTORE).unwrap();
        assert_eq!(spec.title, "Pet store");
        assert_eq!(spec.version, "3.1.0");
        assert_eq!(spec.operations().len(), 2);
        let get = spec.operation("/pets/{petId}", "GET").unwrap();
        assert_eq!(get.summary.as_deref(), Some("Find a pet"));
        assert_eq!(get.servers, ["https://api.pets.example/v1"]);
        let names: Vec<(&str, &str, bool)> = get
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p.location.as_str(), p.required))
            .collect();
        assert_eq!(names, [("expand", "query", false), ("petId", "path", true)]);
        assert_eq!(get.parameters[0].schema.label, "array of string");
        assert_eq!(get.responses[1].description.as_deref(), Some("No such pet"));
        let pet = get.responses[0].content[0].schema.as_ref().unwrap();
        assert_eq!(pet.label, "Pet");
        assert_eq!(get.responses[0].content[0].example.as_ref().unwrap()["name"], "Rex");
        let by_name = |n: &str| pet.properties.iter().find(|p| p.name == n).unwrap();
        assert!(by_name("id").required);
        assert_eq!(by_name("name").schema.label, "string | null");
        assert!(by_name("parent").schema.truncated, "recursion stops");
        assert_eq!(by_name("tags").schema.label, "array of Tag");
        let post = spec.operation("/pets/{petId}", "post").unwrap();
        let body = post.request_body.unwrap();
        assert!(body.required);
        let merged = body.content[0].schema.as_ref().unwrap();
        let props: Vec<&str> = merged.properties.iter().map(|p| p.name.as_str()).collect();
        assert!(props.contains(&"id") && props.contains(&"age"), "{props:?}");
        assert_eq!(
            merged.properties.iter().find(|p| p.name == "age").unwrap().schema.label,
            "integer (int32)"
        );
        assert!(spec.operation("/nope", "get").is_none());
    }

    #[test]
    fn what_is_not_openapi_3_is_refused_with_a_reason() {
        assert!(parse("{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"T\"}, \"paths\": {}}").is_ok());
        for (text, why) in [
            ("swagger: '2.0'\ninfo: { title: T }\npaths: {}\n", "Swagger"),
            ("openapi: 4.0.0\ninfo: { title: T }\npaths: {}\n", "4.0.0"),
            ("info: { title: T }\n", "missing"),
            ("{ not json", "JSON"),
            ("openapi: 3.0.0\ninfo: [oops\n", "YAML"),
            ("openapi: 3.0.0\npaths: {}\n", "info.title"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.0.contains(why), "{text}: {err}");
        }
    }
}
