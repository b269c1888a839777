//! The published site's MCP server at `{site URL}/~gitbook/mcp`, driven by
//! the official TypeScript SDK (`@modelcontextprotocol/sdk`, installed once
//! into `target/tmp/`; `tests/mcp/client.mjs`): initialize, list the tools,
//! search, read a page, list the pages, under the site's audience rules —
//! withheld pages never come out, an unpublished site is not found, a share
//! link's URL and a visitor's token admit the agent as they admit a reader.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::official_client::run_node;
use crate::support::both_backends;

const SDK: &str = "@modelcontextprotocol/sdk@1.32.2";

/// Installs the SDK (once per test process, reused across runs) and copies
/// the script beside it; returns the directory.
fn sdk_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-sdk-1.32.2");
        if !dir.join("node_modules/@modelcontextprotocol/sdk/package.json").exists() {
            std::fs::create_dir_all(&dir).expect("create the SDK's directory");
            let install = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
                .arg(&dir)
                .arg(SDK)
                .output()
                .expect("run `npm install` (Node.js and npm are needed for the MCP test)");
            assert!(
                install.status.success(),
                "npm install {SDK} failed:\n{}{}",
                String::from_utf8_lossy(&install.stdout),
                String::from_utf8_lossy(&install.stderr)
            );
        }
        for script in ["client.mjs", "oauth.mjs"] {
            let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp").join(script);
            std::fs::copy(from, dir.join(script)).expect("copy the script beside the SDK");
        }
        dir
    })
}

