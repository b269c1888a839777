//! The contract check: every response body the tests receive is validated
//! against the official GitBook API spec (`@gitbook/api@0.202.0`) for the
//! operation and status code it answers.
//!
//! The spec comes from the npm package, fetched once with `npm pack` into
//! `target/` (or from `QUIRE_OPENAPI_SPEC` when set), so the project does not
//! depend on anything outside its own repository.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

const PACKAGE: &str = "@gitbook/api@0.202.0";

/// Operations our contract (the seed) lists but the official spec lacks:
/// `(method, path, schema of the 200 body)`. Their bodies are checked against
/// the official schema of what they return, or, where the official spec has
/// no such resource, against the seed's description written as a schema.
fn seed_only_operations() -> Vec<(&'static str, &'static str, Value)> {
    let links = json!({
        "allOf": [{ "$ref": "#/components/schemas/List" }, {
            "type": "object",
            "required": ["items", "stats"],
            "properties": {
                "items": { "type": "array", "items": {
                    "type": "object",
                    "required": ["status", "relation", "targetReference", "locationReferences"],
                    "properties": {
                        "status": { "enum": ["ok", "broken", "in-app"] },
                        "relation": { "type": "string" },
                        "targetReference": { "$ref": "#/components/schemas/ContentRef" },
                        "locationReferences": { "type": "array", "items": { "$ref": "#/components/schemas/ContentRef" } }
                    }
                } },
                "stats": {
                    "type": "object",
                    "required": ["total", "broken"],
                    "properties": {
                        "total": { "type": "number" },
                        "broken": {
                            "type": "object",
                            "required": ["total", "changeRequest"],
                            "properties": { "total": { "type": "number" }, "changeRequest": { "type": "number" } }
                        }
                    }
                }
            }
        }]
    });
    let backlinks = json!({
        "allOf": [{ "$ref": "#/components/schemas/List" }, {
            "type": "object",
            "required": ["items"],
            "properties": { "items": { "type": "array", "items": {
                "type": "object",
                "required": ["kind", "organization", "space", "versionContext", "file"],
                "properties": {
                    "kind": { "type": "string" },
                    "organization": { "type": "string" },
                    "space": { "type": "string" },
                    "versionContext": {
                        "type": "object",
                        "required": ["type"],
                        "properties": { "type": { "enum": ["revision", "changeRequest"] } }
                    },
                    "file": { "type": "string" }
                }
            } } }
        }]
    });
    let import_result = json!({
        "type": "object",
        "required": ["revision", "importedResources", "totalResources"],
        "additionalProperties": false,
        "properties": {
            "revision": { "type": "string" },
            "importedResources": { "type": "number" },
            "totalResources": { "type": "number" }
        }
    });
    vec![
        ("DELETE", "/spaces/{spaceId}/git/legacy-installation", json!({})),
        ("POST", "/spaces/{spaceId}/content/import", import_result.clone()),
        (
            "POST",
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/import",
            import_result,
        ),
        (
            "POST",
            "/spaces/{spaceId}/transfer",
            json!({ "$ref": "#/components/schemas/Space" }),
        ),
        ("GET", "/spaces/{spaceId}/links", links.clone()),
        ("GET", "/spaces/{spaceId}/content/page/{pageId}/links", links.clone()),
        (
            "GET",
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links",
            links,
        ),
        (
            "GET",
            "/spaces/{spaceId}/content/files/{fileId}/backlinks",
            backlinks.clone(),
        ),
        (
            "GET",
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks",
            backlinks,
        ),
        (
            "POST",
            "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections",
            json!({ "$ref": "#/components/schemas/SiteSectionGroup" }),
        ),
        (
            "DELETE",
            "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}",
            json!(null),
        ),
    ]
    .into_iter()
    .chain(quire_operations())
    .collect()
}

