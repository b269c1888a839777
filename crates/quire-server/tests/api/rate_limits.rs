//! Rate limits: every API answer says where its client stands, a client
//! past its limit gets a 429 in the official shape with `Retry-After` and
//! its request does nothing, each kind of client counts apart, a new
//! minute starts afresh, and nodes on one PostgreSQL database share their
//! counts. Made-up session cookies get no larger budget than no
//! credentials, the account page's token creation is limited as sign-in,
//! and each request of an MCP batch counts.

use std::time::{Duration, Instant};

use quire_core::time::Clock as _;
use serde_json::{Value, json};

use crate::support::{Backend, TestApp, TestUser, both_backends};

/// An answer's status, its `X-RateLimit-*` headers (limit, remaining,
/// reset), `Retry-After`, and body.
struct Answer {
    status: u16,
    limit: Option<i64>,
    remaining: Option<i64>,
    reset: Option<i64>,
    retry_after: Option<i64>,
    body: Value,
}

async fn send(request: reqwest::RequestBuilder) -> Answer {
    let res = request.send().await.expect("request");
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<i64>().ok())
    };
    let (limit, remaining, reset, retry_after) = (
        header("x-ratelimit-limit"),
        header("x-ratelimit-remaining"),
        header("x-ratelimit-reset"),
        header("retry-after"),
    );
    let status = res.status().as_u16();
    let body = res.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        limit,
        remaining,
        reset,
        retry_after,
        body,
    }
}

fn as_user(client: &reqwest::Client, method: reqwest::Method, url: String, user: &TestUser) -> reqwest::RequestBuilder {
    client.request(method, url).bearer_auth(&user.token)
}

/// `GET /v1/user` on the server at `base`, as `user`.
async fn who_am_i(http: &reqwest::Client, base: &str, user: &TestUser) -> Answer {
    send(as_user(http, reqwest::Method::GET, format!("{base}/v1/user"), user)).await
}

/// Starts the next one-minute window.
fn next_minute(app: &TestApp) {
    app.clock.advance_millis(60_000);
}

/// A browser session of `user`: the `Cookie` header to send and the
/// session's CSRF token.
async fn session_of(app: &TestApp, user: &TestUser) -> (String, String) {
    let mut tx = app.db.write().await.expect("a transaction");
    let session = quire_app::sessions::start(
        &mut tx,
        &user.id,
        quire_app::sessions::Method::Password,
        &quire_app::sessions::Client::default(),
        app.clock.now(),
    )
    .await
    .expect("a session");
    tx.commit().await.expect("commit");
    (format!("quire_session={}", session.token), session.csrf_token)
}

/// A JSON-RPC request for a batch.
fn rpc(id: u32, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// `POST`s a batch of JSON-RPC requests to an MCP server.
fn mcp_batch(request: reqwest::RequestBuilder, batch: &[Value]) -> reqwest::RequestBuilder {
    request
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Value::from(batch.to_vec()).to_string())
}

