//! Collections: create, nest, list, update, move (never into themselves),
//! delete (their content moves up) and transfer.

use serde_json::json;

use crate::support::both_backends;

both_backends! {
    async fn create_nest_list_update(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let res = app.post(&ada, &format!("/v1/orgs/{org}/collections"), json!({ "title": "Product" })).await;
        res.assert_status(201);
        let top = res.id();
        assert_eq!(res.body["defaultLevel"], "inherit");
        assert_eq!(res.body["permissions"]["create"], true);
        let child = app.collection(&ada, &org, "API", Some(&top)).await;
        assert_eq!(app.get(&ada, &format!("/v1/collections/{child}")).await.body["parent"], top.as_str());

        assert_eq!(app.ids(&ada, &format!("/v1/orgs/{org}/collections")).await.len(), 2);
        assert_eq!(app.ids(&ada, &format!("/v1/orgs/{org}/collections?nested=false")).await, vec![top.clone()]);

        let path = format!("/v1/collections/{top}");
        let patched = app.patch(&ada, &path, json!({ "title": "Products", "description": "All of them", "defaultLevel": "comment" })).await;
        patched.assert_status(200);
        assert_eq!(patched.body["title"], "Products");
        assert_eq!(patched.body["description"], "All of them");
        assert_eq!(patched.body["defaultLevel"], "comment");
        app.patch(&ada, &path, json!({ "title": "x".repeat(51) })).await.assert_status(400);
        app.patch(&ada, &path, json!({ "description": "x".repeat(101) })).await.assert_status(400);
        app.post(&ada, &format!("/v1/orgs/{org}/collections"), json!({ "title": "x".repeat(51) })).await.assert_status(400);
        app.post(&ada, &format!("/v1/orgs/{org}/collections"), json!({ "title": "Orphan", "parent": "nope" })).await.assert_status(400);
        assert_eq!(app.get(&ada, &path).await.body["title"], "Products");
    }

    async fn a_collection_never_becomes_its_own_ancestor(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let a = app.collection(&ada, &org, "A", None).await;
        let b = app.collection(&ada, &org, "B", Some(&a)).await;
        let c = app.collection(&ada, &org, "C", Some(&b)).await;
        app.post(&ada, &format!("/v1/collections/{a}/move"), json!({ "parent": a })).await.assert_status(400);
        app.post(&ada, &format!("/v1/collections/{a}/move"), json!({ "parent": c })).await.assert_status(400);
        assert!(app.get(&ada, &format!("/v1/collections/{a}")).await.body.get("parent").is_none());
        // Moving C up to the root, before A, is fine.
        let moved = app
            .post(&ada, &format!("/v1/collections/{c}/move"), json!({ "parent": null, "position": { "before": { "type": "collection", "collection": a } } }))
            .await;
        moved.assert_status(200);
        assert!(moved.body.get("parent").is_none());
        assert_eq!(app.ids(&ada, &format!("/v1/orgs/{org}/collections?nested=false")).await, vec![c, a]);
    }

    async fn deleting_a_collection_keeps_its_content(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let outer = app.collection(&ada, &org, "Outer", None).await;
        let inner = app.collection(&ada, &org, "Inner", Some(&outer)).await;
        let kept = app.space(&ada, &org, "Kept", Some(&inner)).await;
        let sub = app.collection(&ada, &org, "Sub", Some(&inner)).await;

        app.delete(&ada, &format!("/v1/collections/{inner}")).await.assert_status(204);
        app.get(&ada, &format!("/v1/collections/{inner}")).await.assert_status(404);
        let space = app.get(&ada, &format!("/v1/spaces/{kept}")).await;
        space.assert_status(200);
        assert_eq!(space.body["parent"], outer.as_str(), "spaces move up to the parent");
        assert_eq!(app.get(&ada, &format!("/v1/collections/{sub}")).await.body["parent"], outer.as_str());
        app.delete(&ada, &format!("/v1/collections/{inner}")).await.assert_status(204);
    }

    async fn transfer_moves_the_whole_tree(app: TestApp) {
        let ada = app.user("Ada").await;
        let from = app.org(&ada, "From").await;
        let to = app.org(&ada, "To").await;
        let top = app.collection(&ada, &from, "Top", None).await;
        let nested = app.collection(&ada, &from, "Nested", Some(&top)).await;
        let space = app.space(&ada, &from, "Deep", Some(&nested)).await;
        let res = app.post(&ada, &format!("/v1/collections/{top}/transfer"), json!({ "organization": to })).await;
        res.assert_status(200);
        assert_eq!(res.body["organization"], to.as_str());
        assert_eq!(app.get(&ada, &format!("/v1/collections/{nested}")).await.body["organization"], to.as_str());
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}")).await.body["organization"], to.as_str());
        assert!(app.ids(&ada, &format!("/v1/orgs/{from}/collections")).await.is_empty());
        app.post(&ada, &format!("/v1/collections/{top}/transfer"), json!({ "organization": "nope" })).await.assert_status(400);
    }
}