/// Quire's own operations (the official API has no webhooks), checked
/// against the shapes the README documents.
fn quire_operations() -> Vec<(&'static str, &'static str, Value)> {
    let time = json!({ "type": "string", "format": "date-time" });
    let webhook = json!({
        "type": "object",
        "required": ["object", "id", "url", "events", "active", "createdAt", "updatedAt"],
        "additionalProperties": false,
        "properties": {
            "object": { "const": "webhook" },
            "id": { "type": "string" },
            "url": { "type": "string" },
            "events": { "type": "array", "minItems": 1, "items": { "type": "string" } },
            "active": { "type": "boolean" },
            "createdAt": time,
            "updatedAt": time,
            "secret": { "type": "string", "minLength": 16 }
        }
    });
    let nullable = |schema: Value| json!({ "anyOf": [schema, { "type": "null" }] });
    let delivery = json!({
        "type": "object",
        "required": ["object", "id", "webhookId", "eventId", "eventType", "state", "attempts", "createdAt"],
        "additionalProperties": false,
        "properties": {
            "object": { "const": "webhook-delivery" },
            "id": { "type": "string" },
            "webhookId": { "type": "string" },
            "eventId": { "type": "string" },
            "eventType": { "type": "string" },
            "state": { "enum": ["pending", "delivered", "failed"] },
            "attempts": { "type": "integer", "minimum": 0 },
            "responseStatus": nullable(json!({ "type": "integer" })),
            "error": nullable(json!({ "type": "string" })),
            "durationMs": nullable(json!({ "type": "integer" })),
            "createdAt": time,
            "lastAttemptAt": nullable(time.clone()),
            "deliveredAt": nullable(time.clone()),
            "redeliveryOf": nullable(json!({ "type": "string" })),
            "event": { "type": "object", "required": ["eventId", "type", "organizationId", "createdAt"] }
        }
    });
    let list = |item: &Value| {
        json!({ "allOf": [{ "$ref": "#/components/schemas/List" }, {
            "type": "object", "required": ["items"],
            "properties": { "items": { "type": "array", "items": item } }
        }] })
    };
    let invitation = json!({
        "type": "object",
        "required": ["object", "id", "organization", "role", "invitedBy", "createdAt"],
        "additionalProperties": false,
        "properties": {
            "object": { "const": "invitation" },
            "id": { "type": "string" },
            "organization": {
                "type": "object",
                "required": ["id", "title"],
                "additionalProperties": false,
                "properties": { "id": { "type": "string" }, "title": { "type": "string" } }
            },
            "role": nullable(json!({ "$ref": "#/components/schemas/MemberRole" })),
            "invitedBy": nullable(json!({ "$ref": "#/components/schemas/User" })),
            "createdAt": time
        }
    });
    let pending_invite = json!({
        "type": "object",
        "required": ["object", "id", "email", "role", "invitedBy", "createdAt"],
        "additionalProperties": false,
        "properties": {
            "object": { "const": "invitation" },
            "id": { "type": "string" },
            "email": { "type": "string" },
            "role": nullable(json!({ "$ref": "#/components/schemas/MemberRole" })),
            "invitedBy": nullable(json!({ "$ref": "#/components/schemas/User" })),
            "createdAt": time
        }
    });
    vec![
        (
            "POST",
            "/spaces/{spaceId}/git/branches",
            json!({ "type": "object", "required": ["default", "items"], "additionalProperties": false, "properties": {
                "default": nullable(json!({ "type": "string" })),
                "items": { "type": "array", "items": { "type": "string" } } } }),
        ),
        ("GET", "/orgs/{organizationId}/invites", list(&pending_invite)),
        ("DELETE", "/orgs/{organizationId}/invites/{inviteId}", json!(null)),
        (
            "GET",
            "/user/invites",
            json!({ "type": "object", "required": ["items"], "properties": {
            "items": { "type": "array", "items": invitation } } }),
        ),
        ("DELETE", "/user/invites/{inviteId}", json!(null)),
        (
            "GET",
            "/user/audit-events",
            list(&json!({ "$ref": "#/components/schemas/AuditEventDetails" })),
        ),
        (
            "GET",
            "/user/audit-events/{auditEventId}",
            json!({ "$ref": "#/components/schemas/AuditEventDetails" }),
        ),
        ("GET", "/orgs/{organizationId}/webhooks", list(&webhook)),
        ("POST", "/orgs/{organizationId}/webhooks", webhook.clone()),
        ("GET", "/orgs/{organizationId}/webhooks/{webhookId}", webhook.clone()),
        ("PATCH", "/orgs/{organizationId}/webhooks/{webhookId}", webhook),
        ("DELETE", "/orgs/{organizationId}/webhooks/{webhookId}", json!(null)),
        (
            "GET",
            "/orgs/{organizationId}/webhooks/{webhookId}/deliveries",
            list(&delivery),
        ),
        (
            "GET",
            "/orgs/{organizationId}/webhooks/{webhookId}/deliveries/{deliveryId}",
            delivery.clone(),
        ),
        (
            "POST",
            "/orgs/{organizationId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
            delivery,
        ),
    ]
}

