//! Teams: create, list with filters and pages, read, rename, delete; and their
//! members: list, bulk update by id or email, add or change one, remove one.

use serde_json::{Value, json};

use crate::support::{TestApp, TestResponse, TestUser, both_backends};

/// The ids of the items of a team list, in order.
fn ids(res: &TestResponse) -> Vec<String> {
    res.items()
        .iter()
        .map(|t| t["id"].as_str().expect("team id").to_owned())
        .collect()
}

/// An organization administered by Ada, with `others` added as `edit` members.
async fn org_with(app: &TestApp, others: &[&str]) -> (TestUser, String, Vec<TestUser>) {
    let ada = app.user("Ada").await;
    let org_id = app.org(&ada, "Acme").await;
    let mut users = Vec::new();
    for name in others {
        let user = app.user(name).await;
        app.add_member(&ada, &org_id, &user, json!("edit")).await;
        users.push(user);
    }
    (ada, org_id, users)
}

/// Creates a team as `admin` and returns its id.
async fn team(app: &TestApp, admin: &TestUser, org_id: &str, title: &str, members: &[&TestUser]) -> String {
    let ids: Vec<&str> = members.iter().map(|m| m.id.as_str()).collect();
    let res = app
        .put(
            admin,
            &format!("/v1/orgs/{org_id}/teams"),
            json!({ "title": title, "members": ids }),
        )
        .await;
    res.assert_status(201);
    res.id()
}

/// The team's members as `(user id, team role)`, in the order they were added.
async fn roster(app: &TestApp, viewer: &TestUser, org_id: &str, team_id: &str) -> Vec<(String, String)> {
    let res = app
        .get(viewer, &format!("/v1/orgs/{org_id}/teams/{team_id}/members"))
        .await;
    res.assert_status(200);
    assert_eq!(res.body["count"], res.items().len());
    res.items()
        .iter()
        .map(|i| {
            (
                i["organization"]["id"].as_str().expect("member id").to_owned(),
                i["team"]["role"].as_str().expect("team role").to_owned(),
            )
        })
        .collect()
}

fn entry(user: &TestUser, role: &str) -> (String, String) {
    (user.id.clone(), role.to_owned())
}

/// The `members` count of a team and the `teams` count of a member.
async fn team_size(app: &TestApp, viewer: &TestUser, org_id: &str, team_id: &str) -> Value {
    app.get(viewer, &format!("/v1/orgs/{org_id}/teams/{team_id}"))
        .await
        .body["members"]
        .clone()
}

async fn teams_of(app: &TestApp, viewer: &TestUser, org_id: &str, user: &TestUser) -> Value {
    app.get(viewer, &format!("/v1/orgs/{org_id}/members/{}", user.id))
        .await
        .body["teams"]
        .clone()
}

