//! Adaptive content: the JSON Schema (draft-07) of the claims a site's
//! visitors carry, and the ready-made conditions it suggests.
//!
//! The schema must be an object schema of claims, each with a description
//! (booleans, strings, numbers, arrays and objects of them), the claims a
//! visitor may set themselves grouped under `unsigned`, with no additional
//! properties; it is checked with the `jsonschema` validator against the
//! official shape (`SiteAdaptiveJSONSchema`) before it is stored.

use quire_core::Timestamp;
use quire_store::sites;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use quire_app::access;
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller};

/// A site's adaptive schema and when it last changed.
#[derive(Debug, Clone)]
pub struct AdaptiveSchema {
    pub json_schema: Value,
    pub updated_at: Timestamp,
}

/// The schema a site starts with: no claims.
fn empty_schema() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "unsigned": {
                "type": "object",
                "description": UNSIGNED_DESCRIPTION,
                "properties": {},
                "additionalProperties": false
            }
        },
        "additionalProperties": false
    })
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<AdaptiveSchema> {
    let mut conn = app.db.read().await?;
    let (site, _) = access::site(&mut conn, caller, org_id, site_id).await?;
    Ok(match site.adaptive_schema {
        Some(text) => AdaptiveSchema {
            json_schema: serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("stored adaptive schema: {e}"))?,
            updated_at: site.adaptive_updated_at.unwrap_or(site.created_at),
        },
        None => AdaptiveSchema {
            json_schema: empty_schema(),
            updated_at: site.created_at,
        },
    })
}

/// The input of `PUT .../adaptive-schema`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SchemaInput {
    pub json_schema: Value,
}

/// The description the `unsigned` group always carries.
const UNSIGNED_DESCRIPTION: &str = "Unsigned claims of the site visitor.";

/// The shape an adaptive schema must have, as the official API defines it
/// (`SiteAdaptiveJSONSchema` and the claim schemas it refers to): an object
/// schema without additional properties whose properties are claims —
/// booleans, strings (with or without an `enum`), numbers, arrays of those,
/// or objects of claims — each with a description; `unsigned` groups the
/// claims a visitor may set themselves.
fn shape() -> Value {
    let string = |values: &[&str]| json!({ "type": "string", "enum": values });
    let closed = json!({ "type": "boolean", "enum": [false] });
    json!({
        "type": "object",
        "required": ["type", "properties", "additionalProperties"],
        "additionalProperties": false,
        "properties": {
            "$schema": string(&["http://json-schema.org/draft-07/schema#"]),
            "type": string(&["object"]),
            "additionalProperties": closed,
            "properties": {
                "type": "object",
                "properties": {
                    "unsigned": {
                        "type": "object",
                        "required": ["type", "description", "properties", "additionalProperties"],
                        "properties": {
                            "type": string(&["object"]),
                            "description": string(&[UNSIGNED_DESCRIPTION]),
                            "properties": { "type": "object", "additionalProperties": { "$ref": "#/definitions/claim" } },
                            "additionalProperties": closed
                        }
                    }
                },
                "additionalProperties": { "$ref": "#/definitions/claim" }
            }
        },
        "definitions": {
            "deterministic": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["type", "description"],
                        "additionalProperties": false,
                        "properties": { "type": string(&["boolean"]), "description": { "type": "string" } }
                    },
                    {
                        "type": "object",
                        "required": ["type", "enum", "description"],
                        "additionalProperties": false,
                        "properties": {
                            "type": string(&["string"]),
                            "enum": { "type": "array", "items": { "type": "string" } },
                            "description": { "type": "string" }
                        }
                    }
                ]
            },
            "primitive": {
                "oneOf": [
                    { "$ref": "#/definitions/deterministic" },
                    {
                        "type": "object",
                        "required": ["type", "description"],
                        "additionalProperties": false,
                        "properties": { "type": string(&["string"]), "description": { "type": "string" } }
                    },
                    {
                        "type": "object",
                        "required": ["type", "description"],
                        "additionalProperties": false,
                        "properties": { "type": string(&["number"]), "description": { "type": "string" } }
                    }
                ]
            },
            "claim": {
                "oneOf": [
                    { "$ref": "#/definitions/primitive" },
                    {
                        "type": "object",
                        "required": ["type", "description", "items"],
                        "additionalProperties": false,
                        "properties": {
                            "type": string(&["array"]),
                            "description": { "type": "string" },
                            "items": { "$ref": "#/definitions/primitive" }
                        }
                    },
                    {
                        "type": "object",
                        "required": ["type", "description", "properties", "additionalProperties"],
                        "additionalProperties": false,
                        "properties": {
                            "type": string(&["object"]),
                            "description": { "type": "string" },
                            "properties": { "type": "object", "additionalProperties": { "$ref": "#/definitions/claim" } },
                            "additionalProperties": closed
                        }
                    }
                ]
            }
        }
    })
}