/// What the SDK client saw at `url`, calling `calls` in order.
async fn agent(url: &str, token: &str, calls: Value) -> Value {
    let mut node = Command::new("node");
    node.current_dir(sdk_dir())
        .arg("client.mjs")
        .arg(url)
        .arg(token)
        .arg(calls.to_string());
    let out = run_node(node, "the MCP client").await;
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// What the SDK client saw going through OAuth at `url` as the person of
/// `cookie` answering `decision` (`allow` or `deny`), then calling `calls`.
async fn oauth_agent(url: &str, cookie: &str, decision: &str, calls: Value) -> Value {
    let mut node = Command::new("node");
    node.current_dir(sdk_dir())
        .arg("oauth.mjs")
        .arg(url)
        .arg(cookie)
        .arg(decision)
        .arg(calls.to_string());
    let out = run_node(node, "the MCP OAuth client").await;
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// A browser session of `user_id`: the cookie header to send.
pub(crate) async fn session_cookie(app: &crate::support::TestApp, user_id: &str) -> String {
    let mut tx = app.db.write().await.expect("a transaction");
    let session = quire_app::sessions::start(
        &mut tx,
        user_id,
        quire_app::sessions::Method::Password,
        &quire_app::sessions::Client::default(),
        quire_core::Clock::now(&app.clock),
    )
    .await
    .expect("a session");
    tx.commit().await.expect("commit");
    format!("quire_session={}", session.token)
}

fn text(seen: &Value, call: usize) -> &str {
    seen["calls"][call]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("call {call}: {seen:#}"))
}

both_backends! {
    async fn agents_read_a_published_site_through_its_mcp_server(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Guide", None).await;
        let ids = app.publish(&ada, &space, json!([
            { "operation": "insert_page", "ref": "intro", "title": "Introduction", "document": { "markdown": "Welcome to the walrus handbook.\n" } },
            { "operation": "insert_page", "ref": "setup", "title": "Setup", "document": { "markdown": "# Setup\n\nThe configuration lives in one file.\n" } },
            { "operation": "insert_page", "ref": "staff", "title": "Staff notes", "document": { "markdown": "Classified rota of the walrus keepers.\n" } }
        ])).await;
        app.publish(&ada, &space, json!([
            { "operation": "update_page", "page": ids["staff"], "condition": "visitor.claims.unsigned.staff == true" }
        ])).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Handbook", "visibility": "public", "spaces": [space] })).await;
        site.assert_status(201);
        let site = format!("/v1/orgs/{org}/sites/{}", site.id());
        let base = format!("{}/handbook", app.base_url);
        let mcp = format!("{base}/~gitbook/mcp");

        // Not published: nothing to connect to.
        let seen = agent(&mcp, "", json!([])).await;
        assert!(seen["error"].as_str().unwrap_or_default().contains("no published site here"), "{seen:#}");
        app.post(&ada, &format!("{site}/publish"), json!(null)).await.assert_status(200);

        let calls = json!([
            ["searchDocumentation", { "query": "configuration" }],
            ["getPage", { "url": format!("{base}/setup") }],
            ["listPages", {}],
            ["getPage", { "url": format!("{base}/staff-notes") }],
            ["searchDocumentation", { "query": "classified" }],
            ["getPage", { "url": "/handbook/setup.md" }],
            ["getPage", { "url": "https://elsewhere.example/setup" }]
        ]);
        let seen = agent(&mcp, "", calls.clone()).await;
        assert!(seen.get("error").is_none(), "{seen:#}");
        assert_eq!(seen["server"]["name"], "Handbook (Quire)");
        assert_eq!(seen["protocolVersion"], "2025-11-25");
        let tools: Vec<&str> = seen["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(tools, ["searchDocumentation", "getPage", "listPages"]);
        assert!(seen["tools"].as_array().unwrap().iter().all(|t| t["readOnly"] == true));
        let found = text(&seen, 0);
        assert!(found.contains("Title: Setup") && found.contains(&format!("Link: {base}/setup")), "{found}");
        assert!(found.contains("configuration"), "{found}");
        assert!(text(&seen, 1).contains("The configuration lives in one file."), "{seen:#}");
        let pages = text(&seen, 2);
        assert!(pages.contains("Setup") && pages.contains("Introduction") && !pages.contains("Staff"), "{pages}");
        // The withheld page: not found, not searchable.
        assert_eq!(seen["calls"][3]["isError"], true);
        assert!(text(&seen, 3).starts_with("Page not found"), "{seen:#}");
        assert!(!text(&seen, 4).contains("Staff"), "{seen:#}");
        assert!(text(&seen, 5).contains("The configuration lives in one file."), "a path and .md work too");
        assert_eq!(seen["calls"][6]["isError"], true, "another site's URL");

        // The claim that holds the page, given as the site takes it.
        let seen = agent(&format!("{mcp}?visitor.staff=true"), "", json!([["getPage", { "url": format!("{base}/staff-notes") }]])).await;
        assert!(text(&seen, 0).contains("Classified rota"), "{seen:#}");

        // A share-link site: the link's URL admits the agent, the plain one does not.
        app.patch(&ada, &site, json!({ "visibility": "share-link" })).await.assert_status(200);
        let seen = agent(&mcp, "", json!([])).await;
        assert!(seen["error"].as_str().unwrap_or_default().contains("no published site here"), "{seen:#}");
        let link = app.post(&ada, &format!("{site}/share-links"), json!({ "name": "Agents" })).await;
        let shared = link.body["urls"]["published"].as_str().unwrap().trim_end_matches('/').to_owned();
        let seen = agent(&format!("{shared}/~gitbook/mcp"), "", json!([["getPage", { "url": format!("{shared}/setup") }]])).await;
        assert!(text(&seen, 0).contains("The configuration lives in one file."), "{seen:#}");

        // Visitor authentication: the visitor's token, as a bearer token.
        app.patch(&ada, &site, json!({ "visibility": "visitor-auth" })).await.assert_status(200);
        let key = app.get(&ada, &format!("{site}/publishing/auth")).await.body["privateKey"].as_str().unwrap().to_owned();
        let seen = agent(&mcp, "", json!([])).await;
        assert!(seen["error"].as_str().unwrap_or_default().contains("signed-in visitors only"), "{seen:#}");
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let token = quire_sites::visitor::sign(&json!({ "exp": now + 600 }), &key);
        let seen = agent(&mcp, &token, json!([["searchDocumentation", { "query": "walrus" }]])).await;
        let found = text(&seen, 0);
        assert!(found.contains("Introduction") && !found.contains("Staff"), "{found}");
        let forged = quire_sites::visitor::sign(&json!({ "exp": now + 600 }), "not-the-key");
        let seen = agent(&mcp, &forged, json!([])).await;
        assert!(seen["error"].as_str().unwrap_or_default().contains("signed-in visitors only"), "{seen:#}");
    }

    async fn the_site_mcp_server_refuses_what_is_not_mcp(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Guide", None).await;
        app.publish(&ada, &space, json!([{ "operation": "insert_page", "title": "Intro", "document": { "markdown": "Hi.\n" } }])).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Guide", "visibility": "public", "spaces": [space] })).await;
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let mcp = format!("{}/guide/~gitbook/mcp", app.base_url);
        let client = reqwest::Client::new();
        let get = client.get(&mcp).send().await.unwrap();
        assert_eq!(get.status(), 405);
        assert_eq!(get.headers()["allow"], "POST");
        let post = |body: &'static str, content_type: &'static str| {
            client.post(&mcp).header("content-type", content_type).header("accept", "application/json, text/event-stream").body(body).send()
        };
        let res = post("{", "application/json").await.unwrap();
        assert_eq!(res.status(), 400);
        assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], -32700);
        assert_eq!(post("{}", "text/plain").await.unwrap().status(), 415);
        let res = post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "application/json").await.unwrap();
        assert_eq!(res.status(), 202);
        let res = post(r#"{"jsonrpc":"2.0","id":7,"method":"resources/list"}"#, "application/json").await.unwrap();
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["id"], 7);
        assert_eq!(body["error"]["code"], -32601);
        let res = post(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"getPage","arguments":{}}}"#, "application/json").await.unwrap();
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], -32602);
        let res = client
            .post(&mcp)
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "1999-01-01")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400);
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#;
        let body: Value = post(batch, "application/json").await.unwrap().json().await.unwrap();
        assert_eq!(body.as_array().unwrap().len(), 2);
        assert_eq!(body[1]["result"]["tools"][0]["name"], "searchDocumentation");
        assert_eq!(client.post(format!("{}/nosuchsite/~gitbook/mcp", app.base_url)).header("content-type", "application/json").body("{}").send().await.unwrap().status(), 404);
    }
}