/// How many answers of a batch are results, and the rest's error codes
/// and messages.
fn results_and_errors(answers: &Value) -> (usize, Vec<(i64, String)>) {
    let answers = answers.as_array().expect("a batch's answers");
    let results = answers.iter().filter(|a| a.get("result").is_some()).count();
    let errors = answers
        .iter()
        .filter_map(|a| a.get("error"))
        .map(|e| {
            (
                e["code"].as_i64().unwrap_or_default(),
                e["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (results, errors)
}

both_backends! {
    #[app(tight_rate_limits)]
    async fn clients_past_their_limit_get_429_and_change_nothing(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        let http = reqwest::Client::new();
        let base = app.base_url.clone();
        // Bob's token becomes known to the node.
        who_am_i(&http, &base, &bob).await;

        next_minute(&app);
        let now_secs = app.clock.now().0 / 1000;
        for expected in (0..5).rev() {
            let answer = who_am_i(&http, &base, &ada).await;
            assert_eq!(answer.status, 200);
            assert_eq!((answer.limit, answer.remaining), (Some(5), Some(expected)));
            let reset = answer.reset.expect("X-RateLimit-Reset");
            assert!(reset > now_secs && reset <= now_secs + 60, "reset {reset} within the minute after {now_secs}");
        }
        let refused = send(
            as_user(&http, reqwest::Method::POST, format!("{base}/v1/orgs/{org}/spaces"), &ada)
                .json(&json!({ "title": "Refused" })),
        )
        .await;
        assert_eq!(refused.status, 429);
        assert_eq!(refused.body["error"]["code"], 429, "{}", refused.body);
        assert!(refused.body["error"]["message"].as_str().unwrap().contains("rate limit"), "{}", refused.body);
        assert_eq!((refused.limit, refused.remaining), (Some(5), Some(0)));
        assert!(refused.retry_after.is_some_and(|s| (1..=60).contains(&s)), "Retry-After: {:?}", refused.retry_after);
        // Another token counts apart.
        let other = who_am_i(&http, &base, &bob).await;
        assert_eq!((other.status, other.remaining), (200, Some(4)));

        // A new minute starts afresh, and the refused write did nothing.
        next_minute(&app);
        let spaces = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await;
        spaces.assert_status(200);
        assert!(spaces.items().iter().all(|s| s["title"] != "Refused"), "{}", spaces.body);

        // Unknown tokens and no token count against the address.
        for expected in (0..3).rev() {
            let answer = send(http.get(format!("{base}/v1/user")).bearer_auth("made-up")).await;
            assert_eq!((answer.status, answer.limit, answer.remaining), (401, Some(3), Some(expected)));
        }
        let answer = send(http.get(format!("{base}/v1/user")).bearer_auth("another-made-up")).await;
        assert_eq!(answer.status, 429, "a fresh made-up token opens no fresh counter");
        let answer = send(http.get(format!("{base}/v1/orgs/{org}"))).await;
        assert_eq!(answer.status, 429);
        // A known token still works from that address.
        let answer = who_am_i(&http, &base, &ada).await;
        assert_eq!(answer.status, 200);

        // Published sites count per address; probes never.
        for _ in 0..4 {
            assert_eq!(send(http.get(format!("{base}/no-such-site/"))).await.status, 404);
        }
        let answer = send(http.get(format!("{base}/no-such-site/"))).await;
        assert_eq!(answer.status, 429);
        assert!(answer.retry_after.is_some());
        for _ in 0..10 {
            assert_eq!(send(http.get(format!("{base}/health"))).await.status, 200);
        }

        // Sign-in is limited harder.
        next_minute(&app);
        let mut statuses = Vec::new();
        for _ in 0..3 {
            let answer = send(
                http.post(format!("{base}/auth/sign-in"))
                    .json(&json!({ "email": "ada@example.com", "password": "wrong password" })),
            )
            .await;
            statuses.push(answer.status);
        }
        assert_ne!(statuses[0], 429, "{statuses:?}");
        assert_ne!(statuses[1], 429, "{statuses:?}");
        assert_eq!(statuses[2], 429, "{statuses:?}");
    }
}

/// Two nodes on one PostgreSQL database share their counts: what a token
/// used on one node is refused on the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_share_their_counts() {
    let app = TestApp::builder(Backend::Postgres).tight_rate_limits().start().await;
    let ada = app.user("Ada").await;
    let other = app.second_node().await;
    let http = reqwest::Client::new();
    // Each node learns the token.
    who_am_i(&http, &app.base_url, &ada).await;
    who_am_i(&http, &other.base_url, &ada).await;

    next_minute(&app);
    for _ in 0..4 {
        let answer = who_am_i(&http, &app.base_url, &ada).await;
        assert_eq!(answer.status, 200);
    }
    // The first node adds its counts to the shared table within a second.
    let client = format!("token:{}", quire_app::accounts::hash_token(&ada.token));
    let started = Instant::now();
    loop {
        let mut conn = app.db.read().await.expect("a connection");
        let shared: Option<i64> =
            sqlx::query_scalar("SELECT requests FROM rate_counts WHERE client = $1 ORDER BY window_start DESC LIMIT 1")
                .bind(&client)
                .fetch_optional(&mut *conn)
                .await
                .expect("read the shared counts");
        if shared == Some(4) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the counts were not shared: {shared:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!("counts shared after {} ms", started.elapsed().as_millis());
    let answer = who_am_i(&http, &other.base_url, &ada).await;
    assert_eq!(
        (answer.status, answer.remaining),
        (200, Some(0)),
        "the other node counted the first node's four"
    );
    let answer = who_am_i(&http, &other.base_url, &ada).await;
    assert_eq!(answer.status, 429);
}

both_backends! {
    /// A `quire_session` cookie counts as a browser's only once a request
    /// found it live; made-up ones count against the address, as requests
    /// without credentials.
    #[app(tight_rate_limits)]
    async fn made_up_session_cookies_get_no_browser_budget(app: TestApp) {
        let ada = app.user("Ada").await;
        let (cookie, _) = session_of(&app, &ada).await;
        let http = reqwest::Client::new();
        let base = app.base_url.clone();
        let with_cookie = |cookie: &str| http.get(format!("{base}/v1/user")).header("cookie", cookie.to_owned());

        next_minute(&app);
        for expected in (0..3).rev() {
            let answer = send(with_cookie("quire_session=made-up")).await;
            assert_eq!(
                (answer.status, answer.limit, answer.remaining),
                (401, Some(3), Some(expected)),
                "a made-up cookie counts as no credentials"
            );
        }
        let answer = send(with_cookie("quire_session=another-made-up")).await;
        assert_eq!(answer.status, 429, "a fresh made-up cookie opens no larger budget");
        assert_eq!(answer.body["error"]["code"], 429, "{}", answer.body);

        // A live session: its first request counts against the address
        // (the node does not know it yet), the next ones as a browser's.
        next_minute(&app);
        let first = send(with_cookie(&cookie)).await;
        assert_eq!((first.status, first.limit, first.remaining), (200, Some(3), Some(2)));
        let second = send(with_cookie(&cookie)).await;
        assert_eq!((second.status, second.limit, second.remaining), (200, Some(5), Some(4)));
        // Made-up cookies from the same address still share the address's.
        let answer = send(with_cookie("quire_session=made-up")).await;
        assert_eq!((answer.status, answer.limit, answer.remaining), (401, Some(3), Some(1)));
    }

    /// Making a token on the account page (`POST /account/tokens`) counts
    /// against the sign-in limit, as `POST /auth/tokens` does: with two a
    /// minute, the third token of either is refused and not made.
    #[app(tight_rate_limits)]
    async fn the_account_pages_token_creation_counts_as_sign_in(app: TestApp) {
        let ada = app.user("Ada").await;
        let (cookie, csrf) = session_of(&app, &ada).await;
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let base = app.base_url.clone();
        let on_page = |label: &str| {
            http.post(format!("{base}/account/tokens"))
                .header("cookie", cookie.clone())
                .form(&[("csrf", csrf.as_str()), ("label", label)])
        };

        next_minute(&app);
        let made = send(
            http.post(format!("{base}/auth/tokens"))
                .header("cookie", cookie.clone())
                .header("x-csrf-token", csrf.clone())
                .json(&json!({ "label": "Through the API" })),
        )
        .await;
        assert_eq!(made.status, 201, "{}", made.body);
        let made = on_page("On the page").send().await.unwrap();
        assert_eq!(made.status(), 200);
        let refused = send(on_page("One too many")).await;
        assert_eq!(refused.status, 429, "{}", refused.body);
        assert_eq!(refused.body["error"]["code"], 429, "{}", refused.body);
        assert!(refused.retry_after.is_some_and(|s| (1..=60).contains(&s)), "Retry-After: {:?}", refused.retry_after);

        let mut conn = app.db.read().await.unwrap();
        let labels: Vec<Option<String>> = quire_store::users::tokens_of(&mut conn, &ada.id)
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.label)
            .collect();
        drop(conn);
        assert!(labels.contains(&Some("On the page".to_owned())), "{labels:?}");
        assert!(!labels.contains(&Some("One too many".to_owned())), "the refused request made nothing: {labels:?}");
    }

    /// A batch of MCP requests costs one request each: past the limit, the
    /// rest of the batch is answered with an error each and not run; on the
    /// organization's server (per token) and on a site's (per address).
    #[app(tight_rate_limits)]
    async fn each_request_of_an_mcp_batch_counts(app: TestApp) {
        let ada = app.user("Ada").await;
        let http = reqwest::Client::new();
        let base = app.base_url.clone();
        // Setting up spends Ada's five a minute; a minute at a time.
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Guide", None).await;
        next_minute(&app);
        app.publish(&ada, &space, json!([
            { "operation": "insert_page", "title": "Intro", "document": { "markdown": "Hi.\n" } }
        ])).await;
        next_minute(&app);
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Guide", "visibility": "public", "spaces": [space] })).await;
        site.assert_status(201);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);

        // The organization's server: the POST is one request, each request
        // of the batch after the first one more; five a minute.
        next_minute(&app);
        let open = |id: u32, subject: &str| {
            rpc(id, "tools/call", json!({ "name": "openChangeRequest", "arguments": { "spaceId": space, "subject": subject } }))
        };
        let batch = [
            rpc(1, "ping", json!({})),
            open(2, "Within the limit"),
            rpc(3, "ping", json!({})),
            rpc(4, "tools/list", json!({})),
            rpc(5, "ping", json!({})),
            open(6, "Over the limit"),
            rpc(7, "ping", json!({})),
        ];
        let answer = send(mcp_batch(http.post(format!("{base}/mcp")).bearer_auth(&ada.token), &batch)).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let (results, errors) = results_and_errors(&answer.body);
        assert_eq!(results, 5, "{:#}", answer.body);
        assert_eq!(errors.len(), 2, "{:#}", answer.body);
        for (code, message) in &errors {
            assert_eq!(*code, -32000, "{message}");
            assert!(message.contains("rate limit reached"), "{message}");
        }
        assert_eq!(answer.body[5]["id"], 6, "the answers keep their requests' ids");
        assert_eq!((answer.limit, answer.remaining), (Some(5), Some(0)), "the headers count the batch");
        assert_eq!(who_am_i(&http, &base, &ada).await.status, 429, "the batch spent the minute");
        next_minute(&app);
        let crs = app.get(&ada, &format!("/v1/spaces/{space}/change-requests")).await;
        let subjects: Vec<&str> = crs.items().iter().filter_map(|cr| cr["subject"].as_str()).collect();
        assert_eq!(subjects, ["Within the limit"], "the request past the limit was not run");

        // A site's server: four a minute per address.
        let pings: Vec<Value> = (1..=6).map(|id| rpc(id, "ping", json!({}))).collect();
        let answer = send(mcp_batch(http.post(format!("{base}/guide/~gitbook/mcp")), &pings)).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let (results, errors) = results_and_errors(&answer.body);
        assert_eq!((results, errors.len()), (4, 2), "{:#}", answer.body);
        assert!(errors.iter().all(|(code, _)| *code == -32000), "{errors:?}");
        assert_eq!(send(http.get(format!("{base}/guide/"))).await.status, 429);
    }
}
