//! Webhooks: an organization's administrators register endpoints; each
//! event they subscribe to reaches a local receiver as a JSON `POST` whose
//! HMAC-SHA256 signature over `{timestamp}.{body}` the receiver verifies
//! with the secret shown once; a failing endpoint is tried again after the
//! backoff, every attempt in the delivery log; a delivery can be sent
//! again; and endpoints obey the fetch policy.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::support::{TestApp, TestUser, both_backends};

/// What the receiver got: the headers that matter and the body.
#[derive(Debug, Clone)]
struct Received {
    event: String,
    delivery: String,
    signature: String,
    body: String,
}

/// A local endpoint recording every request; it answers 500 while
/// `failures` is above zero (counting down), else 204.
struct Receiver {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
    failures: Arc<AtomicUsize>,
}

impl Receiver {
    async fn start() -> Receiver {
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let failures: Arc<AtomicUsize> = Arc::default();
        let (log, failing) = (received.clone(), failures.clone());
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                let (log, failing) = (log.clone(), failing.clone());
                async move {
                    let header = |name: &str| {
                        headers
                            .get(name)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_owned()
                    };
                    log.lock().unwrap().push(Received {
                        event: header("x-quire-event"),
                        delivery: header("x-quire-delivery"),
                        signature: header("x-quire-signature"),
                        body: String::from_utf8(body.to_vec()).unwrap(),
                    });
                    let fail = failing
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                    if fail {
                        StatusCode::INTERNAL_SERVER_ERROR
                    } else {
                        StatusCode::NO_CONTENT
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Receiver {
            url,
            received,
            failures,
        }
    }

    fn events(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// Checks the signature as a receiver would, with only the secret.
fn verify(secret: &str, received: &Received) -> Value {
    let (t, v1) = received
        .signature
        .split_once(",v1=")
        .and_then(|(t, v1)| Some((t.strip_prefix("t=")?, v1)))
        .unwrap_or_else(|| panic!("signature header {:?}", received.signature));
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{}", received.body).as_bytes());
    let expected: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(v1, expected, "the signature verifies with the secret");
    let age = quire_core::time::Clock::now(&quire_core::SystemClock).0 / 1000 - t.parse::<i64>().unwrap();
    assert!(age.abs() < 600, "a recent timestamp");
    serde_json::from_str(&received.body).unwrap()
}

async fn register(app: &TestApp, admin: &TestUser, org: &str, url: &str, events: &[&str]) -> (String, String) {
    let res = app
        .post(
            admin,
            &format!("/v1/orgs/{org}/webhooks"),
            json!({ "url": url, "events": events }),
        )
        .await;
    res.assert_status(201);
    let secret = res.body["secret"].as_str().expect("the secret, shown once").to_owned();
    (res.id(), secret)
}

both_backends! {
    async fn events_reach_a_receiver_signed(app: TestApp) {
        let receiver = Receiver::start().await;
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let all = [
            "space_content_updated", "change_request_opened", "change_request_updated",
            "change_request_merged", "change_request_closed", "comment_created", "site_published",
            "site_unpublished", "member_joined", "member_left",
        ];
        let (hook, secret) = register(&app, &ada, &org, &receiver.url, &all).await;
        assert!(secret.len() >= 32);
        let shown = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}")).await;
        shown.assert_status(200);
        assert!(shown.body.get("secret").is_none(), "the secret is shown once");

        // Every kind of event, then the jobs that send them.
        app.add_member(&ada, &org, &bob, json!("edit")).await;
        app.publish(&ada, &space, json!([{ "operation": "insert_page", "ref": "intro", "document": { "markdown": "# Intro\n\nHello.\n" } }])).await;
        let cr = app.change_request(&ada, &space, "Draft").await;
        app.patch(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}"), json!({ "status": "archived" }))
            .await
            .assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/comments"), json!({ "body": { "markdown": "Nice" } }))
            .await
            .assert_status(200);
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Docs", "spaces": [space] })).await;
        site.assert_status(201);
        let site = site.id();
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{site}/publish"), json!(null)).await.assert_status(200);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{site}/unpublish"), json!(null)).await.assert_status(200);
        app.delete(&ada, &format!("/v1/orgs/{org}/members/{}", bob.id)).await.assert_status(204);
        app.run_due_jobs().await;

        let received = receiver.events();
        let mut seen: Vec<String> = Vec::new();
        for r in &received {
            let event = verify(&secret, r);
            assert_eq!(event["type"], r.event.as_str());
            assert_eq!(event["organizationId"], org.as_str());
            seen.push(r.event.clone());
        }
        for kind in all {
            assert!(seen.iter().any(|s| s == kind), "{kind} not received: {seen:?}");
        }
        let opened = received.iter().find(|r| r.event == "change_request_opened").unwrap();
        assert_eq!(verify(&secret, opened)["spaceId"], space.as_str());
        let content = received.iter().find(|r| r.event == "space_content_updated").unwrap();
        assert_eq!(verify(&secret, content)["updatedBy"][0]["id"], ada.id.as_str());
        let joined = received.iter().find(|r| r.event == "member_joined").unwrap();
        assert_eq!(verify(&secret, joined)["userId"], bob.id.as_str());
        // Each delivery once.
        let mut ids: Vec<&str> = received.iter().map(|r| r.delivery.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), received.len());

        // The log lists them, delivered, newest first; one shows its event.
        let log = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}/deliveries?limit=100")).await;
        log.assert_status(200);
        assert_eq!(log.items().len(), received.len());
        assert!(log.items().iter().all(|d| d["state"] == "delivered" && d["responseStatus"] == 204));
        let one = log.items()[0]["id"].as_str().unwrap();
        let one = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}/deliveries/{one}")).await;
        one.assert_status(200);
        assert_eq!(one.body["event"]["type"], one.body["eventType"]);

        // An endpoint that subscribes to one kind hears only that.
        let other = Receiver::start().await;
        let (_, other_secret) = register(&app, &ada, &org, &other.url, &["comment_created"]).await;
        app.change_request(&ada, &space, "Second").await;
        app.post(&ada, &format!("/v1/spaces/{space}/comments"), json!({ "body": { "markdown": "Again" } }))
            .await
            .assert_status(200);
        app.run_due_jobs().await;
        let heard = other.events();
        assert_eq!(heard.len(), 1, "{heard:?}");
        assert_eq!(verify(&other_secret, &heard[0])["type"], "comment_created");
        // An inactive endpoint hears nothing.
        app.patch(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}"), json!({ "active": false }))
            .await
            .assert_status(200);
        let before = receiver.events().len();
        app.change_request(&ada, &space, "Third").await;
        app.run_due_jobs().await;
        assert_eq!(receiver.events().len(), before);
    }

    /// A delivery is bookkeeping: sending it leaves the caches of API reads
    /// as they were (announcing every delivery as a change emptied them
    /// several times a second under load).
    async fn deliveries_leave_the_caches_of_api_reads_alone(app: TestApp) {
        let receiver = Receiver::start().await;
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        register(&app, &ada, &org, &receiver.url, &["change_request_opened"]).await;
        app.change_request(&ada, &space, "Draft").await;

        // What the caches hear, once everything announced so far came back.
        let heard: Arc<Mutex<Vec<String>>> = Arc::default();
        app.db.bus().follow(&heard, |log, heard| {
            if let quire_store::bus::Heard::Message(message) = heard {
                log.lock().unwrap().push(message.topic);
            }
        });
        // One sentinel must come back itself: a follower hears an
        // announcement within the call and once more from the node's
        // subscribers, and on PostgreSQL a third time through the database,
        // after everything committed before it (hearings of two sentinels
        // on this node proved nothing, and a late `state.changed` of the
        // requests above failed the test under load).
        let copies = if app.db.backend() == quire_store::db::Backend::Postgres { 3 } else { 2 };
        let mut caught_up = false;
        for round in 0..50 {
            let sentinel = format!("test.sentinel.{round}");
            let mut conn = app.db.read().await.unwrap();
            app.db.bus().announce(&mut conn, &sentinel, "").await.unwrap();
            drop(conn);
            for _ in 0..20 {
                if heard.lock().unwrap().iter().filter(|t| **t == sentinel).count() >= copies {
                    caught_up = true;
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            if caught_up {
                break;
            }
        }
        assert!(caught_up, "the bus carries the sentinel back");
        heard.lock().unwrap().clear();

        assert_eq!(app.run_due_jobs().await, 1, "the delivery ran");
        assert_eq!(receiver.events().len(), 1);
        let topics = heard.lock().unwrap().clone();
        assert!(
            !topics.iter().any(|t| t == quire_app::changes::STATE_CHANGED),
            "a delivery announces no change: {topics:?}"
        );
    }

    async fn failed_deliveries_are_retried_and_redelivered(app: TestApp) {
        let receiver = Receiver::start().await;
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let (hook, secret) = register(&app, &ada, &org, &receiver.url, &["change_request_opened"]).await;
        receiver.failures.store(2, Ordering::SeqCst);
        app.change_request(&ada, &space, "Draft").await;

        app.run_due_jobs().await;
        let log = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}/deliveries")).await;
        let delivery = log.items()[0].clone();
        assert_eq!(delivery["state"], "pending");
        assert_eq!(delivery["attempts"], 1);
        assert_eq!(delivery["responseStatus"], 500);
        assert!(delivery["error"].as_str().unwrap().contains("500"));
        // Not before the backoff...
        assert_eq!(app.run_due_jobs().await, 0);
        // ...then again, growing.
        app.clock.advance_millis(16_000);
        app.run_due_jobs().await;
        app.clock.advance_millis(31_000);
        app.run_due_jobs().await;
        let id = delivery["id"].as_str().unwrap();
        let delivered = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}/deliveries/{id}")).await;
        assert_eq!(delivered.body["state"], "delivered");
        assert_eq!(delivered.body["attempts"], 3);
        let received = receiver.events();
        assert_eq!(received.len(), 3);
        assert!(received.iter().all(|r| r.delivery == id));
        // The same event, signed each time.
        for r in &received {
            assert_eq!(verify(&secret, r)["eventId"], delivered.body["eventId"]);
        }

        // Sent again on request: a new delivery of the same event.
        let again = app
            .post(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}/deliveries/{id}/redeliver"), json!(null))
            .await;
        again.assert_status(201);
        assert_eq!(again.body["redeliveryOf"], id);
        assert_eq!(again.body["state"], "pending");
        app.run_due_jobs().await;
        let received = receiver.events();
        assert_eq!(received.len(), 4);
        assert_eq!(received[3].delivery, again.id());
        assert_eq!(verify(&secret, &received[3])["eventId"], delivered.body["eventId"]);

        // A rotated secret signs what follows; the old one no longer does.
        let rotated = app
            .patch(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}"), json!({ "rotateSecret": true }))
            .await;
        rotated.assert_status(200);
        let new_secret = rotated.body["secret"].as_str().unwrap().to_owned();
        assert_ne!(new_secret, secret);
        app.change_request(&ada, &space, "Next").await;
        app.run_due_jobs().await;
        verify(&new_secret, receiver.events().last().unwrap());

        // An endpoint that never answers well: failed after the last attempt.
        receiver.failures.store(100, Ordering::SeqCst);
        app.change_request(&ada, &space, "Doomed").await;
        for _ in 0..quire_webhooks::MAX_ATTEMPTS {
            app.run_due_jobs().await;
            app.clock.advance_millis(120_000);
        }
        let log = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{hook}/deliveries")).await;
        let doomed = &log.items()[0];
        assert_eq!(doomed["state"], "failed");
        assert_eq!(doomed["attempts"], quire_webhooks::MAX_ATTEMPTS);
    }

    async fn only_administrators_manage_webhooks_and_bad_input_is_refused(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let eve = app.user("Eve").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("edit")).await;
        let body = json!({ "url": "http://127.0.0.1:9/hook", "events": ["comment_created"] });
        app.post(&bob, &format!("/v1/orgs/{org}/webhooks"), body.clone()).await.assert_status(403);
        app.post(&eve, &format!("/v1/orgs/{org}/webhooks"), body.clone()).await.assert_status(404);
        app.get(&bob, &format!("/v1/orgs/{org}/webhooks")).await.assert_status(403);
        for bad in [
            json!({ "url": "ftp://example.com/x", "events": ["comment_created"] }),
            json!({ "url": "not a url", "events": ["comment_created"] }),
            json!({ "url": "http://127.0.0.1:9/hook", "events": [] }),
            json!({ "url": "http://127.0.0.1:9/hook", "events": ["space_deleted"] }),
            json!({ "url": "http://127.0.0.1:9/hook", "events": ["comment_created"], "secret": "short" }),
            json!({ "url": "http://127.0.0.1:9/hook", "events": ["comment_created"], "colour": "red" }),
        ] {
            app.post(&ada, &format!("/v1/orgs/{org}/webhooks"), bad).await.assert_status(400);
        }
        let list = app.get(&ada, &format!("/v1/orgs/{org}/webhooks")).await;
        list.assert_status(200);
        assert!(list.items().is_empty(), "nothing was made");

        // Credentials in the URL are kept for delivery, never shown.
        let res = app
            .post(
                &ada,
                &format!("/v1/orgs/{org}/webhooks"),
                json!({ "url": "http://user:pa55word@127.0.0.1:9/hook?token=s3cret", "events": ["comment_created"],
                        "secret": "a-secret-of-my-own" }),
            )
            .await;
        res.assert_status(201);
        assert_eq!(res.body["secret"], "a-secret-of-my-own");
        let id = res.id();
        let shown = app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{id}")).await.body.to_string();
        assert!(!shown.contains("pa55word") && !shown.contains("s3cret"), "{shown}");
        app.delete(&ada, &format!("/v1/orgs/{org}/webhooks/{id}")).await.assert_status(204);
        app.get(&ada, &format!("/v1/orgs/{org}/webhooks/{id}")).await.assert_status(404);
    }

    #[app(deny_private_fetch)]
    async fn endpoints_on_private_addresses_are_refused(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        for url in ["http://127.0.0.1:8080/hook", "http://10.0.0.5/hook", "http://localhost/hook", "http://[::1]/hook"] {
            let res = app
                .post(&ada, &format!("/v1/orgs/{org}/webhooks"), json!({ "url": url, "events": ["comment_created"] }))
                .await;
            res.assert_status(400);
            assert!(res.message().contains("private") || res.message().contains("loopback"), "{}", res.message());
        }
    }
}
