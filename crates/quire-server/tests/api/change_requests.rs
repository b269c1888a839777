//! Change requests: numbers, reading by id or number, status, filters,
//! counters, and what a merged change request refuses.

use serde_json::{Value, json};

use crate::support::both_backends;

both_backends! {
    async fn create_read_by_id_or_number_and_patch(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let base = format!("/v1/spaces/{space}/change-requests");

        let first = app.post(&ada, &base, json!({ "subject": "First" })).await;
        first.assert_status(201);
        assert_eq!(first.body["number"], 1);
        assert_eq!(first.body["status"], "open");
        assert_eq!(first.body["outdated"], false);
        assert_eq!(first.body["createdBy"]["id"], ada.id.as_str());
        let id = first.id();
        let second = app.post(&ada, &base, json!({ "subject": "Second" })).await;
        assert_eq!(second.body["number"], 2);

        assert_eq!(app.get(&ada, &format!("{base}/{id}")).await.body["subject"], "First");
        assert_eq!(app.get(&ada, &format!("{base}/1")).await.body["id"], id.as_str());
        app.get(&ada, &format!("{base}/99")).await.assert_status(404);

        let patched = app.patch(&ada, &format!("{base}/1"), json!({ "subject": "Renamed", "status": "draft" })).await;
        patched.assert_status(200);
        assert_eq!(patched.body["subject"], "Renamed");
        assert_eq!(patched.body["status"], "draft");
        app.patch(&ada, &format!("{base}/1"), json!({ "status": "merged" })).await.assert_status(400);
        app.patch(&ada, &format!("{base}/1"), json!({ "status": "closed" })).await.assert_status(400);
        app.patch(&ada, &format!("{base}/1"), json!({ "subject": "x".repeat(101) })).await.assert_status(400);

        // Lists default to open change requests.
        let open = app.ids(&ada, &base).await;
        assert_eq!(open, vec![second.id()]);
        assert_eq!(app.ids(&ada, &format!("{base}?status=draft")).await, vec![id.clone()]);
        assert_eq!(app.ids(&ada, &format!("{base}?status=open&creator={}", ada.id)).await.len(), 1);
        assert!(app.ids(&ada, &format!("{base}?status=open&creator=nobody")).await.is_empty());

        let space_view = app.get(&ada, &format!("/v1/spaces/{space}")).await;
        assert_eq!(space_view.body["changeRequests"], 2);
        assert_eq!(space_view.body["changeRequestsOpen"], 1);
        assert_eq!(space_view.body["changeRequestsDraft"], 1);
    }

    async fn twenty_concurrent_creations_get_twenty_numbers(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let path = format!("/v1/spaces/{space}/change-requests");
        let requests = (0..20).map(|i| app.post(&ada, &path, json!({ "subject": format!("CR {i}") })));
        let responses = futures_util::future::join_all(requests).await;
        let mut numbers: Vec<u64> = responses
            .iter()
            .map(|r| {
                r.assert_status(201);
                r.body["number"].as_u64().unwrap()
            })
            .collect();
        numbers.sort_unstable();
        assert_eq!(numbers, (1..=20).collect::<Vec<u64>>());
    }

    /// Merges landing at once each find the space moved by the others: each
    /// merges again onto the new head, so all land and none is refused.
    async fn concurrent_merges_of_different_pages_all_land(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let inserts: Vec<Value> = (0..6)
            .map(|i| json!({ "operation": "insert_page", "ref": format!("p{i}"), "title": format!("Page {i}"), "document": { "markdown": format!("Page {i}, first text.\n") } }))
            .collect();
        let ids = app.publish(&ada, &space, Value::Array(inserts)).await;
        let mut crs = Vec::new();
        for i in 0..6 {
            let cr = app.change_request(&ada, &space, &format!("Edit {i}")).await;
            let page = ids[format!("p{i}")].as_str().unwrap().to_owned();
            app.write(&ada, &space, &cr, json!([{ "operation": "update_page", "page": page, "document": { "markdown": format!("Page {i}, edited.\n") } }]))
                .await
                .assert_status(200);
            crs.push(cr);
        }
        let paths: Vec<String> = crs.iter().map(|cr| format!("/v1/spaces/{space}/change-requests/{cr}/merge")).collect();
        let merges = paths.iter().map(|path| app.post(&ada, path, json!(null)));
        for merged in futures_util::future::join_all(merges).await {
            merged.assert_status(200);
        }
        for i in 0..6 {
            let page = ids[format!("p{i}")].as_str().unwrap();
            let read = app.get(&ada, &format!("/v1/spaces/{space}/content/page/{page}?format=markdown")).await;
            read.assert_status(200);
            assert!(
                read.body["markdown"].as_str().unwrap_or_default().contains(&format!("Page {i}, edited.")),
                "every merge landed: {}",
                read.body
            );
        }
    }

    async fn readers_cannot_open_or_merge(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let reader = app.user("Reader").await;
        app.add_member(&ada, &org, &reader, json!("read")).await;
        let editor = app.user("Editor").await;
        app.add_member(&ada, &org, &editor, json!("edit")).await;
        app.post(&reader, &format!("/v1/spaces/{space}/change-requests"), json!({})).await.assert_status(403);
        let cr = app.change_request(&editor, &space, "By editor").await;
        app.write(&editor, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": "# A\n" } }]))
            .await
            .assert_status(200);
        app.post(&editor, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await.assert_status(403);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await.assert_status(200);
    }

    async fn merged_change_requests_refuse_edits_and_merges(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let cr = app.change_request(&ada, &space, "Once").await;
        app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": "# Once\n" } }]))
            .await
            .assert_status(200);
        let merged = app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await;
        merged.assert_status(200);
        assert_eq!(merged.body["result"], "merge");
        let view = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await;
        assert_eq!(view.body["status"], "merged");
        assert_eq!(view.body["revisionMerged"], merged.body["revision"]);
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"], merged.body["revision"]);

        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await.assert_status(409);
        app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": "# Twice\n" } }]))
            .await
            .assert_status(409);
        app.patch(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}"), json!({ "subject": "x" })).await.assert_status(409);
        assert_eq!(app.outline(&ada, &format!("/v1/spaces/{space}/content/pages")).await, vec!["Once"]);
    }

    async fn emails_of_creators_and_mergers_only_for_organization_admins_and_themselves(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let rita = app.user("Rita").await;
        let gus = app.user("Gus").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("edit")).await;
        app.add_member(&ada, &org, &rita, json!("read")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        app.post(&ada, &format!("/v1/spaces/{space}/permissions"), json!({ "role": "read", "users": [gus.email] }))
            .await
            .assert_status(204);
        let base = format!("/v1/spaces/{space}/change-requests");
        let opened = app.post(&bob, &base, json!({ "subject": "Guide" })).await;
        opened.assert_status(201);
        assert_eq!(opened.body["createdBy"]["email"], bob.email.as_str(), "his own");
        let merged_cr = opened.id();
        let written = app.write(&bob, &space, &merged_cr, json!([{ "operation": "insert_page", "document": { "markdown": "# Guide\n" } }])).await;
        assert_eq!(written.emails_shown(), vec![bob.id.clone()], "{}", written.body);
        let merged = app.post(&ada, &format!("{base}/{merged_cr}/merge"), json!(null)).await;
        merged.assert_status(200);
        let revision = merged.body["revision"].as_str().unwrap().to_owned();
        let open_cr = app.change_request(&bob, &space, "Next").await;

        let mut both = vec![ada.id.clone(), bob.id.clone()];
        both.sort();
        // (path, what an admin sees there)
        let views = [
            (base.clone(), vec![bob.id.clone()]),
            (format!("{base}/{open_cr}"), vec![bob.id.clone()]),
            (format!("{base}/{merged_cr}"), both.clone()),
            (format!("/v1/spaces/{space}/revisions/{revision}"), both.clone()),
        ];
        for (path, admin_sees) in &views {
            let by_admin = app.get(&ada, path).await;
            by_admin.assert_status(200);
            assert!(by_admin.body.to_string().contains(&bob.id), "{path} names Bob: {}", by_admin.body);
            assert_eq!(&by_admin.emails_shown(), admin_sees, "{path}: {}", by_admin.body);
            assert_eq!(app.get(&bob, path).await.emails_shown(), vec![bob.id.clone()], "{path}");
            for viewer in [&rita, &gus] {
                let res = app.get(viewer, path).await;
                res.assert_status(200);
                assert_eq!(res.emails_shown(), Vec::<String>::new(), "{path} as {}: {}", viewer.email, res.body);
            }
        }
    }
}
