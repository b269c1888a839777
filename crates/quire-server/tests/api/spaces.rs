//! Spaces: create, list, read, update, duplicate, move and transfer.

use serde_json::json;

use crate::support::both_backends;

both_backends! {
    async fn create_read_update(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let res = app
            .post(&ada, &format!("/v1/orgs/{org}/spaces"), json!({ "title": "Guide", "emoji": "📘", "editMode": "live" }))
            .await;
        res.assert_status(201);
        let id = res.id();
        assert_eq!(res.body["title"], "Guide");
        assert_eq!(res.body["emoji"], "📘");
        assert_eq!(res.body["visibility"], "private");
        assert_eq!(res.body["organization"], org.as_str());
        assert_eq!(res.body["defaultLevel"], "inherit");
        assert_eq!(res.body["changeRequests"], 0);
        assert!(res.body["revision"].as_str().is_some_and(|r| !r.is_empty()));
        assert_eq!(res.body["urls"]["location"], format!("{}/v1/spaces/{id}", app.base_url));
        assert_eq!(res.body["permissions"]["admin"], true);

        let path = format!("/v1/spaces/{id}");
        let patched = app
            .patch(&ada, &path, json!({ "title": "User guide", "editMode": "locked", "visibility": "public", "defaultLevel": "edit", "emoji": null }))
            .await;
        patched.assert_status(200);
        assert_eq!(patched.body["title"], "User guide");
        assert_eq!(patched.body["editMode"], "locked");
        assert_eq!(patched.body["visibility"], "public");
        assert_eq!(patched.body["defaultLevel"], "edit");
        assert_eq!(patched.body["emoji"], "");
        let got = app.get(&ada, &path).await;
        got.assert_status(200);
        assert_eq!(got.body["title"], "User guide");

        for bad in [
            json!({ "title": "x".repeat(51) }),
            json!({ "editMode": "frozen" }),
            json!({ "visibility": "secret" }),
            json!({ "visibility": "in-collection" }),
            json!({ "defaultLevel": "owner" }),
            json!({ "emoji": "x".repeat(51) }),
        ] {
            app.patch(&ada, &path, bad).await.assert_status(400);
        }
        assert_eq!(app.get(&ada, &path).await.body["title"], "User guide", "refused patches change nothing");
        app.post(&ada, &format!("/v1/orgs/{org}/spaces"), json!({ "title": "x".repeat(51) })).await.assert_status(400);
        app.post(&ada, &format!("/v1/orgs/{org}/spaces"), json!({ "title": "T", "visibility": "in-collection" }))
            .await
            .assert_status(400);
    }

    async fn lists_keep_tree_order_and_page(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let mut created = Vec::new();
        for i in 0..5 {
            created.push(app.space(&ada, &org, &format!("S{i}"), None).await);
        }
        assert_eq!(app.ids(&ada, &format!("/v1/orgs/{org}/spaces")).await, created);
        let first = app.get(&ada, &format!("/v1/orgs/{org}/spaces?limit=2")).await;
        assert_eq!(first.body["count"], 5);
        let next = first.next_page().expect("a second page");
        let second = app.ids(&ada, &format!("/v1/orgs/{org}/spaces?limit=2&page={next}")).await;
        assert_eq!(second, created[2..4].to_vec());
    }

    async fn duplicate_copies_settings_next_to_the_original(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let a = app.space(&ada, &org, "A", None).await;
        let b = app.space(&ada, &org, "B", None).await;
        app.patch(&ada, &format!("/v1/spaces/{a}"), json!({ "visibility": "unlisted", "emoji": "🚀" })).await.assert_status(200);
        let copy = app.post(&ada, &format!("/v1/spaces/{a}/duplicate"), json!(null)).await;
        copy.assert_status(201);
        let copy_id = copy.id();
        assert_ne!(copy_id, a);
        assert_eq!(copy.body["title"], "A (copy)");
        assert_eq!(copy.body["visibility"], "unlisted");
        assert_eq!(copy.body["emoji"], "🚀");
        assert_ne!(copy.body["revision"], app.get(&ada, &format!("/v1/spaces/{a}")).await.body["revision"]);
        assert_eq!(app.ids(&ada, &format!("/v1/orgs/{org}/spaces")).await, vec![a, copy_id, b]);
    }

    async fn move_into_collections_and_between_siblings(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let col = app.collection(&ada, &org, "Docs", None).await;
        let a = app.space(&ada, &org, "A", Some(&col)).await;
        let b = app.space(&ada, &org, "B", Some(&col)).await;
        let c = app.space(&ada, &org, "C", None).await;
        let spaces_in = format!("/v1/collections/{col}/spaces");
        assert_eq!(app.ids(&ada, &spaces_in).await, vec![a.clone(), b.clone()]);

        // Into the collection, before A.
        let moved = app
            .post(&ada, &format!("/v1/spaces/{c}/move"), json!({ "parent": col, "position": { "before": { "type": "space", "space": a } } }))
            .await;
        moved.assert_status(200);
        assert_eq!(moved.body["parent"], col.as_str());
        assert_eq!(app.ids(&ada, &spaces_in).await, vec![c.clone(), a.clone(), b.clone()]);

        // Reorder within: A after B.
        app.post(&ada, &format!("/v1/spaces/{a}/move"), json!({ "position": { "after": { "type": "space", "space": b } } }))
            .await
            .assert_status(200);
        assert_eq!(app.ids(&ada, &spaces_in).await, vec![c.clone(), b.clone(), a.clone()]);

        // Back to the root.
        let root = app.post(&ada, &format!("/v1/spaces/{b}/move"), json!({ "parent": null })).await;
        root.assert_status(200);
        assert!(root.body.get("parent").is_none());
        assert_eq!(app.ids(&ada, &spaces_in).await, vec![c.clone(), a.clone()]);

        // Bad moves: missing reference, unknown parent, empty body.
        app.post(&ada, &format!("/v1/spaces/{a}/move"), json!({ "position": { "before": { "type": "space", "space": b } } }))
            .await
            .assert_status(400);
        app.post(&ada, &format!("/v1/spaces/{a}/move"), json!({ "parent": "nope" })).await.assert_status(400);
        app.post(&ada, &format!("/v1/spaces/{a}/move"), json!({})).await.assert_status(400);
        assert_eq!(app.ids(&ada, &spaces_in).await, vec![c, a], "refused moves change nothing");
    }

    async fn transfer_to_another_organization(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let from = app.org(&ada, "From").await;
        let to = app.org(&ada, "To").await;
        let foreign = app.org(&bob, "Bob's").await;
        let space = app.space(&ada, &from, "Moving", None).await;
        let col = app.collection(&ada, &to, "Landing", None).await;

        app.post(&ada, &format!("/v1/spaces/{space}/transfer"), json!({ "organization": foreign })).await.assert_status(400);
        app.post(&ada, &format!("/v1/spaces/{space}/transfer"), json!({})).await.assert_status(400);

        let res = app
            .post(&ada, &format!("/v1/spaces/{space}/transfer"), json!({ "organization": to, "collection": col }))
            .await;
        res.assert_status(200);
        assert_eq!(res.body["organization"], to.as_str());
        assert_eq!(res.body["parent"], col.as_str());
        assert!(app.ids(&ada, &format!("/v1/orgs/{from}/spaces")).await.is_empty());
        assert_eq!(app.ids(&ada, &format!("/v1/collections/{col}/spaces")).await, vec![space]);
    }
}