both_backends! {
    async fn create_a_team_with_members(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol", "Dan"]).await;
        let (bob, carol, dan) = (&users[0], &users[1], &users[2]);
        let body = json!({ "title": "  Docs  ", "members": [bob.id, carol.id] });
        let res = app.put(&ada, &format!("/v1/orgs/{org_id}/teams"), body).await;
        res.assert_status(201);
        let team_id = res.id();
        assert_eq!(res.body["object"], "team");
        assert_eq!(res.body["title"], "Docs", "surrounding spaces are trimmed");
        assert_eq!(res.body["members"], 2);
        assert_eq!(res.body["permissions"]["admin"], true);
        assert!(res.body["createdAt"].is_string());

        let got = app.get(dan, &format!("/v1/orgs/{org_id}/teams/{team_id}")).await;
        got.assert_status(200);
        assert_eq!(got.body["id"], team_id.as_str());
        assert_eq!(got.body["title"], "Docs");
        assert_eq!(got.body["members"], 2);
        assert_eq!(got.body["permissions"], json!({ "admin": false, "view": true }));

        let mut in_team = roster(&app, &ada, &org_id, &team_id).await;
        in_team.sort();
        let mut want = vec![entry(bob, "member"), entry(carol, "member")];
        want.sort();
        assert_eq!(in_team, want);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 1);
        assert_eq!(teams_of(&app, &ada, &org_id, dan).await, 0);

        let empty = app.put(&ada, &format!("/v1/orgs/{org_id}/teams"), json!({ "title": "Empty" })).await;
        empty.assert_status(201);
        assert_eq!(empty.body["members"], 0);
    }

    async fn team_titles_are_1_to_64_characters(app: TestApp) {
        let (ada, org_id, _) = org_with(&app, &[]).await;
        let teams = format!("/v1/orgs/{org_id}/teams");
        for body in [
            json!({ "title": "" }),
            json!({ "title": "   " }),
            json!({ "title": "x".repeat(65) }),
            json!({ "title": 7 }),
            json!({ "members": [] }),
        ] {
            let res = app.put(&ada, &teams, body.clone()).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{body} needs an explanation");
        }
        assert_eq!(app.get(&ada, &teams).await.body["count"], 0, "no refused team was created");

        let one = app.put(&ada, &teams, json!({ "title": "A" })).await;
        one.assert_status(201);
        assert_eq!(one.body["title"], "A");
        let longest = app.put(&ada, &teams, json!({ "title": "é".repeat(64) })).await;
        longest.assert_status(201);
        assert_eq!(longest.body["title"], "é".repeat(64));

        let path = format!("{teams}/{}", one.id());
        for bad in [json!({ "title": "" }), json!({ "title": "y".repeat(65) }), json!({})] {
            app.patch(&ada, &path, bad).await.assert_status(400);
        }
        assert_eq!(app.get(&ada, &path).await.body["title"], "A", "refused renames change nothing");
    }

    async fn creating_with_a_non_member_creates_nothing(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"]).await;
        let bob = &users[0];
        let eve = app.user("Eve").await;
        let teams = format!("/v1/orgs/{org_id}/teams");
        for members in [json!([bob.id, eve.id]), json!([bob.id, "nobody"]), json!([bob.id, 42])] {
            let res = app.put(&ada, &teams, json!({ "title": "Docs", "members": members })).await;
            res.assert_status(400);
        }
        let list = app.get(&ada, &teams).await;
        assert!(list.items().is_empty(), "{}", list.body);
        assert_eq!(list.body["count"], 0);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 0, "Bob was not left in a half-made team");
    }

    async fn only_admins_create_and_delete_teams(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"]).await;
        let bob = &users[0];
        let teams = format!("/v1/orgs/{org_id}/teams");
        app.put(bob, &teams, json!({ "title": "Bob's" })).await.assert_status(403);
        assert_eq!(app.get(&ada, &teams).await.body["count"], 0);

        // Owning a team does not make one an admin of it for deletion.
        let team_id = team(&app, &ada, &org_id, "Docs", &[]).await;
        app.put(&ada, &format!("{teams}/{team_id}/members/{}", bob.id), json!({ "role": "owner" }))
            .await
            .assert_status(204);
        app.delete(bob, &format!("{teams}/{team_id}")).await.assert_status(403);
        assert_eq!(app.get(&ada, &format!("{teams}/{team_id}")).await.body["title"], "Docs");
    }

    async fn list_filters_by_title_and_owner(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"]).await;
        let (bob, carol) = (&users[0], &users[1]);
        let docs = team(&app, &ada, &org_id, "Docs", &[carol]).await;
        let design = team(&app, &ada, &org_id, "Design Docs", &[]).await;
        let platform = team(&app, &ada, &org_id, "Platform", &[bob]).await;
        let teams = format!("/v1/orgs/{org_id}/teams");
        app.put(&ada, &format!("{teams}/{design}/members/{}", bob.id), json!({ "role": "owner" }))
            .await
            .assert_status(204);

        let all = app.get(bob, &teams).await;
        all.assert_status(200);
        assert_eq!(ids(&all), [docs.clone(), design.clone(), platform.clone()], "oldest first");
        assert_eq!(all.body["count"], 3);

        let titled = app.get(bob, &format!("{teams}?title=DOCS")).await;
        assert_eq!(ids(&titled), [docs.clone(), design.clone()]);
        assert_eq!(titled.body["count"], 2);
        assert!(app.get(bob, &format!("{teams}?title=%25")).await.items().is_empty(), "% is literal");

        // Only the teams that member can manage: Bob owns Design Docs (and is a
        // plain member of Platform); Carol manages none; Ada, an admin, all.
        let owned = app.get(&ada, &format!("{teams}?owner={}", bob.id)).await;
        assert_eq!(ids(&owned), [design.as_str()]);
        assert_eq!(owned.body["count"], 1);
        assert_eq!(owned.items()[0]["permissions"]["admin"], true);
        let none = app.get(&ada, &format!("{teams}?owner={}", carol.id)).await;
        assert!(none.items().is_empty());
        assert_eq!(none.body["count"], 0);
        let admin = app.get(bob, &format!("{teams}?owner={}", ada.id)).await;
        assert_eq!(ids(&admin), [docs.clone(), design.clone(), platform.clone()]);
        assert_eq!(admin.body["count"], 3);
        assert!(app.get(&ada, &format!("{teams}?owner=nobody")).await.items().is_empty());

        let both = app.get(&ada, &format!("{teams}?owner={}&title=plat", bob.id)).await;
        assert!(both.items().is_empty(), "Bob does not own Platform");
        let both = app.get(&ada, &format!("{teams}?owner={}&title=design", bob.id)).await;
        assert_eq!(ids(&both), [design.as_str()]);
    }

    async fn list_pages_through_every_team_once(app: TestApp) {
        let (ada, org_id, _) = org_with(&app, &[]).await;
        let mut created = Vec::new();
        for i in 0..5 {
            created.push(team(&app, &ada, &org_id, &format!("Team {i}"), &[]).await);
        }
        let mut seen = Vec::new();
        let mut page: Option<String> = None;
        loop {
            let path = match &page {
                Some(p) => format!("/v1/orgs/{org_id}/teams?limit=2&page={p}"),
                None => format!("/v1/orgs/{org_id}/teams?limit=2"),
            };
            let res = app.get(&ada, &path).await;
            res.assert_status(200);
            assert_eq!(res.body["count"], 5);
            assert!(res.items().len() <= 2);
            seen.extend(ids(&res));
            page = res.next_page();
            if page.is_none() {
                break;
            }
        }
        assert_eq!(seen, created, "oldest first, each exactly once");
        app.get(&ada, &format!("/v1/orgs/{org_id}/teams?limit=1001")).await.assert_status(400);
    }

    async fn admins_and_team_owners_rename(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"]).await;
        let (bob, carol) = (&users[0], &users[1]);
        let mine = team(&app, &ada, &org_id, "Docs", &[carol]).await;
        let other = team(&app, &ada, &org_id, "Platform", &[bob]).await;
        let teams = format!("/v1/orgs/{org_id}/teams");
        app.put(&ada, &format!("{teams}/{mine}/members/{}", bob.id), json!({ "role": "owner" }))
            .await
            .assert_status(204);

        let by_admin = app.patch(&ada, &format!("{teams}/{mine}"), json!({ "title": "Documentation" })).await;
        by_admin.assert_status(200);
        assert_eq!(by_admin.body["title"], "Documentation");
        assert_eq!(by_admin.body["id"], mine.as_str());

        let by_owner = app.patch(bob, &format!("{teams}/{mine}"), json!({ "title": "Docs Guild" })).await;
        by_owner.assert_status(200);
        assert_eq!(by_owner.body["title"], "Docs Guild");
        assert_eq!(by_owner.body["members"], 2);
        assert_eq!(app.get(&ada, &format!("{teams}/{mine}")).await.body["title"], "Docs Guild");

        // A plain member of the team, and an owner of another team, may not.
        app.patch(carol, &format!("{teams}/{mine}"), json!({ "title": "Carol's" })).await.assert_status(403);
        app.patch(bob, &format!("{teams}/{other}"), json!({ "title": "Bob's" })).await.assert_status(403);
        assert_eq!(app.get(&ada, &format!("{teams}/{mine}")).await.body["title"], "Docs Guild");
        assert_eq!(app.get(&ada, &format!("{teams}/{other}")).await.body["title"], "Platform");

        app.patch(&ada, &format!("{teams}/noteam"), json!({ "title": "Ghost" })).await.assert_status(404);
    }

    async fn deleting_a_team(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"]).await;
        let bob = &users[0];
        let keep = team(&app, &ada, &org_id, "Keep", &[bob]).await;
        let doomed = team(&app, &ada, &org_id, "Doomed", &[bob]).await;
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 2);
        let path = format!("/v1/orgs/{org_id}/teams/{doomed}");

        app.delete(&ada, &path).await.assert_status(204);
        app.get(&ada, &path).await.assert_status(404);
        app.get(&ada, &format!("{path}/members")).await.assert_status(404);
        assert_eq!(ids(&app.get(&ada, &format!("/v1/orgs/{org_id}/teams")).await), [keep.as_str()]);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 1);
        let bobs = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}/teams", bob.id)).await;
        assert_eq!(bobs.items().len(), 1);
        assert_eq!(bobs.items()[0]["team"]["id"], keep.as_str());

        app.delete(&ada, &path).await.assert_status(204);
        app.delete(&ada, &format!("/v1/orgs/{org_id}/teams/noteam")).await.assert_status(204);
    }

    async fn team_member_list_items_and_pages(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"]).await;
        let (bob, carol) = (&users[0], &users[1]);
        let team_id = team(&app, &ada, &org_id, "Docs", &[]).await;
        let path = format!("/v1/orgs/{org_id}/teams/{team_id}/members");
        for (user, role) in [(bob, "member"), (carol, "member"), (&ada, "owner")] {
            app.put(&ada, &format!("{path}/{}", user.id), json!({ "role": role })).await.assert_status(204);
        }

        let res = app.get(carol, &path).await;
        res.assert_status(200);
        assert_eq!(res.body["count"], 3);
        let first = &res.items()[0];
        assert_eq!(first["organization"]["object"], "member");
        assert_eq!(first["organization"]["id"], bob.id.as_str());
        assert_eq!(first["organization"]["role"], "edit");
        // Carol is no admin: she sees her own email only; Ada sees them all.
        assert!(first["organization"]["user"].get("email").is_none(), "{first}");
        assert_eq!(res.emails_shown(), vec![carol.id.clone()]);
        let by_admin = app.get(&ada, &path).await;
        assert_eq!(by_admin.items()[0]["organization"]["user"]["email"], "bob@example.com");
        assert_eq!(by_admin.emails_shown().len(), 3);
        assert_eq!(first["organization"]["teams"], 1);
        assert_eq!(first["team"], json!({ "role": "member" }));
        assert_eq!(first["permissions"], json!({ "view": true }));
        assert_eq!(res.items()[2]["organization"]["id"], ada.id.as_str());
        assert_eq!(res.items()[2]["team"]["role"], "owner");

        let mut seen = Vec::new();
        let mut page = None;
        loop {
            let url = match &page {
                Some(p) => format!("{path}?limit=1&page={p}"),
                None => format!("{path}?limit=1"),
            };
            let res = app.get(&ada, &url).await;
            assert_eq!(res.body["count"], 3);
            assert_eq!(res.items().len(), 1);
            seen.push(res.items()[0]["organization"]["id"].as_str().unwrap().to_owned());
            page = res.next_page();
            if page.is_none() {
                break;
            }
        }
        assert_eq!(seen, [bob.id.clone(), carol.id.clone(), ada.id.clone()], "in the order they were added");
    }

    async fn bulk_update_takes_ids_or_emails(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol", "Dan"]).await;
        let (bob, carol, dan) = (&users[0], &users[1], &users[2]);
        let team_id = team(&app, &ada, &org_id, "Docs", &[]).await;
        let path = format!("/v1/orgs/{org_id}/teams/{team_id}/members");

        let res = app
            .put(
                &ada,
                &path,
                json!({
                    "add": [bob.id, "CAROL@example.com"],
                    "memberships": { dan.id.as_str(): { "role": "owner" } }
                }),
            )
            .await;
        res.assert_status(204);
        assert_eq!(res.body, Value::Null, "204 has no body");
        let mut got = roster(&app, &ada, &org_id, &team_id).await;
        got.sort();
        let mut want = vec![entry(bob, "member"), entry(carol, "member"), entry(dan, "owner")];
        want.sort();
        assert_eq!(got, want);
        assert_eq!(team_size(&app, &ada, &org_id, &team_id).await, 3);

        // Memberships change roles of people already there; add keeps roles.
        app.put(
            &ada,
            &path,
            json!({
                "add": [dan.email],
                "memberships": { bob.email.as_str(): { "role": "owner" } },
                "remove": [carol.email]
            }),
        )
        .await
        .assert_status(204);
        let mut got = roster(&app, &ada, &org_id, &team_id).await;
        got.sort();
        let mut want = vec![entry(bob, "owner"), entry(dan, "owner")];
        want.sort();
        assert_eq!(got, want);
        assert_eq!(teams_of(&app, &ada, &org_id, carol).await, 0);
        assert_eq!(team_size(&app, &ada, &org_id, &team_id).await, 2);

        app.put(&ada, &path, json!({})).await.assert_status(204);
        assert_eq!(team_size(&app, &ada, &org_id, &team_id).await, 2, "an empty update changes nothing");
    }

    async fn a_user_both_added_and_removed_ends_removed(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"]).await;
        let (bob, carol) = (&users[0], &users[1]);
        let team_id = team(&app, &ada, &org_id, "Docs", &[bob]).await;
        let path = format!("/v1/orgs/{org_id}/teams/{team_id}/members");

        app.put(
            &ada,
            &path,
            json!({
                "add": [carol.id, bob.id],
                "remove": [carol.email, bob.id],
                "memberships": { carol.id.as_str(): { "role": "owner" } }
            }),
        )
        .await
        .assert_status(204);
        assert!(roster(&app, &ada, &org_id, &team_id).await.is_empty());
        assert_eq!(team_size(&app, &ada, &org_id, &team_id).await, 0);
    }

    async fn a_bulk_update_naming_an_unknown_user_changes_nothing(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"]).await;
        let (bob, carol) = (&users[0], &users[1]);
        let eve = app.user("Eve").await;
        let team_id = team(&app, &ada, &org_id, "Docs", &[bob]).await;
        let path = format!("/v1/orgs/{org_id}/teams/{team_id}/members");

        for body in [
            json!({ "add": [carol.id, "nobody@example.com"], "remove": [bob.id] }),
            json!({ "remove": [bob.id], "add": [eve.id] }),
            json!({ "add": [carol.id], "remove": ["not an email@"] }),
            json!({ "add": [carol.id], "memberships": { "nobody": { "role": "owner" } } }),
            json!({ "add": [carol.id], "memberships": { bob.id.as_str(): { "role": "boss" } } }),
        ] {
            let res = app.put(&ada, &path, body.clone()).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{body}");
        }
        assert_eq!(roster(&app, &ada, &org_id, &team_id).await, [entry(bob, "member")]);
        assert_eq!(teams_of(&app, &ada, &org_id, carol).await, 0);
    }

    async fn put_and_delete_one_team_member(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"]).await;
        let bob = &users[0];
        let team_id = team(&app, &ada, &org_id, "Docs", &[]).await;
        let path = format!("/v1/orgs/{org_id}/teams/{team_id}/members/{}", bob.id);

        app.put(&ada, &path, json!({ "role": "owner" })).await.assert_status(204);
        assert_eq!(roster(&app, &ada, &org_id, &team_id).await, [entry(bob, "owner")]);
        app.put(&ada, &path, json!({ "role": "member" })).await.assert_status(204);
        assert_eq!(roster(&app, &ada, &org_id, &team_id).await, [entry(bob, "member")]);
        app.put(&ada, &path, json!({ "role": "boss" })).await.assert_status(400);
        assert_eq!(roster(&app, &ada, &org_id, &team_id).await, [entry(bob, "member")]);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 1);

        let eve = app.user("Eve").await;
        app.put(&ada, &format!("/v1/orgs/{org_id}/teams/{team_id}/members/{}", eve.id), json!({ "role": "member" }))
            .await
            .assert_status(400);
        app.put(&ada, &format!("/v1/orgs/{org_id}/teams/noteam/members/{}", bob.id), json!({ "role": "member" }))
            .await
            .assert_status(404);

        app.delete(&ada, &path).await.assert_status(204);
        assert!(roster(&app, &ada, &org_id, &team_id).await.is_empty());
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 0);
        assert_eq!(team_size(&app, &ada, &org_id, &team_id).await, 0);
        app.delete(&ada, &path).await.assert_status(204);
        app.delete(&ada, &format!("/v1/orgs/{org_id}/teams/{team_id}/members/nobody")).await.assert_status(204);
    }

    async fn a_team_owner_manages_their_team_only(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol", "Dan"]).await;
        let (bob, carol, dan) = (&users[0], &users[1], &users[2]);
        let mine = team(&app, &ada, &org_id, "Docs", &[]).await;
        let other = team(&app, &ada, &org_id, "Platform", &[carol]).await;
        let teams = format!("/v1/orgs/{org_id}/teams");
        app.put(&ada, &format!("{teams}/{mine}/members/{}", bob.id), json!({ "role": "owner" }))
            .await
            .assert_status(204);
        assert_eq!(app.get(bob, &format!("{teams}/{mine}")).await.body["permissions"]["admin"], true);
        assert_eq!(app.get(bob, &format!("{teams}/{other}")).await.body["permissions"]["admin"], false);
        assert_eq!(app.get(bob, &format!("/v1/orgs/{org_id}")).await.body["permissions"]["ownTeam"], true);

        app.put(bob, &format!("{teams}/{mine}/members"), json!({ "add": [carol.id, dan.email] }))
            .await
            .assert_status(204);
        app.put(bob, &format!("{teams}/{mine}/members/{}", carol.id), json!({ "role": "owner" }))
            .await
            .assert_status(204);
        app.delete(bob, &format!("{teams}/{mine}/members/{}", dan.id)).await.assert_status(204);
        assert_eq!(
            roster(&app, &ada, &org_id, &mine).await,
            [entry(bob, "owner"), entry(carol, "owner")]
        );

        for res in [
            app.put(bob, &format!("{teams}/{other}/members"), json!({ "add": [dan.id] })).await,
            app.put(bob, &format!("{teams}/{other}/members/{}", dan.id), json!({ "role": "member" })).await,
            app.delete(bob, &format!("{teams}/{other}/members/{}", carol.id)).await,
        ] {
            res.assert_status(403);
        }
        assert_eq!(roster(&app, &ada, &org_id, &other).await, [entry(carol, "member")]);

        // A plain member of a team cannot manage it either, but may leave it.
        let dan_path = format!("{teams}/{other}/members/{}", dan.id);
        app.put(&ada, &dan_path, json!({})).await.assert_status(204);
        app.delete(dan, &format!("{teams}/{other}/members/{}", carol.id)).await.assert_status(403);
        app.delete(dan, &dan_path).await.assert_status(204);
        assert_eq!(roster(&app, &ada, &org_id, &other).await, [entry(carol, "member")]);
    }

    async fn member_and_team_counts_stay_true(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"]).await;
        let (bob, carol) = (&users[0], &users[1]);
        let a = team(&app, &ada, &org_id, "A", &[bob, carol]).await;
        let b = team(&app, &ada, &org_id, "B", &[bob]).await;
        let c = team(&app, &ada, &org_id, "C", &[]).await;
        let teams = format!("/v1/orgs/{org_id}/teams");
        let counts = |list: &TestResponse| -> Vec<Value> {
            list.items().iter().map(|t| t["members"].clone()).collect()
        };

        assert_eq!(counts(&app.get(&ada, &teams).await), [json!(2), json!(1), json!(0)]);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 2);
        assert_eq!(teams_of(&app, &ada, &org_id, carol).await, 1);

        app.put(&ada, &format!("{teams}/{c}/members/{}", bob.id), json!({ "role": "member" })).await.assert_status(204);
        app.put(&ada, &format!("{teams}/{c}/members/{}", bob.id), json!({ "role": "owner" })).await.assert_status(204);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 3, "changing a role adds no team");
        assert_eq!(team_size(&app, &ada, &org_id, &c).await, 1);

        app.delete(&ada, &format!("{teams}/{a}/members/{}", bob.id)).await.assert_status(204);
        app.delete(&ada, &format!("{teams}/{b}")).await.assert_status(204);
        assert_eq!(teams_of(&app, &ada, &org_id, bob).await, 1);
        assert_eq!(counts(&app.get(&ada, &teams).await), [json!(1), json!(1)]);

        app.delete(&ada, &format!("/v1/orgs/{org_id}/members/{}", carol.id)).await.assert_status(204);
        assert_eq!(counts(&app.get(&ada, &teams).await), [json!(0), json!(1)]);
        let listed = app.get(&ada, &format!("/v1/orgs/{org_id}/members?sort=name&order=asc")).await;
        let team_counts: Vec<Value> = listed.items().iter().map(|m| m["teams"].clone()).collect();
        assert_eq!(team_counts, [json!(0), json!(1)], "Ada in none, Bob in C");
    }

    async fn guests_and_non_members(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Gus"]).await;
        let gus = &users[0];
        app.patch(&ada, &format!("/v1/orgs/{org_id}/members/{}", gus.id), json!({ "role": null }))
            .await
            .assert_status(200);
        let eve = app.user("Eve").await;
        let team_id = team(&app, &ada, &org_id, "Docs", &[gus]).await;
        let teams = format!("/v1/orgs/{org_id}/teams");

        app.get(gus, &teams).await.assert_status(403);
        app.get(gus, &format!("{teams}/{team_id}")).await.assert_status(403);
        app.get(gus, &format!("{teams}/{team_id}/members")).await.assert_status(403);
        app.put(gus, &teams, json!({ "title": "Guests" })).await.assert_status(403);

        for res in [
            app.get(&eve, &teams).await,
            app.put(&eve, &teams, json!({ "title": "Eve's" })).await,
            app.get(&eve, &format!("{teams}/{team_id}")).await,
            app.patch(&eve, &format!("{teams}/{team_id}"), json!({ "title": "Eve's" })).await,
            app.delete(&eve, &format!("{teams}/{team_id}")).await,
            app.get(&eve, &format!("{teams}/{team_id}/members")).await,
            app.put(&eve, &format!("{teams}/{team_id}/members"), json!({ "remove": [gus.id] })).await,
            app.put(&eve, &format!("{teams}/{team_id}/members/{}", gus.id), json!({ "role": "owner" })).await,
            app.delete(&eve, &format!("{teams}/{team_id}/members/{}", gus.id)).await,
        ] {
            res.assert_status(404);
        }
        assert_eq!(roster(&app, &ada, &org_id, &team_id).await, [entry(gus, "member")]);
        assert_eq!(app.get(&ada, &teams).await.body["count"], 1);
    }
}
