//! The audit log: every change by every actor (a token, a session, a job)
//! leaves one entry, written with the change, in the organization's log,
//! readable only by its administrators through the official
//! `audit-events` operations (paged, filtered), with nothing secret in it;
//! a refused request leaves none.

use quire_core::time::Clock as _;
use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

async fn log(app: &TestApp, admin: &TestUser, org: &str, query: &str) -> Vec<Value> {
    let res = app
        .get(admin, &format!("/v1/orgs/{org}/audit-events?limit=100{query}"))
        .await;
    res.assert_status(200);
    res.items().clone()
}

fn find<'a>(events: &'a [Value], action: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["action"] == action)
        .unwrap_or_else(|| panic!("no {action:?} in {events:#?}"))
}

both_backends! {
    async fn every_change_is_recorded_with_its_actor_and_target(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let eve = app.user("Eve").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("review")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let collection = app.collection(&ada, &org, "Guides", None).await;
        app.patch(&ada, &format!("/v1/spaces/{space}"), json!({ "title": "Handbook" }))
            .await
            .assert_status(200);
        app.publish(&bob, &space, json!([{ "operation": "insert_page", "ref": "intro", "document": { "markdown": "# Intro\n\nHello.\n" } }]))
            .await;
        let team = app.put(&ada, &format!("/v1/orgs/{org}/teams"), json!({ "title": "Writers" })).await;
        team.assert_status(201);
        let team = team.id();
        // A refused change leaves nothing.
        let before = log(&app, &ada, &org, "").await.len();
        app.post(&ada, &format!("/v1/orgs/{org}/spaces"), json!({ "title": 42 }))
            .await
            .assert_status(400);
        app.delete(&bob, &format!("/v1/orgs/{org}/teams/{team}")).await.assert_status(403);
        assert_eq!(log(&app, &ada, &org, "").await.len(), before);
        app.delete(&ada, &format!("/v1/spaces/{space}")).await.assert_status(204);

        let events = log(&app, &ada, &org, "").await;
        let created_org = find(&events, "POST /orgs");
        assert_eq!(created_org["target"], json!({ "type": "organization", "id": org }));
        assert_eq!(created_org["actor"]["id"], ada.id.as_str());
        assert_eq!(created_org["actor"]["type"], "user");
        assert_eq!(created_org["source"], "api");
        let created_space = find(&events, "POST /orgs/{organizationId}/spaces");
        assert_eq!(created_space["target"], json!({ "type": "space", "id": space }));
        assert_eq!(
            find(&events, "POST /orgs/{organizationId}/collections")["target"],
            json!({ "type": "collection", "id": collection })
        );
        assert_eq!(
            find(&events, "PATCH /spaces/{spaceId}")["target"],
            json!({ "type": "space", "id": space })
        );
        let merged = find(&events, "POST /spaces/{spaceId}/change-requests/{changeRequestId}/merge");
        assert_eq!(merged["actor"]["id"], bob.id.as_str());
        assert_eq!(merged["target"]["type"], "change-request");
        let opened = find(&events, "POST /spaces/{spaceId}/change-requests");
        assert_eq!(opened["target"]["type"], "change-request");
        find(&events, "POST /spaces/{spaceId}/change-requests/{changeRequestId}/content");
        find(&events, "POST /orgs/{organizationId}/invites");
        assert_eq!(find(&events, "PUT /orgs/{organizationId}/teams")["target"], json!({ "type": "team", "id": team }));
        let deleted = find(&events, "DELETE /spaces/{spaceId}");
        assert_eq!(deleted["target"], json!({ "type": "space", "id": space }));
        // Newest first.
        assert_eq!(events[0]["action"], "DELETE /spaces/{spaceId}");

        // The details: the route, its parameters and the address; no secret.
        let details = app.get(&ada, &format!("/v1/orgs/{org}/audit-events/{}", deleted["id"].as_str().unwrap())).await;
        details.assert_status(200);
        assert_eq!(details.body["payload"]["route"], "/v1/spaces/{spaceId}");
        assert_eq!(details.body["payload"]["parameters"]["spaceId"], space.as_str());
        assert_eq!(details.body["payload"]["address"], "127.0.0.1");
        assert_eq!(details.body["schemaVersion"], 1);
        let everything = app.get(&ada, &format!("/v1/orgs/{org}/audit-events?limit=100")).await.body.to_string();
        for secret in [&ada.token, &bob.token] {
            assert!(!everything.contains(secret.as_str()), "a token in the log");
        }

        // A job's change: the space purged once its restore window passed.
        app.clock.advance_days(8);
        assert!(app.run_due_jobs().await >= 1);
        let events = log(&app, &ada, &org, "").await;
        let purged = find(&events, "job purge_space");
        assert_eq!(purged["actor"], json!({ "type": "system", "id": "job:purge_space" }));
        assert_eq!(purged["source"], "workflow");
        assert_eq!(purged["target"], json!({ "type": "space", "id": space }));

        // Only administrators read the log; outsiders do not see it exists.
        app.get(&bob, &format!("/v1/orgs/{org}/audit-events")).await.assert_status(403);
        app.get(&eve, &format!("/v1/orgs/{org}/audit-events")).await.assert_status(404);
        app.get(&bob, &format!("/v1/orgs/{org}/audit-event-actions")).await.assert_status(403);
        app.get(&ada, &format!("/v1/orgs/{org}/audit-events/{}", "0f1e2d3c-0000-4000-8000-000000000000"))
            .await
            .assert_status(404);
        // Another organization's entry is not found through this one.
        let other = app.org(&eve, "Other").await;
        let theirs = log(&app, &eve, &other, "").await;
        app.get(&ada, &format!("/v1/orgs/{org}/audit-events/{}", theirs[0]["id"].as_str().unwrap()))
            .await
            .assert_status(404);
    }

    async fn the_log_is_filtered_and_paged(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("admin")).await;
        let start = app.clock.now().to_rfc3339();
        let mut spaces = Vec::new();
        for i in 0..5 {
            spaces.push(app.space(&ada, &org, &format!("Space {i}"), None).await);
        }
        app.clock.advance_days(1);
        let later = app.clock.now().to_rfc3339();
        app.space(&bob, &org, "Bob's", None).await;

        let created = log(&app, &ada, &org, "&action=POST%20/orgs/%7BorganizationId%7D/spaces").await;
        assert_eq!(created.len(), 6);
        assert!(created.iter().all(|e| e["action"] == "POST /orgs/{organizationId}/spaces"));
        let by_bob = log(&app, &ada, &org, &format!("&actor={}", bob.id)).await;
        let actions: Vec<&str> = by_bob.iter().filter_map(|e| e["action"].as_str()).collect();
        assert_eq!(
            actions,
            ["POST /orgs/{organizationId}/spaces", "POST /orgs/{organizationId}/invites/{inviteId}"],
            "Bob's space, and his accepting the invitation"
        );
        assert!(by_bob.iter().all(|e| e["actor"]["id"] == bob.id.as_str()));
        let about = log(&app, &ada, &org, &format!("&target={}", spaces[2])).await;
        assert_eq!(about.len(), 1);
        let since = log(&app, &ada, &org, &format!("&from={later}")).await;
        assert_eq!(since.len(), 1);
        let until = log(&app, &ada, &org, &format!("&from={start}&to={later}")).await;
        assert_eq!(until.len(), 5, "{until:#?}");

        // Pages of two, newest first, without repeats.
        let mut seen = Vec::new();
        let mut url = format!("/v1/orgs/{org}/audit-events?limit=2");
        loop {
            let page = app.get(&ada, &url).await;
            page.assert_status(200);
            assert!(page.items().len() <= 2);
            assert!(page.body.get("count").is_none(), "the log is never counted whole: {}", page.body);
            seen.extend(page.items().iter().map(|e| e["id"].as_str().unwrap().to_owned()));
            match page.next_page() {
                Some(next) => url = format!("/v1/orgs/{org}/audit-events?limit=2&page={next}"),
                None => break,
            }
        }
        let all = log(&app, &ada, &org, "").await;
        let ids: Vec<String> = all.iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect();
        assert_eq!(seen, ids);

        let actions = app.get(&ada, &format!("/v1/orgs/{org}/audit-event-actions")).await;
        actions.assert_status(200);
        assert!(actions.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == "POST /orgs/{organizationId}/spaces" && a["object"] == "audit-event-action"));

        for bad in ["limit=0", "limit=101", "from=yesterday", "to=2026-13-01", "page=nonsense"] {
            let res = app.get(&ada, &format!("/v1/orgs/{org}/audit-events?{bad}")).await;
            res.assert_status(400);
        }
        let res = app
            .get(&ada, &format!("/v1/orgs/{org}/audit-events?from={later}&to={start}"))
            .await;
        res.assert_status(400);
    }
}
