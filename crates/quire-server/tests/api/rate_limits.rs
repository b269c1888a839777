//! Rate limits: every API answer says where its client stands, a client
//! past its limit gets a 429 in the official shape with `Retry-After` and
//! its request does nothing, each kind of client counts apart, a new
//! minute starts afresh, and nodes on one PostgreSQL database share their
//! counts.

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
