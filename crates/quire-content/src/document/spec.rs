//! The official API spec for tests: `QUIRE_OPENAPI_SPEC`, or the npm package
//! `@gitbook/api@0.202.0` unpacked under the workspace's `target/tmp`
//! (fetched with `npm pack` once), and a validator for its `JSONDocument`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

/// The official spec, read once per test binary.
pub(super) fn official_spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(read_spec)
}

fn read_spec() -> Value {
    let path = match std::env::var("QUIRE_OPENAPI_SPEC") {
        Ok(path) => PathBuf::from(path),
        Err(_) => {
            let dir = PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../target/tmp/gitbook-api-0.202.0"
            ));
            let spec = dir.join("package/spec/openapi.json");
            if !spec.exists() {
                std::fs::create_dir_all(&dir).expect("create the spec directory");
                let pack = Command::new("npm")
                    .args(["pack", "@gitbook/api@0.202.0", "--silent", "--pack-destination"])
                    .arg(&dir)
                    .status()
                    .expect("run npm pack (npm is needed to fetch the official spec)");
                assert!(pack.success(), "npm pack @gitbook/api@0.202.0 failed");
                let untar = Command::new("tar")
                    .arg("xzf")
                    .arg(dir.join("gitbook-api-0.202.0.tgz"))
                    .arg("-C")
                    .arg(&dir)
                    .status()
                    .expect("run tar");
                assert!(untar.success(), "could not unpack the spec");
            }
            spec
        }
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the spec is JSON")
}

/// A validator for the official `JSONDocument` schema.
pub(super) fn document_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema = json!({
            "$ref": "#/components/schemas/JSONDocument",
            "components": official_spec()["components"],
        });
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .expect("the JSONDocument schema compiles")
    })
}

/// The schema errors of `doc`, one a line (empty when it is valid).
pub(super) fn schema_errors(doc: &Value) -> Vec<String> {
    document_validator()
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}