/// The text after `marker` up to the next `)` or space.
fn id_after(text: &str, marker: &str) -> String {
    let rest = text
        .split_once(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in {text}"))
        .1;
    rest.split([')', ' ']).next().unwrap().to_owned()
}

both_backends! {
    async fn agents_edit_through_change_requests_with_the_organization_server(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let carol = app.user("Carol").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("read")).await;
        app.add_member(&ada, &org, &carol, json!("review")).await;
        let space = app.space(&ada, &org, "Handbook", None).await;
        app.publish(&ada, &space, json!([
            { "operation": "insert_page", "title": "Setup", "document": { "markdown": "The configuration lives in one file.\n" } }
        ])).await;
        let mcp = format!("{}/mcp", app.base_url);

        let seen = agent(&mcp, "", json!([])).await;
        assert!(seen["error"].as_str().unwrap_or_default().contains(r#""code":401"#), "{seen:#}");

        let seen = agent(&mcp, &ada.token, json!([
            ["listSpaces", {}],
            ["searchContent", { "query": "configuration", "spaceId": space }],
            ["readPage", { "spaceId": space, "path": "setup" }],
            ["openChangeRequest", { "spaceId": space, "subject": "Written by an agent" }]
        ])).await;
        assert!(seen.get("error").is_none(), "{seen:#}");
        assert_eq!(seen["server"]["name"], "Quire");
        let tools: Vec<&str> = seen["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        for tool in ["listSpaces", "searchContent", "readPage", "openChangeRequest", "writePage", "comment", "requestReview", "merge", "publishSite"] {
            assert!(tools.contains(&tool), "{tool} in {tools:?}");
        }
        assert!(text(&seen, 0).contains(&format!("Handbook (spaceId {space})")), "{seen:#}");
        assert!(text(&seen, 1).contains("Setup"), "{seen:#}");
        assert!(text(&seen, 2).contains("The configuration lives in one file."), "{seen:#}");
        let cr = id_after(text(&seen, 3), "changeRequestId ");

        let seen = agent(&mcp, &ada.token, json!([
            ["writePage", { "spaceId": space, "changeRequestId": cr, "title": "Agents", "markdown": "Agents write here.\n" }],
            ["readPage", { "spaceId": space, "path": "agents" }],
            ["readPage", { "spaceId": space, "path": "agents", "changeRequestId": cr }],
            ["requestReview", { "spaceId": space, "changeRequestId": cr, "userIds": [carol.id] }],
            ["comment", { "spaceId": space, "changeRequestId": cr, "markdown": "Ready." }],
            ["merge", { "spaceId": space, "changeRequestId": cr }],
            ["readPage", { "spaceId": space, "path": "agents" }]
        ])).await;
        assert!(text(&seen, 0).starts_with("Created page"), "{seen:#}");
        assert_eq!(seen["calls"][1]["isError"], true, "not in the space before the merge: {seen:#}");
        assert!(text(&seen, 2).contains("Agents write here."), "{seen:#}");
        assert!(text(&seen, 3).contains("Asked 1"), "{seen:#}");
        assert!(text(&seen, 4).starts_with("Posted comment"), "{seen:#}");
        assert!(text(&seen, 5).starts_with("Merged"), "{seen:#}");
        assert!(text(&seen, 6).contains("Agents write here."), "{seen:#}");
        // Through the HTTP API, the same change.
        let page = app.get(&ada, &format!("/v1/spaces/{space}/content/path/agents")).await;
        page.assert_status(200);
        // The audit log names the agent's person.
        let log = app.get(&ada, &format!("/v1/orgs/{org}/audit-events?actor={}&action=mcp%20merge", ada.id)).await;
        log.assert_status(200);
        assert_eq!(log.items().len(), 1, "{:#}", log.body);
        assert_eq!(log.items()[0]["target"], json!({ "type": "space", "id": space }));

        // A reader reads, and is refused what the role forbids.
        let seen = agent(&mcp, &bob.token, json!([
            ["readPage", { "spaceId": space, "path": "agents" }],
            ["openChangeRequest", { "spaceId": space, "subject": "Not mine to open" }],
            ["merge", { "spaceId": space, "changeRequestId": cr }],
            ["publishSite", { "organizationId": org, "siteId": "nope" }],
            ["readPage", {}]
        ])).await;
        assert!(text(&seen, 0).contains("Agents write here."), "{seen:#}");
        assert_eq!(seen["calls"][1]["isError"], true, "{seen:#}");
        assert_eq!(seen["calls"][2]["isError"], true, "{seen:#}");
        assert_eq!(seen["calls"][3]["isError"], true, "{seen:#}");
        assert!(seen["calls"][4]["protocolError"].as_str().unwrap_or_default().contains("spaceId"), "{seen:#}");
        let crs = app.get(&ada, &format!("/v1/spaces/{space}/change-requests")).await;
        assert!(crs.items().is_empty(), "no open change request: the agent's was merged, the reader's refused");
    }
}

/// A local OpenAI-compatible chat-completions API: records each request's
/// body and answers `reply` (status 500 while `failing`).
struct ChatApi {
    url: String,
    prompts: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
    failing: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl ChatApi {
    async fn start(reply: &'static str) -> ChatApi {
        let prompts: std::sync::Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
        let failing: std::sync::Arc<std::sync::atomic::AtomicBool> = Default::default();
        let (log, fail) = (prompts.clone(), failing.clone());
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
                let (log, fail) = (log.clone(), fail.clone());
                async move {
                    log.lock().unwrap().push(body);
                    if fail.load(std::sync::atomic::Ordering::SeqCst) {
                        return (
                            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                            axum::Json(json!({ "error": "down" })),
                        );
                    }
                    (
                        axum::http::StatusCode::OK,
                        axum::Json(json!({
                            "choices": [{ "message": { "role": "assistant", "content": reply } }],
                            "usage": { "prompt_tokens": 321, "completion_tokens": 12 }
                        })),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        ChatApi { url, prompts, failing }
    }

    /// Everything the model was shown, as one text.
    fn shown(&self) -> String {
        self.prompts
            .lock()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

both_backends! {
    async fn readers_get_answers_with_sources_from_pages_they_may_read(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Guide", None).await;
        let ids = app.publish(&ada, &space, json!([
            { "operation": "insert_page", "ref": "intro", "title": "Introduction", "document": { "markdown": "Welcome to the walrus handbook.\n" } },
            { "operation": "insert_page", "ref": "setup", "title": "Setup", "document": { "markdown": "# Setup\n\nThe configuration of the walrus lives in one file.\n" } },
            { "operation": "insert_page", "ref": "staff", "title": "Staff notes", "document": { "markdown": "Classified: the walrus configuration password is hunter2.\n" } }
        ])).await;
        app.publish(&ada, &space, json!([
            { "operation": "update_page", "page": ids["staff"], "condition": "visitor.claims.unsigned.staff == true" }
        ])).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Handbook", "visibility": "public", "spaces": [space] })).await;
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let ask = |q: &str| {
            let url = format!("{}/handbook/~gitbook/ask?q={}", app.base_url, q.replace(' ', "+"));
            async move { reqwest::get(url).await.unwrap() }
        };

        // Without a model: absent, and said so.
        let res = ask("Where does the configuration live?").await;
        assert_eq!(res.status(), 404);
        assert!(res.text().await.unwrap().contains("Answers are not available"));
        let seen = agent(&format!("{}/handbook/~gitbook/mcp", app.base_url), "", json!([])).await;
        assert!(!seen["tools"].to_string().contains("askQuestion"), "{seen:#}");

        let chat = ChatApi::start("The configuration lives in one file [1]. The handbook welcomes you [2].").await;
        let model = quire_adapters::chat::ChatModel::new(chat.url.clone(), None, "test-model".into(), std::time::Duration::from_secs(10)).unwrap();
        app.state.app.set_assistant(Some(model));
        // A model alone offers nothing: the site's `ai.mode` decides.
        assert_eq!(ask("Where does the configuration live?").await.status(), 404);
        let settings = format!("/v1/orgs/{org}/sites/{}/customization", site.id());
        app.put(&ada, &settings, json!({ "title": "Handbook", "ai": { "mode": "assistant" } })).await.assert_status(200);

        let res = ask("Where does the walrus configuration live?").await;
        assert_eq!(res.status(), 200);
        let page = res.text().await.unwrap();
        let setup = format!("{}/handbook/setup", app.base_url);
        assert!(page.contains(&format!("The configuration lives in one file <a class=\"cite\" href=\"{setup}\" title=\"Setup\">[1]</a>.")), "{page}");
        assert!(page.contains("<h2>Sources</h2>") && page.contains(&format!("<a href=\"{setup}\">Setup</a>")), "{page}");
        let shown = chat.shown();
        assert!(shown.contains("The configuration of the walrus lives in one file."), "{shown}");
        assert!(shown.contains("Question: Where does the walrus configuration live?"), "{shown}");
        assert!(!shown.contains("hunter2") && !shown.contains("Classified"), "a withheld page reached the model: {shown}");
        let prompt = chat.prompts.lock().unwrap()[0].clone();
        assert_eq!(prompt["model"], "test-model");
        let context: usize = prompt["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().len()).sum();
        println!("answer context: {context} characters (~{} tokens) for {} sources", context / 4, page.matches("<li><a href=").count());

        // The search page offers it; the agent server too.
        let search = reqwest::get(format!("{}/handbook/?q=configuration", app.base_url)).await.unwrap().text().await.unwrap();
        assert!(search.contains("/handbook/~gitbook/ask?q=configuration"), "{search}");
        let seen = agent(
            &format!("{}/handbook/~gitbook/mcp", app.base_url),
            "",
            json!([["askQuestion", { "question": "Where does the walrus configuration live?" }]]),
        )
        .await;
        let answer = text(&seen, 0);
        assert!(answer.contains("[1]") && answer.contains("# Sources") && answer.contains(&format!("({}/handbook/setup)", app.base_url)), "{answer}");

        // Bad questions and a failing model: refused, nothing made up.
        assert_eq!(ask("").await.status(), 400);
        assert_eq!(ask(&"word ".repeat(200)).await.status(), 400);
        chat.failing.store(true, std::sync::atomic::Ordering::SeqCst);
        let res = ask("Where does the walrus configuration live?").await;
        assert_eq!(res.status(), 400);
        assert!(res.text().await.unwrap().contains("could not answer"));
        assert!(!chat.shown().contains("hunter2"));
        app.state.app.set_assistant(None);
    }

    /// A client that follows the protocol's authorization gets its token
    /// through OAuth: 401 with where to look, metadata, registration, the
    /// person's consent, PKCE; the token is one of the person's API tokens.
    async fn agents_get_a_token_through_oauth(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        app.space(&ada, &org, "Handbook", None).await;
        let mcp = format!("{}/mcp", app.base_url);
        let cookie = session_cookie(&app, &ada.id).await;

        // The 401 says where the metadata is.
        let refused = reqwest::Client::new()
            .post(&mcp)
            .header("content-type", "application/json")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 401);
        let challenge = refused.headers()["www-authenticate"].to_str().unwrap().to_owned();
        assert!(
            challenge.contains(&format!("resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"", app.base_url)),
            "{challenge}"
        );

        let seen = oauth_agent(&mcp, &cookie, "allow", json!([["listSpaces", {}]])).await;
        assert!(seen.get("error").is_none(), "{seen:#}");
        assert_eq!(seen["steps"], json!(["unauthorized, sent to authorize", "code exchanged", "connected with the token"]), "{seen:#}");
        assert_eq!(seen["authorizationUrl"], format!("{}/oauth/authorize", app.base_url));
        assert_eq!(seen["challengeMethod"], "S256");
        assert_eq!(seen["clientRegistered"]["name"], "Quire test agent");
        assert_eq!(seen["consentStatus"], 200);
        assert_eq!(seen["consentShowsClient"], true);
        assert_eq!(seen["returnedState"], "state-123");
        assert!(seen["tools"].as_array().unwrap().iter().any(|t| t == "writePage"), "{seen:#}");
        assert!(text(&seen, 0).contains("Handbook"), "{seen:#}");
        // The token is Ada's, listed (not shown) among her tokens.
        let token = seen["accessToken"].as_str().unwrap();
        let me = reqwest::Client::new()
            .get(format!("{}/v1/user", app.base_url))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(me.status(), 200);
        assert_eq!(me.json::<Value>().await.unwrap()["id"], ada.id.as_str());
        let mut conn = app.db.read().await.unwrap();
        let tokens = quire_store::users::tokens_of(&mut conn, &ada.id).await.unwrap();
        drop(conn);
        assert!(
            tokens.iter().any(|t| t.label.as_deref() == Some("MCP: Quire test agent")),
            "{tokens:?}"
        );

        // Denied: the client is told so, and gets nothing.
        let denied = oauth_agent(&mcp, &cookie, "deny", json!([])).await;
        assert_eq!(denied["returnedError"], "access_denied", "{denied:#}");
        assert!(denied["error"].as_str().unwrap_or_default().contains("no code"), "{denied:#}");
        assert!(denied["accessToken"].is_null());
    }

    /// Every step refuses what it must, in the OAuth error shape or on a
    /// page, and a code is spent once.
    async fn oauth_refuses_bad_clients_codes_and_verifiers(app: TestApp) {
        let ada = app.user("Ada").await;
        let cookie = session_cookie(&app, &ada.id).await;
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let base = &app.base_url;

        let metadata: Value = http.get(format!("{base}/.well-known/oauth-authorization-server")).send().await.unwrap().json().await.unwrap();
        assert_eq!(metadata["code_challenge_methods_supported"], json!(["S256"]));
        let resource: Value = http.get(format!("{base}/.well-known/oauth-protected-resource/mcp")).send().await.unwrap().json().await.unwrap();
        assert_eq!(resource["resource"], format!("{base}/mcp"));

        // Registration: redirects only to https, loopback http or an app's scheme.
        for bad in [json!({}), json!({ "redirect_uris": ["http://evil.example/cb"] }), json!({ "redirect_uris": ["javascript:alert(1)"] })] {
            let res = http.post(format!("{base}/oauth/register")).json(&bad).send().await.unwrap();
            assert_eq!(res.status(), 400, "{bad}");
            let body: Value = res.json().await.unwrap();
            assert!(body["error"].as_str().unwrap().starts_with("invalid_"), "{body}");
        }
        let registered: Value = http
            .post(format!("{base}/oauth/register"))
            .json(&json!({ "client_name": "Script", "redirect_uris": ["http://localhost:7777/cb"] }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let client_id = registered["client_id"].as_str().unwrap().to_owned();
        assert_eq!(registered["token_endpoint_auth_method"], "none");

        let verifier = "a".repeat(43) + "-verifier";
        let challenge = {
            use base64::Engine as _;
            use sha2::Digest as _;
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
        };
        let authorize = |client: &str, redirect: &str, challenge: &str| {
            format!(
                "{base}/oauth/authorize?response_type=code&client_id={client}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256&state=s",
                quire_core::percent::encode_component(redirect)
            )
        };
        // An unknown client or an unregistered redirect is a page, never a redirect.
        for url in [authorize("nobody", "http://localhost:7777/cb", &challenge), authorize(&client_id, "http://localhost:7777/other", &challenge)] {
            let res = http.get(&url).header("cookie", &cookie).send().await.unwrap();
            assert_eq!(res.status(), 400, "{url}");
            assert!(res.headers().get("location").is_none());
        }
        // No PKCE: back to the client with the error.
        let res = http.get(authorize(&client_id, "http://localhost:7777/cb", "")).header("cookie", &cookie).send().await.unwrap();
        assert_eq!(res.status(), 303);
        assert!(res.headers()["location"].to_str().unwrap().contains("error=invalid_request"));
        // Signed out: to sign in first, and back here after.
        let res = http.get(authorize(&client_id, "http://localhost:7777/cb", &challenge)).send().await.unwrap();
        assert_eq!(res.status(), 303);
        assert!(res.headers()["location"].to_str().unwrap().starts_with("/sign-in?returnTo=%2Foauth%2Fauthorize%3F"));
        // A consent that did not come from the page (no CSRF token) grants nothing.
        let form = [
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", "http://localhost:7777/cb"),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("decision", "allow"),
        ];
        let res = http.post(format!("{base}/oauth/authorize")).header("cookie", &cookie).form(&form).send().await.unwrap();
        assert_eq!(res.status(), 403);
        // With the page's token: a code.
        let page = http.get(authorize(&client_id, "http://localhost:7777/cb", &challenge)).header("cookie", &cookie).send().await.unwrap().text().await.unwrap();
        let csrf = page.split("name=\"csrf\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
        let mut with_csrf = form.to_vec();
        with_csrf.push(("csrf", csrf.as_str()));
        let res = http.post(format!("{base}/oauth/authorize")).header("cookie", &cookie).form(&with_csrf).send().await.unwrap();
        assert_eq!(res.status(), 303);
        let location = res.headers()["location"].to_str().unwrap().to_owned();
        let code = reqwest::Url::parse(&location).unwrap().query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();

        let exchange = |code: &str, verifier: &str| {
            http.post(format!("{base}/oauth/token")).form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("client_id", client_id.as_str()),
                ("redirect_uri", "http://localhost:7777/cb"),
                ("code_verifier", verifier),
            ])
        };
        // A wrong verifier spends the code.
        let res = exchange(&code, &("b".repeat(43) + "-verifier")).send().await.unwrap();
        assert_eq!(res.status(), 400);
        assert_eq!(res.json::<Value>().await.unwrap()["error"], "invalid_grant");
        let res = exchange(&code, &verifier).send().await.unwrap();
        assert_eq!(res.status(), 400, "a code is exchanged once");
        let res = http.post(format!("{base}/oauth/token")).form(&[("grant_type", "password")]).send().await.unwrap();
        assert_eq!(res.json::<Value>().await.unwrap()["error"], "unsupported_grant_type");
    }
}

both_backends! {
    /// Registration takes redirect URIs by allow-list (no `ms-msdt:`, no
    /// `view-source:`), and the consent page shows a look-alike host both
    /// as it reads and as it is written (`xn--...`).
    async fn oauth_refuses_odd_schemes_and_unmasks_look_alike_hosts(app: TestApp) {
        let ada = app.user("Ada").await;
        let cookie = session_cookie(&app, &ada.id).await;
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let base = &app.base_url;
        let register = |redirect: &str| {
            http.post(format!("{base}/oauth/register"))
                .json(&json!({ "client_name": "Look-alike", "redirect_uris": [redirect] }))
                .send()
        };

        for bad in ["ms-msdt:foo", "view-source:https://x.example/", "chrome://settings", "myapp:/callback"] {
            let res = register(bad).await.unwrap();
            assert_eq!(res.status(), 400, "{bad}");
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["error"], "invalid_redirect_uri", "{bad}: {body}");
        }
        let app_scheme = register("com.example.app:/callback").await.unwrap();
        assert_eq!(app_scheme.status(), 201, "an app's reverse-DNS scheme");

        let challenge = "c".repeat(43);
        // The Cyrillic "а" (U+0430) in place of the Latin "a", given written
        // (punycode) and as it reads.
        for redirect in ["https://xn--pple-43d.com/cb", "https://\u{430}pple.com/cb"] {
            let registered = register(redirect).await.unwrap();
            assert_eq!(registered.status(), 201, "{redirect}");
            let registered: Value = registered.json().await.unwrap();
            let client_id = registered["client_id"].as_str().unwrap();
            let consent = http
                .get(format!(
                    "{base}/oauth/authorize?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256",
                    quire_core::percent::encode_component(redirect)
                ))
                .header("cookie", &cookie)
                .send()
                .await
                .unwrap();
            assert_eq!(consent.status(), 200, "{redirect}");
            let page = consent.text().await.unwrap();
            assert!(
                page.contains("on <strong>\u{430}pple.com</strong>, written <code>xn--pple-43d.com</code>"),
                "{redirect}: {page}"
            );
        }
        // A plain host is shown once.
        let plain: Value = register("https://claude.ai/cb").await.unwrap().json().await.unwrap();
        let page = http
            .get(format!(
                "{base}/oauth/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256",
                plain["client_id"].as_str().unwrap(),
                quire_core::percent::encode_component("https://claude.ai/cb")
            ))
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains("on <strong>claude.ai</strong>.") && !page.contains("written"), "{page}");
    }
}
