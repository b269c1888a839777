//! The `openapi` scenario group: processing a large OpenAPI document.
//!
//! A synthetic OpenAPI 3.1 document of `--spec-mb` megabytes (paths with
//! parameters, request bodies and responses referring to shared schemas)
//! is served by a small HTTP server in this process; a spec is created
//! from its URL and its processing job run until the new version is kept.
//! Then the same document again (no new version), and rendering one
//! operation of it.

use std::time::Instant;

use anyhow::{Context, ensure};
use serde_json::{Value, json};

use crate::{Args, Server, http_client, post_json};

/// A document of about `bytes` bytes.
fn document(bytes: usize) -> String {
    let mut paths = serde_json::Map::new();
    let mut schemas = serde_json::Map::new();
    let mut i = 0;
    let mut size = 0;
    // Pretty-printed, the document is about twice its compact size.
    while size * 2 < bytes {
        let schema = format!("Resource{i}");
        schemas.insert(
            schema.clone(),
            json!({
                "type": "object",
                "required": ["id", "name"],
                "description": format!("Resource number {i}, with the fields every resource of this API has."),
                "properties": {
                    "id": { "type": "string", "description": "Unique identifier" },
                    "name": { "type": "string", "description": "Human-readable name" },
                    "createdAt": { "type": "string", "format": "date-time" },
                    "tags": { "type": "array", "items": { "type": "string" } },
                    "owner": { "$ref": "#/components/schemas/Owner" },
                    "size": { "type": "integer", "format": "int64", "minimum": 0 }
                }
            }),
        );
        let item = json!({
            "get": {
                "operationId": format!("get{schema}"),
                "summary": format!("Get resource {i}"),
                "description": "Returns the resource with its owner and tags. Readers with access to the resource only.",
                "parameters": [
                    { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                    { "name": "expand", "in": "query", "schema": { "type": "array", "items": { "type": "string", "enum": ["owner", "tags"] } } }
                ],
                "responses": {
                    "200": { "description": "The resource", "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } } },
                    "404": { "description": "No such resource" }
                }
            },
            "put": {
                "operationId": format!("put{schema}"),
                "summary": format!("Replace resource {i}"),
                "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } } },
                "responses": { "200": { "description": "The new resource" } }
            }
        });
        size += item.to_string().len() + schemas[&schema].to_string().len();
        paths.insert(format!("/resources{i}/{{id}}"), item);
        i += 1;
    }
    schemas.insert(
        "Owner".into(),
        json!({ "type": "object", "properties": { "id": { "type": "string" }, "email": { "type": "string", "format": "email" } } }),
    );
    serde_json::to_string_pretty(&json!({
        "openapi": "3.1.0",
        "info": { "title": "Large API", "version": "1.0.0" },
        "servers": [{ "url": "https://api.example.com" }],
        "paths": paths,
        "components": { "schemas": schemas }
    }))
    .unwrap_or_default()
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start_with_private_fetch(args.database_url.as_deref()).await?;
    let result = scenarios(&server, args).await;
    server.stop().await;
    result
}

async fn process(server: &Server) -> anyhow::Result<f64> {
    let started = Instant::now();
    let registry = quire_server::features::job_registry();
    let ran = quire_app::jobs::run_due(&server.state.app, &registry, "bench").await?;
    ensure!(ran >= 1, "no job ran");
    Ok(started.elapsed().as_secs_f64())
}

async fn scenarios(server: &Server, args: &Args) -> anyhow::Result<()> {
    let text = document(args.spec_mb * 1024 * 1024);
    let size = text.len();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/openapi.json", listener.local_addr()?);
    let served = text.clone();
    let router = axum::Router::new().route(
        "/openapi.json",
        axum::routing::get(move || {
            let body = served.clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    );
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let (_, token, org_id) = server.admin_and_org("OpenAPI").await?;
    let client = http_client(&token)?;
    let base = format!("{}/v1/orgs/{org_id}/openapi", server.base_url);
    let started = Instant::now();
    post_json(&client, &base, &json!({ "slug": "large", "source": { "url": url } })).await?;
    let job = process(server).await?;
    let total = started.elapsed().as_secs_f64();
    let spec: Value = client.get(format!("{base}/large")).send().await?.json().await?;
    ensure!(spec["lastVersion"].is_string(), "no version: {spec}");
    let first = spec["lastVersion"].clone();
    client
        .put(format!("{base}/large"))
        .json(&json!({ "source": { "url": url } }))
        .send()
        .await?
        .error_for_status()?;
    let again = process(server).await?;
    let spec: Value = client.get(format!("{base}/large")).send().await?.json().await?;
    ensure!(spec["lastVersion"] == first, "an unchanged document made a new version");
    let parsed = quire_openapi::parse(&text).context("parse")?;
    let started = Instant::now();
    let operations = parsed.operations().len();
    let op = parsed.operation("/resources0/{id}", "get").context("operation")?;
    let render = started.elapsed().as_secs_f64() * 1000.0;
    println!(
        "\n{} operations in a {:.1} MB document, on {}\n",
        operations,
        size as f64 / 1_048_576.0,
        server.backend
    );
    println!("| | seconds |\n|---|---:|");
    println!("| create from the URL, processed to a new version | {total:.2} |");
    println!("| of which the job (fetch, parse, hash, store) | {job:.2} |");
    println!("| the same document again (no new version) | {again:.2} |");
    println!(
        "| reading one operation from the parsed document | {:.4} |",
        render / 1000.0
    );
    ensure!(op.summary.is_some());
    task.abort();
    Ok(())
}
