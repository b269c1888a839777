//! Content permissions: the permission matrix (every role against every
//! class of operation), grants to users and teams, inheritance through
//! collections, and each member's list of spaces.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

const ROLES: [&str; 6] = ["read", "comment", "edit", "review", "create", "admin"];

fn rank(role: &str) -> usize {
    ROLES.iter().position(|r| *r == role).expect("known role")
}

/// Checks what `user`, whose effective role on `space` is `role`, may do.
async fn assert_role_matrix(app: &TestApp, user: &TestUser, org: &str, space: &str, role: &str) {
    let at_least = |needed: &str| rank(role) >= rank(needed);
    let got = app.get(user, &format!("/v1/spaces/{space}")).await;
    got.assert_status(200);
    let perms = &got.body["permissions"];
    assert_eq!(perms["view"], true, "{role}: read");
    assert_eq!(perms["comment"], at_least("comment"), "{role}: comment");
    assert_eq!(perms["edit"], at_least("edit"), "{role}: edit");
    assert_eq!(perms["review"], at_least("review"), "{role}: review");
    assert_eq!(perms["merge"], at_least("review"), "{role}: merge");
    assert_eq!(perms["admin"], at_least("admin"), "{role}: admin");

    // admin class: settings and sharing.
    let patched = app
        .patch(
            user,
            &format!("/v1/spaces/{space}"),
            json!({ "title": format!("by {role}") }),
        )
        .await;
    patched.assert_status(if at_least("admin") { 200 } else { 403 });
    let shared = app
        .post(
            user,
            &format!("/v1/spaces/{space}/permissions"),
            json!({ "role": "read", "users": [user.id] }),
        )
        .await;
    shared.assert_status(if at_least("admin") { 204 } else { 403 });
    let moved = app
        .post(user, &format!("/v1/spaces/{space}/move"), json!({ "position": {} }))
        .await;
    moved.assert_status(if at_least("admin") { 200 } else { 403 });
    // create class: new content next to it.
    let parent = got.body.get("parent").and_then(Value::as_str);
    let mut body = json!({ "title": "New" });
    if let Some(parent) = parent {
        body["parent"] = parent.into();
    }
    let created = app.post(user, &format!("/v1/orgs/{org}/spaces"), body).await;
    created.assert_status(if at_least("create") { 201 } else { 403 });
}