/// Checks the schema against [`shape`] and completes what it may leave
/// out (`additionalProperties: false`, the `unsigned` description; `$id` is
/// not kept): the stored schema is always complete.
fn normalize(mut schema: Value) -> AppResult<Value> {
    if let Some(object) = schema.as_object_mut() {
        object.remove("$id");
        object.entry("additionalProperties").or_insert(json!(false));
        if let Some(unsigned) = object
            .get_mut("properties")
            .and_then(|p| p.get_mut("unsigned"))
            .and_then(Value::as_object_mut)
        {
            unsigned.entry("description").or_insert(json!(UNSIGNED_DESCRIPTION));
            unsigned.entry("additionalProperties").or_insert(json!(false));
        }
    }
    let validator = jsonschema::draft7::new(&shape()).map_err(|e| anyhow::anyhow!("adaptive schema shape: {e}"))?;
    if let Some(error) = validator.iter_errors(&schema).next() {
        let at = error.instance_path().to_string();
        return Err(AppError::invalid(format!(
            "jsonSchema{}: {error}",
            if at.is_empty() {
                String::new()
            } else {
                format!(" at {at}")
            }
        )));
    }
    Ok(schema)
}

pub async fn put(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    input: SchemaInput,
) -> AppResult<AdaptiveSchema> {
    let json_schema = normalize(input.json_schema)?;
    let mut tx = app.db.write().await?;
    let (mut site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    let now = app.now();
    site.adaptive_schema = Some(json_schema.to_string());
    site.adaptive_updated_at = Some(now);
    site.updated_at = now;
    sites::put_site(&mut tx, &site).await?;
    tx.commit().await?;
    Ok(AdaptiveSchema {
        json_schema,
        updated_at: now,
    })
}

/// A suggested condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateCondition {
    pub description: String,
    pub condition: String,
}

/// One condition per boolean claim of the schema: `visitor.claims.x ==
/// true` (or `visitor.claims.unsigned.x`), described as the claim is.
pub fn template_conditions(schema: &Value) -> Vec<TemplateCondition> {
    let mut out = Vec::new();
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let mut add = |path: String, definition: &Value| {
        if definition.get("type") == Some(&json!("boolean")) {
            let description = definition
                .get("description")
                .and_then(Value::as_str)
                .map_or_else(|| path.clone(), str::to_owned);
            out.push(TemplateCondition {
                description,
                condition: format!("visitor.claims.{path} == true"),
            });
        }
    };
    for (name, property) in properties {
        if name == "unsigned" {
            for (claim, definition) in property.get("properties").and_then(Value::as_object).unwrap_or(&empty) {
                add(format!("unsigned.{claim}"), definition);
            }
        } else {
            add(name.clone(), property);
        }
    }
    out
}

pub async fn template(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<Vec<TemplateCondition>> {
    let schema = get(app, caller, org_id, site_id).await?;
    Ok(template_conditions(&schema.json_schema))
}