struct Operation {
    method: String,
    template: String,
    segments: Vec<Option<String>>,
    responses: Value,
}

pub struct Contract {
    spec: Value,
    operations: Vec<Operation>,
    validators: Mutex<HashMap<(String, String, u16), Arc<jsonschema::Validator>>>,
}

/// The contract, loaded once per test process.
pub fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| Contract::load(&spec_path()))
}

fn spec_path() -> PathBuf {
    if let Ok(path) = std::env::var("QUIRE_OPENAPI_SPEC") {
        return PathBuf::from(path);
    }
    // CARGO_TARGET_TMPDIR is <target>/tmp; keep the package beside it.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gitbook-api-0.202.0");
    let spec = dir.join("package/spec/openapi.json");
    if !spec.exists() {
        std::fs::create_dir_all(&dir).expect("create spec cache directory");
        let pack = Command::new("npm")
            .args(["pack", PACKAGE, "--silent", "--pack-destination"])
            .arg(&dir)
            .output()
            .expect("run `npm pack` (Node.js and npm are needed to fetch the official API spec)");
        assert!(
            pack.status.success(),
            "npm pack {PACKAGE} failed: {}",
            String::from_utf8_lossy(&pack.stderr)
        );
        let tarball = dir.join("gitbook-api-0.202.0.tgz");
        let untar = Command::new("tar")
            .arg("xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&dir)
            .status()
            .expect("run tar");
        assert!(untar.success(), "could not unpack {}", tarball.display());
    }
    spec
}

impl Contract {
    fn load(path: &Path) -> Contract {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let mut spec: Value = serde_json::from_str(&text).expect("the spec is JSON");
        relax(&mut spec);
        let mut operations = Vec::new();
        for (template, item) in spec["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                if !matches!(method.as_str(), "get" | "post" | "put" | "patch" | "delete") {
                    continue;
                }
                operations.push(Operation {
                    method: method.to_uppercase(),
                    template: template.clone(),
                    segments: segments(template),
                    responses: op["responses"].clone(),
                });
            }
        }
        for (method, template, schema) in seed_only_operations() {
            operations.push(Operation {
                method: method.to_owned(),
                template: template.to_owned(),
                segments: segments(template),
                responses: json!({
                    "200": { "content": { "application/json": { "schema": schema } } },
                    "201": { "content": { "application/json": { "schema": schema } } },
                    "204": { "description": "No content" },
                }),
            });
        }
        Contract {
            spec,
            operations,
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// The operation answering `method path` (path relative to `/v1`, no
    /// query). Literal segments win over parameters, as in the server.
    fn operation(&self, method: &str, path: &str) -> Option<&Operation> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        self.operations
            .iter()
            .filter(|op| op.method == method && op.segments.len() == parts.len())
            .filter(|op| {
                op.segments
                    .iter()
                    .zip(&parts)
                    .all(|(seg, part)| seg.as_deref().is_none_or(|s| s == *part))
            })
            .max_by_key(|op| op.segments.iter().filter(|s| s.is_some()).count())
    }

    /// Resolves `{"$ref": "#/components/responses/X"}` entries.
    fn resolve_response<'a>(&'a self, response: &'a Value) -> &'a Value {
        match response.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let pointer = reference.trim_start_matches('#');
                self.spec
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling $ref {reference}"))
            }
            None => response,
        }
    }

    fn validator(&self, op: &Operation, status: u16) -> Option<Arc<jsonschema::Validator>> {
        let key = (op.method.clone(), op.template.clone(), status);
        if let Some(v) = self.validators.lock().unwrap().get(&key) {
            return Some(v.clone());
        }
        let schema = match op.responses.get(status.to_string()) {
            Some(response) => self
                .resolve_response(response)
                .pointer("/content/application~1json/schema")?
                .clone(),
            None if status >= 400 => error_schema(status),
            None => panic!(
                "{} {} answered {status}, a status the official spec does not list for it (lists: {:?})",
                op.method,
                op.template,
                op.responses.as_object().map(|o| o.keys().collect::<Vec<_>>())
            ),
        };
        let mut root = schema;
        let root_obj = root.as_object_mut().expect("response schemas are objects");
        root_obj.insert("components".into(), self.spec["components"].clone());
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| {
                panic!(
                    "schema for {} {} {status} does not compile: {e}",
                    op.method, op.template
                )
            });
        let validator = Arc::new(validator);
        self.validators.lock().unwrap().insert(key, validator.clone());
        Some(validator)
    }

    /// Panics unless `body` is what the spec says `method path` answers
    /// with `status`.
    pub fn check(&self, method: &str, path: &str, status: u16, body: &Value) {
        let api_path = path
            .strip_prefix("/v1")
            .unwrap_or_else(|| panic!("not an API path: {path}"));
        let op = self
            .operation(method, api_path)
            .unwrap_or_else(|| panic!("{method} {path} is not an operation of the official spec"));
        if status >= 400 {
            assert_eq!(
                body.pointer("/error/code").and_then(Value::as_u64),
                Some(u64::from(status)),
                "{method} {path}: error body must carry the status as error.code: {body}"
            );
        }
        let Some(validator) = self.validator(op, status) else {
            assert!(
                body.is_null(),
                "{method} {path} answered {status} with a body, but the spec defines none: {body}"
            );
            return;
        };
        let body = &within_official_gaps(body);
        let errors: Vec<String> = validator
            .iter_errors(body)
            .map(|e| format!("  at {}: {}", e.instance_path(), e))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {path} -> {status}: body does not match the official schema of {} {}:\n{}\nbody: {}",
            op.method,
            op.template,
            errors.join("\n"),
            serde_json::to_string_pretty(body).unwrap_or_default()
        );
    }
}