both_backends! {
    async fn organization_roles_against_every_operation_class(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        for role in ROLES {
            let user = app.user(&format!("Member {role}")).await;
            app.add_member(&ada, &org, &user, json!(role)).await;
            let space = app.space(&ada, &org, &format!("For {role}"), None).await;
            assert_role_matrix(&app, &user, &org, &space, role).await;
        }
        // The delete class belongs to admins.
        let reader = app.user("Reader").await;
        app.add_member(&ada, &org, &reader, json!("read")).await;
        let space = app.space(&ada, &org, "Keep", None).await;
        app.delete(&reader, &format!("/v1/spaces/{space}")).await.assert_status(403);
        app.get(&ada, &format!("/v1/spaces/{space}")).await.assert_status(200);
    }

    async fn grants_to_guests_against_every_operation_class(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let col = app.collection(&ada, &org, "Shared", None).await;
        for role in ROLES {
            let guest = app.user(&format!("Guest {role}")).await;
            let space = app.space(&ada, &org, &format!("For {role}"), Some(&col)).await;
            app.get(&guest, &format!("/v1/spaces/{space}")).await.assert_status(404);
            app.post(&ada, &format!("/v1/spaces/{space}/permissions"), json!({ "role": role, "users": [guest.email] }))
                .await
                .assert_status(204);
            let member = app.get(&guest, &format!("/v1/orgs/{org}/members/{}", guest.id)).await;
            assert_eq!(member.body["role"], Value::Null, "shared-with users join as guests");
            let got = app.get(&guest, &format!("/v1/spaces/{space}")).await;
            got.assert_status(200);
            assert_eq!(got.body["permissions"]["edit"], rank(role) >= rank("edit"));
            assert_eq!(got.body["permissions"]["admin"], role == "admin");
            let patched = app.patch(&guest, &format!("/v1/spaces/{space}"), json!({ "title": "changed" })).await;
            patched.assert_status(if role == "admin" { 200 } else { 403 });
            // A grant on a space does not reach its collection: a guest cannot
            // create there (the collection is not even visible to them).
            let created = app.post(&guest, &format!("/v1/orgs/{org}/spaces"), json!({ "title": "x", "parent": col })).await;
            created.assert_status(400);
        }
    }

    async fn team_grant_three_collections_up_reaches_the_space(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let l1 = app.collection(&ada, &org, "L1", None).await;
        let l2 = app.collection(&ada, &org, "L2", Some(&l1)).await;
        let l3 = app.collection(&ada, &org, "L3", Some(&l2)).await;
        let space = app.space(&ada, &org, "Deep", Some(&l3)).await;
        let other = app.space(&ada, &org, "Elsewhere", None).await;

        let dev = app.user("Dev").await;
        app.add_member(&ada, &org, &dev, json!(null)).await;
        let team = app.put(&ada, &format!("/v1/orgs/{org}/teams"), json!({ "title": "Writers", "members": [dev.id] })).await;
        team.assert_status(201);
        let team_id = team.id();
        app.get(&dev, &format!("/v1/spaces/{space}")).await.assert_status(404);

        app.post(&ada, &format!("/v1/collections/{l1}/permissions"), json!({ "role": "edit", "teams": [team_id] }))
            .await
            .assert_status(204);
        let got = app.get(&dev, &format!("/v1/spaces/{space}")).await;
        got.assert_status(200);
        assert_eq!(got.body["permissions"]["edit"], true);
        assert_eq!(got.body["permissions"]["admin"], false);
        app.get(&dev, &format!("/v1/spaces/{other}")).await.assert_status(404);
        assert_eq!(app.ids(&dev, &format!("/v1/orgs/{org}/spaces")).await, vec![space.clone()]);

        let teams = app.get(&ada, &format!("/v1/collections/{l1}/permissions/teams")).await;
        teams.assert_status(200);
        assert_eq!(teams.items()[0]["permission"], "edit");
        assert_eq!(teams.items()[0]["team"]["id"], team_id.as_str());

        // Deleting the team takes its grants with it.
        app.delete(&ada, &format!("/v1/orgs/{org}/teams/{team_id}")).await.assert_status(204);
        app.get(&dev, &format!("/v1/spaces/{space}")).await.assert_status(404);
    }

    async fn default_levels_raise_members_not_guests(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let col = app.collection(&ada, &org, "Open", None).await;
        let space = app.space(&ada, &org, "Inside", Some(&col)).await;
        let reader = app.user("Reader").await;
        app.add_member(&ada, &org, &reader, json!("read")).await;
        let guest = app.user("Guest").await;
        app.add_member(&ada, &org, &guest, json!(null)).await;

        assert_eq!(app.get(&reader, &format!("/v1/spaces/{space}")).await.body["permissions"]["edit"], false);
        app.patch(&ada, &format!("/v1/collections/{col}"), json!({ "defaultLevel": "edit" })).await.assert_status(200);
        assert_eq!(app.get(&reader, &format!("/v1/spaces/{space}")).await.body["permissions"]["edit"], true);
        app.get(&guest, &format!("/v1/spaces/{space}")).await.assert_status(404);
    }

    async fn user_grants_are_listed_changed_and_removed(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Shared", None).await;
        let bob = app.user("Bob").await;
        let base = format!("/v1/spaces/{space}/permissions");

        app.post(&ada, &base, json!({ "role": "comment", "users": [bob.id] })).await.assert_status(204);
        let users = app.get(&ada, &format!("{base}/users")).await;
        users.assert_status(200);
        assert_eq!(users.body["count"], 1);
        assert_eq!(users.items()[0]["permission"], "comment");
        assert_eq!(users.items()[0]["user"]["id"], bob.id.as_str());

        app.patch(&ada, &format!("{base}/users/{}", bob.id), json!({ "role": "review" })).await.assert_status(204);
        assert_eq!(app.get(&bob, &format!("/v1/spaces/{space}")).await.body["permissions"]["review"], true);
        app.patch(&ada, &format!("{base}/users/nobody"), json!({ "role": "read" })).await.assert_status(404);

        // Bad invitations change nothing.
        app.post(&ada, &base, json!({ "role": null, "users": [bob.id] })).await.assert_status(400);
        app.post(&ada, &base, json!({ "role": "read" })).await.assert_status(400);
        app.post(&ada, &base, json!({ "role": "read", "users": ["ghost@example.com"] })).await.assert_status(400);
        app.post(&ada, &base, json!({ "role": "read", "teams": ["noteam"] })).await.assert_status(400);
        app.post(&bob, &base, json!({ "role": "admin", "users": [bob.id] })).await.assert_status(403);

        app.delete(&ada, &format!("{base}/users/{}", bob.id)).await.assert_status(204);
        app.delete(&ada, &format!("{base}/users/{}", bob.id)).await.assert_status(204);
        app.get(&bob, &format!("/v1/spaces/{space}")).await.assert_status(404);
        assert_eq!(app.get(&ada, &format!("{base}/users")).await.body["count"], 0);
    }

    async fn members_space_list_shows_their_roles(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let a = app.space(&ada, &org, "A", None).await;
        let b = app.space(&ada, &org, "B", None).await;
        let guest = app.user("Guest").await;
        app.post(&ada, &format!("/v1/spaces/{b}/permissions"), json!({ "role": "edit", "users": [guest.id] }))
            .await
            .assert_status(204);

        let mine = app.get(&ada, &format!("/v1/orgs/{org}/members/{}/spaces?order=asc", ada.id)).await;
        mine.assert_status(200);
        let ids: Vec<&str> = mine.items().iter().map(|i| i["space"]["id"].as_str().unwrap()).collect();
        assert_eq!(ids, vec![a.as_str(), b.as_str()]);
        assert!(mine.items().iter().all(|i| i["permission"] == "admin"));

        let theirs = app.get(&ada, &format!("/v1/orgs/{org}/members/{}/spaces", guest.id)).await;
        theirs.assert_status(200);
        assert_eq!(theirs.items().len(), 1);
        assert_eq!(theirs.items()[0]["space"]["id"], b.as_str());
        assert_eq!(theirs.items()[0]["permission"], "edit");
        app.get(&guest, &format!("/v1/orgs/{org}/members/{}/spaces", ada.id)).await.assert_status(403);
        // The `spaces` counter of members says the same.
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org}/members/{}", ada.id)).await.body["spaces"], 2);
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org}/members/{}", guest.id)).await.body["spaces"], 1);
        let listed = app.get(&ada, &format!("/v1/orgs/{org}/members?sort=name&order=asc")).await;
        let counts: Vec<&serde_json::Value> = listed.items().iter().map(|m| &m["spaces"]).collect();
        assert_eq!(counts, vec![&json!(2), &json!(1)], "Ada, then Guest");
    }

    async fn public_and_share_link_spaces_are_readable_without_a_role(app: TestApp) {
        let ada = app.user("Ada").await;
        let eve = app.user("Eve").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let path = format!("/v1/spaces/{space}");
        app.get(&eve, &path).await.assert_status(404);
        app.patch(&ada, &path, json!({ "visibility": "public" })).await.assert_status(200);
        let seen = app.get(&eve, &path).await;
        seen.assert_status(200);
        assert_eq!(seen.body["permissions"]["view"], true);
        assert_eq!(seen.body["permissions"]["edit"], false);
        app.patch(&eve, &path, json!({ "title": "mine" })).await.assert_status(403);
        app.patch(&ada, &path, json!({ "visibility": "share-link" })).await.assert_status(200);
        app.get(&eve, &path).await.assert_status(404);
        app.get(&eve, &format!("{path}?shareKey=wrong")).await.assert_status(404);
    }

    async fn grant_lists_show_emails_to_organization_admins_only(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let rita = app.user("Rita").await;
        let gus = app.user("Gus").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("comment")).await;
        app.add_member(&ada, &org, &rita, json!("read")).await;
        let col = app.collection(&ada, &org, "Shared", None).await;
        let space = app.space(&ada, &org, "Docs", Some(&col)).await;
        for (path, role, user) in [
            (format!("/v1/spaces/{space}/permissions"), "edit", &bob),
            (format!("/v1/spaces/{space}/permissions"), "read", &gus),
            (format!("/v1/collections/{col}/permissions"), "review", &bob),
        ] {
            app.post(&ada, &path, json!({ "role": role, "users": [user.email] })).await.assert_status(204);
        }
        let on_space = format!("/v1/spaces/{space}/permissions/users");
        let on_collection = format!("/v1/collections/{col}/permissions/users");

        let mut granted = vec![bob.id.clone(), gus.id.clone()];
        granted.sort();
        assert_eq!(app.get(&ada, &on_space).await.emails_shown(), granted);
        assert_eq!(app.get(&ada, &on_collection).await.emails_shown(), vec![bob.id.clone()]);
        for (viewer, own) in [(&bob, vec![bob.id.clone()]), (&gus, vec![gus.id.clone()]), (&rita, vec![])] {
            let res = app.get(viewer, &on_space).await;
            res.assert_status(200);
            assert_eq!(res.items().len(), 2);
            assert_eq!(res.emails_shown(), own, "{}", res.body);
        }
        let res = app.get(&rita, &on_collection).await;
        res.assert_status(200);
        assert_eq!(res.items().len(), 1);
        assert_eq!(res.emails_shown(), Vec::<String>::new(), "{}", res.body);
    }
}
