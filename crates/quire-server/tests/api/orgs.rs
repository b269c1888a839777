//! Organizations: create, list with pages, read, update, email domains, ping.

use serde_json::json;

use crate::support::both_backends;

both_backends! {
    async fn create_read_and_list(app: TestApp) {
        let ada = app.user("Ada").await;
        let me = app.get(&ada, "/v1/user").await;
        me.assert_status(200);
        assert_eq!(me.body["id"], ada.id.as_str());
        assert_eq!(me.body["email"], "ada@example.com");

        let res = app.post(&ada, "/v1/orgs", json!({ "title": "Acme Docs" })).await;
        res.assert_status(201);
        let org_id = res.id();
        assert_eq!(res.body["title"], "Acme Docs");
        assert_eq!(res.body["permissions"]["admin"], true);
        assert_eq!(res.body["urls"]["location"], format!("{}/v1/orgs/{org_id}", app.base_url));

        let got = app.get(&ada, &format!("/v1/orgs/{org_id}")).await;
        got.assert_status(200);
        assert_eq!(got.body["id"], org_id.as_str());

        let member = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", ada.id)).await;
        member.assert_status(200);
        assert_eq!(member.body["role"], "admin");

        let list = app.get(&ada, "/v1/orgs").await;
        list.assert_status(200);
        assert_eq!(list.items().len(), 1);
        assert_eq!(list.body["count"], 1);
    }

    async fn orgs_are_invisible_to_non_members(app: TestApp) {
        let ada = app.user("Ada").await;
        let eve = app.user("Eve").await;
        let org_id = app.org(&ada, "Private").await;
        app.get(&eve, &format!("/v1/orgs/{org_id}")).await.assert_status(404);
        app.patch(&eve, &format!("/v1/orgs/{org_id}"), json!({ "title": "Mine" })).await.assert_status(404);
        app.get(&eve, &format!("/v1/orgs/{org_id}/members")).await.assert_status(404);
        assert!(app.get(&eve, "/v1/orgs").await.items().is_empty());
    }

    async fn list_orgs_pages_through_every_org_once(app: TestApp) {
        let ada = app.user("Ada").await;
        let mut created = Vec::new();
        for i in 0..5 {
            created.push(app.org(&ada, &format!("Org {i}")).await);
        }
        let mut seen = Vec::new();
        let mut page: Option<String> = None;
        loop {
            let path = match &page {
                Some(p) => format!("/v1/orgs?limit=2&page={p}"),
                None => "/v1/orgs?limit=2".to_owned(),
            };
            let res = app.get(&ada, &path).await;
            res.assert_status(200);
            assert_eq!(res.body["count"], 5);
            assert!(res.items().len() <= 2);
            seen.extend(res.items().iter().map(|o| o["id"].as_str().unwrap().to_owned()));
            page = res.next_page();
            if page.is_none() {
                break;
            }
        }
        assert_eq!(seen, created, "oldest first, each exactly once");
    }

    async fn admins_update_settings_members_cannot(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org_id = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org_id, &bob, json!("edit")).await;
        let path = format!("/v1/orgs/{org_id}");

        let res = app
            .patch(
                &ada,
                &path,
                json!({
                    "title": "Acme Inc",
                    "emailDomains": ["Acme.com", "acme.org"],
                    "hostname": "acme-docs",
                    "defaultRole": "comment",
                    "logo": "https://acme.com/logo.png",
                    "sso": true,
                    "ai": true,
                    "inviteLinks": false
                }),
            )
            .await;
        res.assert_status(200);
        assert_eq!(res.body["title"], "Acme Inc");
        assert_eq!(res.body["emailDomains"], json!(["acme.com", "acme.org"]));
        assert_eq!(res.body["hostname"], "acme-docs");
        assert_eq!(res.body["defaultRole"], "comment");
        assert_eq!(res.body["urls"]["logo"], "https://acme.com/logo.png");
        assert_eq!(res.body["sso"], true);
        assert_eq!(res.body["inviteLinks"], false);

        let cleared = app.patch(&ada, &path, json!({ "defaultRole": null, "logo": null })).await;
        cleared.assert_status(200);
        assert_eq!(cleared.body["defaultRole"], json!(null));
        assert!(cleared.body["urls"].get("logo").is_none());
        assert_eq!(cleared.body["title"], "Acme Inc", "absent fields stay as they were");

        let denied = app.patch(&bob, &path, json!({ "title": "Bob's" })).await;
        denied.assert_status(403);
        assert_eq!(app.get(&bob, &path).await.body["title"], "Acme Inc");
        assert_eq!(app.get(&bob, &path).await.body["permissions"]["admin"], false);
    }

    async fn bad_updates_are_refused_and_change_nothing(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        let other = app.org(&ada, "Other").await;
        let path = format!("/v1/orgs/{org_id}");
        app.patch(&ada, &format!("/v1/orgs/{other}"), json!({ "hostname": "taken" })).await.assert_status(200);

        for body in [
            json!({ "title": "A" }),
            json!({ "title": "x".repeat(256) }),
            json!({ "title": "Fine", "hostname": "Not Valid" }),
            json!({ "title": "Fine", "defaultRole": "owner" }),
            json!({ "title": "Fine", "emailDomains": ["not a domain"] }),
            json!({ "title": "Fine", "logo": "ftp://x" }),
            json!({ "title": "Fine", "sso": "yes" }),
            json!({ "title": "Fine", "defaultContent": { "type": "site", "site": "nope" } }),
        ] {
            let res = app.patch(&ada, &path, body.clone()).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{body} needs an explanation");
        }
        let taken = app.patch(&ada, &path, json!({ "title": "Fine", "hostname": "taken" })).await;
        taken.assert_status(409);
        let org = app.get(&ada, &path).await;
        assert_eq!(org.body["title"], "Acme", "no refused update changed anything");
        assert!(org.body.get("hostname").is_none());
    }

    async fn email_domain_lookup(app: TestApp) {
        let ada = app.user("Ada").await;
        let carol = app.user("Carol").await;
        let org_id = app.org(&ada, "Example").await;
        app.patch(&ada, &format!("/v1/orgs/{org_id}"), json!({ "emailDomains": ["example.com"] }))
            .await
            .assert_status(200);
        app.org(&ada, "Unrelated").await;

        // Carol is not a member, but her email is on the domain: she may join.
        let res = app.get(&carol, "/v1/email-domains/example.com/orgs").await;
        res.assert_status(200);
        let orgs = res.body["organizations"].as_array().unwrap();
        assert_eq!(orgs.len(), 1);
        assert_eq!(orgs[0]["id"], org_id.as_str());
        assert_eq!(orgs[0]["permissions"]["admin"], false);

        let none = app.get(&carol, "/v1/email-domains/acme.org/orgs").await;
        assert!(none.body["organizations"].as_array().unwrap().is_empty());
        app.get(&carol, "/v1/email-domains/not_a_domain/orgs").await.assert_status(400);
    }

    async fn ping_records_last_seen(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        let before = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", ada.id)).await;
        assert!(before.body.get("lastSeenAt").is_none());
        app.post(&ada, &format!("/v1/orgs/{org_id}/ping"), json!(null)).await.assert_status(200);
        let after = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", ada.id)).await;
        assert!(after.body["lastSeenAt"].is_string());
    }
}