/// `body` with what the official schema cannot express made valid, each
/// case named: a SAML provider being set up (`status: pending`, which the
/// official API defines as "not yet fully configured") has no sign-in URL
/// yet, shown as `""`, while the schema requires `ssoURL` to be a URI.
fn within_official_gaps(body: &Value) -> Value {
    let mut body = body.clone();
    fn walk(value: &mut Value) {
        match value {
            Value::Object(object) => {
                if object.get("object") == Some(&Value::from("saml-provider"))
                    && object.get("status") == Some(&Value::from("pending"))
                    && object.get("ssoURL") == Some(&Value::from(""))
                {
                    object.insert("ssoURL".into(), Value::from("https://not-configured-yet.invalid/"));
                }
                object.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut body);
    body
}

/// A path template's segments: `Some(literal)` or `None` for a parameter.
fn segments(template: &str) -> Vec<Option<String>> {
    template
        .trim_start_matches('/')
        .split('/')
        .map(|s| if s.starts_with('{') { None } else { Some(s.to_owned()) })
        .collect()
}

/// The official error shape, for statuses an operation does not list.
fn error_schema(status: u16) -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": { "code": { "const": status }, "message": { "type": "string" } }
            }
        }
    })
}

/// Where the official schema contradicts itself we relax exactly that rule,
/// here and nowhere else.
///
/// - `Document` (the body of a page) is a oneOf whose "Empty" alternative is
///   `{"additionalProperties": false}`. Pages use it inside an `allOf` with
///   their other properties, so a page without a body (every page of a page
///   list) could never be valid. The alternative's intent, "neither
///   `markdown` nor `document`", is kept and written so it can hold.
fn relax(spec: &mut Value) {
    let empty = spec
        .pointer_mut("/components/schemas/Document/oneOf/2")
        .expect("the Document schema keeps its Empty alternative");
    assert_eq!(
        empty["additionalProperties"],
        json!(false),
        "the spec changed: review this relaxation"
    );
    *empty = json!({
        "type": "object",
        "title": "Empty",
        "not": { "anyOf": [{ "required": ["markdown"] }, { "required": ["document"] }] }
    });
}
