//! Invitations: by email (people with an account join when they accept,
//! others when their account is created) and with invite links.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

/// The role of `user` in the organization as Ada (an admin) sees it; `None`
/// when not a member.
async fn role_in(app: &TestApp, admin: &TestUser, org_id: &str, user: &TestUser) -> Option<Value> {
    let res = app.get(admin, &format!("/v1/orgs/{org_id}/members/{}", user.id)).await;
    match res.status {
        200 => Some(res.body["role"].clone()),
        404 => None,
        other => panic!("unexpected {other}: {}", res.body),
    }
}

async fn member_count(app: &TestApp, admin: &TestUser, org_id: &str) -> Value {
    app.get(admin, &format!("/v1/orgs/{org_id}/members")).await.body["count"].clone()
}

/// Creates an invite link with `role` and returns its id.
async fn link(app: &TestApp, admin: &TestUser, org_id: &str, role: Value) -> String {
    let res = app
        .post(
            admin,
            &format!("/v1/orgs/{org_id}/link-invites"),
            json!({ "role": role }),
        )
        .await;
    res.assert_status(201);
    res.id()
}

both_backends! {
    async fn existing_users_join_only_when_they_accept(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let carol = app.user("Carol").await;
        let eve = app.user("Eve").await;
        let org_id = app.org(&ada, "Acme").await;

        let res = app
            .post(
                &ada,
                &format!("/v1/orgs/{org_id}/invites"),
                json!({ "emails": ["BOB@Example.com", { "email": carol.email, "role": "edit" }], "role": "review" }),
            )
            .await;
        res.assert_status(200);
        assert_eq!(res.body["users"], json!([]), "nobody joins without saying so");
        assert_eq!(res.body["invited"], 2);
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, None);
        app.get(&bob, &format!("/v1/orgs/{org_id}")).await.assert_status(404);
        assert_eq!(member_count(&app, &ada, &org_id).await, 1);

        // Bob sees who asks, with what role, and who sent it (no email).
        let waiting = app.get(&bob, "/v1/user/invites").await;
        waiting.assert_status(200);
        let invitation = &waiting.items()[0];
        assert_eq!(waiting.items().len(), 1);
        assert_eq!(invitation["organization"], json!({ "id": org_id, "title": "Acme" }));
        assert_eq!(invitation["role"], "review");
        assert_eq!(invitation["invitedBy"]["id"], ada.id.as_str());
        assert!(invitation["invitedBy"].get("email").is_none());
        let bobs = invitation["id"].as_str().unwrap().to_owned();

        // Nobody else can use Bob's invitation.
        app.post(&eve, &format!("/v1/orgs/{org_id}/invites/{bobs}"), json!({})).await.assert_status(404);
        app.delete(&eve, &format!("/v1/user/invites/{bobs}")).await.assert_status(404);
        assert_eq!(role_in(&app, &ada, &org_id, &eve).await, None);

        app.post(&bob, &format!("/v1/orgs/{org_id}/invites/{bobs}"), json!({})).await.assert_status(200);
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, Some(json!("review")), "the request's role");
        assert_eq!(app.get(&bob, &format!("/v1/orgs/{org_id}")).await.body["title"], "Acme");
        assert!(app.get(&bob, "/v1/user/invites").await.items().is_empty(), "an accepted invitation is gone");

        // Carol declines: she is not a member, and the invitation is spent.
        let carols = app.get(&carol, "/v1/user/invites").await.items()[0]["id"].as_str().unwrap().to_owned();
        app.delete(&carol, &format!("/v1/user/invites/{carols}")).await.assert_status(204);
        app.post(&carol, &format!("/v1/orgs/{org_id}/invites/{carols}"), json!({})).await.assert_status(404);
        assert_eq!(role_in(&app, &ada, &org_id, &carol).await, None);

        // Inviting a member again neither adds them twice nor changes their role.
        let again = app
            .post(&ada, &format!("/v1/orgs/{org_id}/invites"), json!({ "emails": [bob.email], "role": "admin" }))
            .await;
        again.assert_status(200);
        assert_eq!(again.body["users"], json!([]));
        assert_eq!(again.body["invited"], 0, "nobody new was invited");
        assert!(app.get(&bob, "/v1/user/invites").await.items().is_empty());
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, Some(json!("review")));
        assert_eq!(member_count(&app, &ada, &org_id).await, 2);
    }

    async fn the_role_defaults_to_the_organizations_default_role(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let carol = app.user("Carol").await;
        let gus = app.user("Gus").await;
        let org_id = app.org(&ada, "Acme").await;
        let invites = format!("/v1/orgs/{org_id}/invites");

        app.post(&ada, &invites, json!({ "emails": [bob.email] })).await.assert_status(200);
        app.accept_invitation(&bob, &org_id).await;
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, Some(json!("read")), "a new org's default role");

        app.patch(&ada, &format!("/v1/orgs/{org_id}"), json!({ "defaultRole": "comment" })).await.assert_status(200);
        app.post(&ada, &invites, json!({ "emails": [carol.email] })).await.assert_status(200);
        app.accept_invitation(&carol, &org_id).await;
        assert_eq!(role_in(&app, &ada, &org_id, &carol).await, Some(json!("comment")));

        // null is a role too: guest, whether given per address or for the request.
        app.post(&ada, &invites, json!({ "emails": [{ "email": gus.email, "role": null }], "role": "edit" }))
            .await
            .assert_status(200);
        app.accept_invitation(&gus, &org_id).await;
        assert_eq!(role_in(&app, &ada, &org_id, &gus).await, Some(Value::Null));
    }

    async fn unknown_emails_join_when_their_account_is_created(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        let res = app
            .post(
                &ada,
                &format!("/v1/orgs/{org_id}/invites"),
                json!({
                    "emails": [{ "email": "Newbie@example.com", "role": "edit" }, "later@example.com"],
                    "role": "comment",
                    "sso": true
                }),
            )
            .await;
        res.assert_status(200);
        assert_eq!(res.body["users"], json!([]), "nobody had an account yet");
        assert_eq!(res.body["invited"], 2);
        assert_eq!(member_count(&app, &ada, &org_id).await, 1, "pending invites are not members");

        let newbie = app.user("Newbie").await;
        let later = app.user("Later").await;
        let joined = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", newbie.id)).await;
        joined.assert_status(200);
        assert_eq!(joined.body["role"], "edit");
        assert_eq!(joined.body["sso"], true);
        assert_eq!(role_in(&app, &ada, &org_id, &later).await, Some(json!("comment")));
        let orgs = app.get(&newbie, "/v1/orgs").await;
        assert_eq!(orgs.items().len(), 1);
        assert_eq!(orgs.items()[0]["id"], org_id.as_str());
        assert_eq!(member_count(&app, &ada, &org_id).await, 3);
    }

    async fn an_invalid_email_adds_nobody(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org_id = app.org(&ada, "Acme").await;
        let invites = format!("/v1/orgs/{org_id}/invites");

        for body in [
            json!({ "emails": [bob.email, "pending@example.com", "not-an-email"] }),
            json!({ "emails": [bob.email, "pending@example.com", { "email": "x@localhost", "role": "read" }] }),
            json!({ "emails": [bob.email, { "email": "pending@example.com", "role": "owner" }] }),
            json!({ "emails": [bob.email], "role": "owner" }),
            json!({ "emails": [] }),
            json!({}),
        ] {
            let res = app.post(&ada, &invites, body.clone()).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{body} needs an explanation");
        }
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, None, "Bob was not added");
        assert_eq!(member_count(&app, &ada, &org_id).await, 1);
        let pending = app.user("Pending").await;
        assert!(app.get(&pending, "/v1/orgs").await.items().is_empty(), "no pending invite was kept");
    }

    async fn only_admins_invite(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let carol = app.user("Carol").await;
        let eve = app.user("Eve").await;
        let org_id = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org_id, &bob, json!("create")).await;
        let invites = format!("/v1/orgs/{org_id}/invites");

        let res = app.post(&bob, &invites, json!({ "emails": [carol.email] })).await;
        res.assert_status(403);
        assert!(!res.message().is_empty());
        app.post(&eve, &invites, json!({ "emails": [carol.email] })).await.assert_status(404);
        assert_eq!(role_in(&app, &ada, &org_id, &carol).await, None);
        app.get(&carol, &format!("/v1/orgs/{org_id}")).await.assert_status(404);
    }

    async fn invite_links_are_created_listed_read_updated_and_deleted(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        let links = format!("/v1/orgs/{org_id}/link-invites");

        let created = app.post(&ada, &links, json!({ "role": "comment" })).await;
        created.assert_status(201);
        let first = created.id();
        assert_eq!(created.body["role"], "comment");
        let guest = app.post(&ada, &links, json!({ "role": null })).await;
        guest.assert_status(201);
        let second = guest.id();
        assert_eq!(guest.body["role"], Value::Null);
        assert_ne!(first, second);

        let list = app.get(&ada, &links).await;
        list.assert_status(200);
        assert_eq!(list.body["count"], 2);
        let listed: Vec<&str> = list.items().iter().map(|l| l["id"].as_str().unwrap()).collect();
        assert_eq!(listed, [first.as_str(), second.as_str()]);
        let paged = app.get(&ada, &format!("{links}?limit=1")).await;
        assert_eq!(paged.items()[0]["id"], first.as_str());
        let rest = app.get(&ada, &format!("{links}?limit=1&page={}", paged.next_page().expect("a second page"))).await;
        assert_eq!(rest.items()[0]["id"], second.as_str());

        let got = app.get(&ada, &format!("{links}/{first}")).await;
        got.assert_status(200);
        assert_eq!(got.body["id"], first.as_str());
        assert_eq!(got.body["role"], "comment");

        let updated = app.patch(&ada, &format!("{links}/{first}"), json!({ "role": "edit" })).await;
        updated.assert_status(200);
        assert_eq!(updated.body["role"], "edit");
        assert_eq!(app.get(&ada, &format!("{links}/{first}")).await.body["role"], "edit");
        app.patch(&ada, &format!("{links}/{first}"), json!({ "role": "owner" })).await.assert_status(400);
        app.patch(&ada, &format!("{links}/{first}"), json!({})).await.assert_status(400);
        assert_eq!(app.get(&ada, &format!("{links}/{first}")).await.body["role"], "edit");
        app.patch(&ada, &format!("{links}/nolink"), json!({ "role": "edit" })).await.assert_status(404);

        app.delete(&ada, &format!("{links}/{first}")).await.assert_status(204);
        app.get(&ada, &format!("{links}/{first}")).await.assert_status(404);
        app.delete(&ada, &format!("{links}/{first}")).await.assert_status(204);
        let after = app.get(&ada, &links).await;
        assert_eq!(after.body["count"], 1);
        assert_eq!(after.items()[0]["id"], second.as_str());

        for bad in [json!({}), json!({ "role": "owner" })] {
            app.post(&ada, &links, bad).await.assert_status(400);
        }
        assert_eq!(app.get(&ada, &links).await.body["count"], 1);
    }

    async fn only_admins_manage_invite_links(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let eve = app.user("Eve").await;
        let org_id = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org_id, &bob, json!("create")).await;
        let links = format!("/v1/orgs/{org_id}/link-invites");
        let id = link(&app, &ada, &org_id, json!("read")).await;

        for (user, status) in [(&bob, 403), (&eve, 404)] {
            app.post(user, &links, json!({ "role": "admin" })).await.assert_status(status);
            app.get(user, &links).await.assert_status(status);
            app.get(user, &format!("{links}/{id}")).await.assert_status(status);
            app.patch(user, &format!("{links}/{id}"), json!({ "role": "admin" })).await.assert_status(status);
            app.delete(user, &format!("{links}/{id}")).await.assert_status(status);
        }
        let list = app.get(&ada, &links).await;
        assert_eq!(list.body["count"], 1);
        assert_eq!(list.items()[0]["role"], "read");
    }

    async fn joining_with_a_link_gives_its_role(app: TestApp) {
        let ada = app.user("Ada").await;
        let eve = app.user("Eve").await;
        let gus = app.user("Gus").await;
        let bob = app.user("Bob").await;
        let org_id = app.org(&ada, "Acme").await;
        let editors = link(&app, &ada, &org_id, json!("edit")).await;
        let guests = link(&app, &ada, &org_id, json!(null)).await;

        let res = app.post(&eve, &format!("/v1/orgs/{org_id}/invites/{editors}"), json!({})).await;
        res.assert_status(200);
        assert_eq!(res.body, json!({}));
        assert_eq!(role_in(&app, &ada, &org_id, &eve).await, Some(json!("edit")));
        assert_eq!(app.get(&eve, &format!("/v1/orgs/{org_id}")).await.body["title"], "Acme");

        app.post(&gus, &format!("/v1/orgs/{org_id}/invites/{guests}"), json!({})).await.assert_status(200);
        assert_eq!(role_in(&app, &ada, &org_id, &gus).await, Some(Value::Null));

        // A member keeps their role whatever link they use.
        let admins = link(&app, &ada, &org_id, json!("admin")).await;
        app.post(&gus, &format!("/v1/orgs/{org_id}/invites/{admins}"), json!({})).await.assert_status(200);
        assert_eq!(role_in(&app, &ada, &org_id, &gus).await, Some(Value::Null));

        // Unknown, deleted or other organizations' links let nobody in.
        app.post(&bob, &format!("/v1/orgs/{org_id}/invites/nolink"), json!({})).await.assert_status(404);
        app.delete(&ada, &format!("/v1/orgs/{org_id}/link-invites/{editors}")).await.assert_status(204);
        app.post(&bob, &format!("/v1/orgs/{org_id}/invites/{editors}"), json!({})).await.assert_status(404);
        let other = app.org(&ada, "Other").await;
        app.post(&bob, &format!("/v1/orgs/{other}/invites/{admins}"), json!({})).await.assert_status(404);
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, None);
        assert_eq!(role_in(&app, &ada, &other, &bob).await, None);

        // Where single sign-on is enforced, joining makes an SSO member.
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", eve.id)).await.body["sso"], false);
        app.patch(&ada, &format!("/v1/orgs/{other}"), json!({ "sso": true })).await.assert_status(200);
        let strict = link(&app, &ada, &other, json!("read")).await;
        app.post(&bob, &format!("/v1/orgs/{other}/invites/{strict}"), json!({})).await.assert_status(200);
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{other}/members/{}", bob.id)).await.body["sso"], true);
    }

    async fn joining_is_refused_while_invite_links_are_off(app: TestApp) {
        let ada = app.user("Ada").await;
        let eve = app.user("Eve").await;
        let org_id = app.org(&ada, "Acme").await;
        let id = link(&app, &ada, &org_id, json!("comment")).await;
        let join = format!("/v1/orgs/{org_id}/invites/{id}");

        app.patch(&ada, &format!("/v1/orgs/{org_id}"), json!({ "inviteLinks": false })).await.assert_status(200);
        let refused = app.post(&eve, &join, json!({})).await;
        refused.assert_status(403);
        assert!(refused.message().contains("invite links"), "{}", refused.message());
        assert_eq!(role_in(&app, &ada, &org_id, &eve).await, None);
        app.get(&eve, &format!("/v1/orgs/{org_id}")).await.assert_status(404);

        app.patch(&ada, &format!("/v1/orgs/{org_id}"), json!({ "inviteLinks": true })).await.assert_status(200);
        app.post(&eve, &join, json!({})).await.assert_status(200);
        assert_eq!(role_in(&app, &ada, &org_id, &eve).await, Some(json!("comment")));
    }

    async fn admins_list_and_revoke_pending_invitations(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let carol = app.user("Carol").await;
        let eve = app.user("Eve").await;
        let org_id = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org_id, &carol, json!("review")).await;
        let pending = format!("/v1/orgs/{org_id}/invites");

        app.post(
            &ada,
            &pending,
            json!({ "emails": [{ "email": bob.email, "role": "review" }, "newbie@example.com"], "role": "comment" }),
        )
        .await
        .assert_status(200);

        // Admins see who is invited, with what role, by whom, oldest first.
        let list = app.get(&ada, &pending).await;
        list.assert_status(200);
        assert_eq!(list.body["count"], 2);
        let items = list.items();
        let bobs = items.iter().find(|i| i["email"] == bob.email.as_str()).expect("Bob's invitation");
        assert_eq!(bobs["role"], "review");
        assert_eq!(bobs["invitedBy"]["id"], ada.id.as_str());
        assert!(bobs["createdAt"].is_string());
        let newbies = items.iter().find(|i| i["email"] == "newbie@example.com").expect("the newcomer's");
        assert_eq!(newbies["role"], "comment");
        let bobs = bobs["id"].as_str().unwrap().to_owned();
        let newbies = newbies["id"].as_str().unwrap().to_owned();
        assert_eq!(app.get(&bob, "/v1/user/invites").await.items()[0]["id"], bobs.as_str(), "the same invitation");

        // Paginated in the official shape.
        let first = app.get(&ada, &format!("{pending}?limit=1")).await;
        first.assert_status(200);
        assert_eq!(first.items().len(), 1);
        let cursor = first.body["next"]["page"].as_str().expect("a next page").to_owned();
        let second = app.get(&ada, &format!("{pending}?limit=1&page={cursor}")).await;
        second.assert_status(200);
        assert_eq!(second.items().len(), 1);
        assert_ne!(second.items()[0]["id"], first.items()[0]["id"]);

        // A member who is not an admin may neither read nor revoke; outsiders
        // do not see the organization.
        let refused = app.get(&carol, &pending).await;
        refused.assert_status(403);
        assert!(!refused.message().is_empty());
        app.delete(&carol, &format!("{pending}/{bobs}")).await.assert_status(403);
        app.get(&eve, &pending).await.assert_status(404);
        app.delete(&eve, &format!("{pending}/{bobs}")).await.assert_status(404);

        // Another organization's invitation is not found through this one.
        let other = app.org(&ada, "Other").await;
        app.delete(&ada, &format!("/v1/orgs/{other}/invites/{bobs}")).await.assert_status(404);
        app.delete(&ada, &format!("{pending}/nosuchinvite")).await.assert_status(404);

        // Revoked, the invitation is gone everywhere and cannot be accepted.
        app.delete(&ada, &format!("{pending}/{bobs}")).await.assert_status(204);
        assert!(app.get(&bob, "/v1/user/invites").await.items().is_empty());
        app.post(&bob, &format!("{pending}/{bobs}"), json!({})).await.assert_status(404);
        assert_eq!(role_in(&app, &ada, &org_id, &bob).await, None);
        let left = app.get(&ada, &pending).await;
        assert_eq!(left.body["count"], 1);
        assert_eq!(left.items()[0]["id"], newbies.as_str());
        app.delete(&ada, &format!("{pending}/{bobs}")).await.assert_status(404);

        // The revocation is in the organization's audit log.
        let log = app.get(&ada, &format!("/v1/orgs/{org_id}/audit-events?limit=100")).await;
        log.assert_status(200);
        let revoked = log
            .items()
            .iter()
            .find(|e| e["action"] == "DELETE /orgs/{organizationId}/invites/{inviteId}")
            .unwrap_or_else(|| panic!("no revocation in {}", log.body))
            .clone();
        let details = app
            .get(&ada, &format!("/v1/orgs/{org_id}/audit-events/{}", revoked["id"].as_str().unwrap()))
            .await;
        assert_eq!(details.body["payload"]["parameters"]["inviteId"], bobs.as_str());
    }
}
