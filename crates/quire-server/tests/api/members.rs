//! Organization members: the filtered and paged list, reading one member,
//! changing roles, removing and leaving, SSO, and a member's teams and spaces.

use serde_json::{Value, json};

use crate::support::{TestApp, TestResponse, TestUser, both_backends};

/// The ids of the items of a list, in order.
fn ids(res: &TestResponse) -> Vec<String> {
    res.items()
        .iter()
        .map(|item| {
            item["id"]
                .as_str()
                .unwrap_or_else(|| panic!("no id in {item}"))
                .to_owned()
        })
        .collect()
}

/// The display names of the members of a list, in order.
fn names(res: &TestResponse) -> Vec<String> {
    res.items()
        .iter()
        .map(|m| m["user"]["displayName"].as_str().expect("displayName").to_owned())
        .collect()
}

/// Follows `next.page` from the first page of `path` (which has a query
/// string) with `limit`, checking `count` and the page size on every page.
async fn all_pages(app: &TestApp, user: &TestUser, path: &str, limit: usize, count: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let mut page: Option<String> = None;
    loop {
        let url = match &page {
            Some(p) => format!("{path}&limit={limit}&page={p}"),
            None => format!("{path}&limit={limit}"),
        };
        let res = app.get(user, &url).await;
        res.assert_status(200);
        assert_eq!(res.body["count"], count, "count is the total, on every page");
        assert!(res.items().len() <= limit);
        seen.extend(ids(&res));
        page = res.next_page();
        if page.is_none() {
            break;
        }
        assert_eq!(res.items().len(), limit, "only the last page may be short");
    }
    seen
}

/// Records that `user` was just seen in the organization.
async fn ping(app: &TestApp, user: &TestUser, org_id: &str) {
    app.post(user, &format!("/v1/orgs/{org_id}/ping"), json!({}))
        .await
        .assert_status(200);
}

/// The role of the member at `path`, as `viewer` reads it.
async fn role_of(app: &TestApp, viewer: &TestUser, path: &str) -> Value {
    let res = app.get(viewer, path).await;
    res.assert_status(200);
    res.body["role"].clone()
}

/// An organization administered by Ada, with `others` added as members with `role`.
async fn org_with(app: &TestApp, others: &[&str], role: Value) -> (TestUser, String, Vec<TestUser>) {
    let ada = app.user("Ada").await;
    let org_id = app.org(&ada, "Acme").await;
    let mut users = Vec::new();
    for name in others {
        let user = app.user(name).await;
        app.add_member(&ada, &org_id, &user, role.clone()).await;
        users.push(user);
    }
    (ada, org_id, users)
}

both_backends! {
    async fn role_filter_keeps_one_role_or_the_guests(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        let mut by_role: Vec<(&str, Vec<String>)> = vec![("admin", vec![ada.id.clone()])];
        for (name, role) in [
            ("Cleo", "create"),
            ("Remy", "review"),
            ("Eddie", "edit"),
            ("Edna", "edit"),
            ("Coco", "comment"),
            ("Reed", "read"),
            ("Gus", "guest"),
        ] {
            let user = app.user(name).await;
            let role_json = if role == "guest" { Value::Null } else { json!(role) };
            app.add_member(&ada, &org_id, &user, role_json).await;
            match by_role.iter_mut().find(|(r, _)| *r == role) {
                Some((_, ids)) => ids.insert(0, user.id),
                None => by_role.push((role, vec![user.id])),
            }
        }
        assert_eq!(by_role.len(), 7, "every role and guests are represented");

        for (role, expected) in &by_role {
            let res = app.get(&ada, &format!("/v1/orgs/{org_id}/members?role={role}")).await;
            res.assert_status(200);
            assert_eq!(&ids(&res), expected, "role={role}, newest first");
            assert_eq!(res.body["count"], expected.len(), "role={role}");
            let want = if *role == "guest" { Value::Null } else { json!(role) };
            assert!(res.items().iter().all(|m| m["role"] == want), "role={role}: {}", res.body);
        }
        let all = app.get(&ada, &format!("/v1/orgs/{org_id}/members")).await;
        assert_eq!(all.body["count"], 8);
    }

    async fn search_matches_name_and_email_case_insensitively(app: TestApp) {
        let (ada, org_id, users) =
            org_with(&app, &["Grace Hopper", "Alan Turing", "Pure 100%", "Under_Score"], json!("edit")).await;
        let [grace, alan, percent, underscore] = [&users[0], &users[1], &users[2], &users[3]];
        let search = |q: &str| format!("/v1/orgs/{org_id}/members?search={q}");

        // Display name, in any case.
        assert_eq!(ids(&app.get(&ada, &search("HOPPER")).await), vec![grace.id.clone()]);
        assert_eq!(ids(&app.get(&ada, &search("ring")).await), vec![alan.id.clone()]);
        // "e.hop" is only in the email (grace.hopper@example.com), not the name.
        let by_email = app.get(&ada, &search("E.HOP")).await;
        assert_eq!(ids(&by_email), vec![grace.id.clone()]);
        assert_eq!(by_email.body["count"], 1);
        // Every member's email is on example.com.
        assert_eq!(app.get(&ada, &search("Example.COM")).await.body["count"], 5);
        // LIKE wildcards are plain characters (`%25` is `%` in a URL).
        assert_eq!(ids(&app.get(&ada, &search("%25")).await), vec![percent.id.clone()]);
        assert_eq!(ids(&app.get(&ada, &search("_")).await), vec![underscore.id.clone()]);
        assert_eq!(ids(&app.get(&ada, &search("r_s")).await), vec![underscore.id.clone()]);
        assert_eq!(app.get(&ada, &search("a_a")).await.body["count"], 0, "_ matches no single character");
        let none = app.get(&ada, &search("nobody")).await;
        none.assert_status(200);
        assert!(none.items().is_empty());
        assert_eq!(none.body["count"], 0);
        // Search and role filters combine.
        assert_eq!(ids(&app.get(&ada, &format!("{}&role=admin", search("a"))).await), vec![ada.id.clone()]);
    }

    async fn sort_by_joined_at_newest_first_by_default(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol", "Dan"], json!("read")).await;
        let joined: Vec<String> =
            std::iter::once(ada.id.clone()).chain(users.iter().map(|u| u.id.clone())).collect();
        let mut newest_first = joined.clone();
        newest_first.reverse();

        let default = app.get(&ada, &format!("/v1/orgs/{org_id}/members")).await;
        assert_eq!(ids(&default), newest_first);
        let desc = app.get(&ada, &format!("/v1/orgs/{org_id}/members?sort=joinedAt&order=desc")).await;
        assert_eq!(ids(&desc), newest_first);
        let asc = app.get(&ada, &format!("/v1/orgs/{org_id}/members?sort=joinedAt&order=asc")).await;
        assert_eq!(ids(&asc), joined);
        let first = asc.items()[0]["joinedAt"].as_str().unwrap().to_owned();
        let last = asc.items()[3]["joinedAt"].as_str().unwrap().to_owned();
        assert!(first < last, "{first} joined before {last}");
        app.get(&ada, &format!("/v1/orgs/{org_id}/members?order=sideways")).await.assert_status(400);
    }

    async fn sort_by_last_seen_lists_only_members_who_pinged(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"], json!("read")).await;
        let (bob, carol) = (&users[0], &users[1]);
        let path = format!("/v1/orgs/{org_id}/members?sort=lastSeenAt");

        let nobody = app.get(&ada, &path).await;
        nobody.assert_status(200);
        assert!(nobody.items().is_empty());
        assert_eq!(nobody.body["count"], 0);

        ping(&app, bob, &org_id).await;
        ping(&app, &ada, &org_id).await;
        let desc = app.get(&ada, &path).await;
        assert_eq!(ids(&desc), vec![ada.id.clone(), bob.id.clone()], "Carol never pinged");
        assert_eq!(desc.body["count"], 2);
        assert!(desc.items().iter().all(|m| m["lastSeenAt"].is_string()));
        let asc = app.get(&ada, &format!("{path}&order=asc")).await;
        assert_eq!(ids(&asc), vec![bob.id.clone(), ada.id.clone()]);

        ping(&app, bob, &org_id).await;
        assert_eq!(ids(&app.get(&ada, &path).await), vec![bob.id.clone(), ada.id.clone()]);
        ping(&app, carol, &org_id).await;
        assert_eq!(app.get(&ada, &path).await.body["count"], 3);
    }

    async fn sort_by_name_in_both_orders(app: TestApp) {
        let (ada, org_id, _) = org_with(&app, &["Mia", "Alma", "Zoe", "Ben"], json!("read")).await;
        let asc = app.get(&ada, &format!("/v1/orgs/{org_id}/members?sort=name&order=asc")).await;
        asc.assert_status(200);
        assert_eq!(names(&asc), ["Ada", "Alma", "Ben", "Mia", "Zoe"]);
        let desc = app.get(&ada, &format!("/v1/orgs/{org_id}/members?sort=name")).await;
        assert_eq!(names(&desc), ["Zoe", "Mia", "Ben", "Alma", "Ada"], "desc is the default order");
        assert_eq!(ids(&asc)[0], ada.id);
    }

    async fn pages_list_every_member_once_in_order(app: TestApp) {
        let (ada, org_id, _) =
            org_with(&app, &["Hugo", "Beth", "Finn", "Dora", "Gail", "Ivan", "Cole"], json!("read")).await;
        let base = format!("/v1/orgs/{org_id}/members?sort=joinedAt");
        let whole = ids(&app.get(&ada, &base).await);
        assert_eq!(whole.len(), 8);
        assert_eq!(all_pages(&app, &ada, &base, 3, 8).await, whole);
        assert_eq!(all_pages(&app, &ada, &base, 1, 8).await, whole);
        let oldest_first: Vec<String> = whole.iter().rev().cloned().collect();
        assert_eq!(all_pages(&app, &ada, &format!("{base}&order=asc"), 3, 8).await, oldest_first);

        let by_name = format!("/v1/orgs/{org_id}/members?sort=name&order=asc");
        let alphabetical = ids(&app.get(&ada, &by_name).await);
        assert_eq!(all_pages(&app, &ada, &by_name, 3, 8).await, alphabetical);

        // A filtered list pages with the filtered count.
        let filtered = all_pages(&app, &ada, &format!("/v1/orgs/{org_id}/members?role=read"), 2, 7).await;
        assert!(!filtered.contains(&ada.id));
        assert_eq!(filtered.len(), 7);

        // A cursor only works with the order it was made for.
        let first = app.get(&ada, &format!("{by_name}&limit=2")).await;
        let cursor = first.next_page().expect("more pages");
        app.get(&ada, &format!("/v1/orgs/{org_id}/members?sort=joinedAt&limit=2&page={cursor}"))
            .await
            .assert_status(400);
    }

    async fn a_member_added_while_paging_does_not_shift_later_pages(app: TestApp) {
        let (ada, org_id, _) = org_with(&app, &["Beth", "Cole", "Dora", "Finn", "Gail"], json!("read")).await;

        for base in [
            format!("/v1/orgs/{org_id}/members?sort=joinedAt&order=desc"),
            format!("/v1/orgs/{org_id}/members?sort=name&order=asc"),
        ] {
            let before = ids(&app.get(&ada, &base).await);
            let first = app.get(&ada, &format!("{base}&limit=2")).await;
            assert_eq!(ids(&first), before[..2]);
            // Joins at the head of both orders: newest, and first by name.
            let newcomer = app.user(&format!("Aaron {}", before.len())).await;
            app.add_member(&ada, &org_id, &newcomer, json!("read")).await;

            let mut rest = Vec::new();
            let mut page = first.next_page();
            while let Some(cursor) = page {
                let res = app.get(&ada, &format!("{base}&limit=2&page={cursor}")).await;
                res.assert_status(200);
                rest.extend(ids(&res));
                page = res.next_page();
            }
            assert_eq!(rest, before[2..], "{base}: later pages neither shift nor repeat");
            assert!(!rest.contains(&newcomer.id));
        }
    }

    async fn get_one_member(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob Smith"], json!("comment")).await;
        let bob = &users[0];
        let res = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", bob.id)).await;
        res.assert_status(200);
        assert_eq!(res.body["object"], "member");
        assert_eq!(res.body["id"], bob.id.as_str());
        assert_eq!(res.body["role"], "comment");
        assert_eq!(res.body["user"]["id"], bob.id.as_str());
        assert_eq!(res.body["user"]["email"], "bob.smith@example.com");
        assert_eq!(res.body["user"]["displayName"], "Bob Smith");
        assert_eq!(res.body["disabled"], false);
        assert_eq!(res.body["sso"], false);
        assert_eq!(res.body["teams"], 0);
        assert_eq!(res.body["spaces"], 0);
        assert!(res.body["joinedAt"].is_string());

        // Members see each other.
        let seen_by_bob = app.get(bob, &format!("/v1/orgs/{org_id}/members/{}", ada.id)).await;
        seen_by_bob.assert_status(200);
        assert_eq!(seen_by_bob.body["role"], "admin");
    }

    async fn only_admins_change_roles(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"], json!("edit")).await;
        let (bob, carol) = (&users[0], &users[1]);
        let bob_path = format!("/v1/orgs/{org_id}/members/{}", bob.id);

        let res = app.patch(&ada, &bob_path, json!({ "role": "review" })).await;
        res.assert_status(200);
        assert_eq!(res.body["role"], "review");
        assert_eq!(res.body["id"], bob.id.as_str());
        assert_eq!(role_of(&app, &ada, &bob_path).await, "review");

        let escalate = app.patch(bob, &bob_path, json!({ "role": "admin" })).await;
        escalate.assert_status(403);
        assert!(!escalate.message().is_empty());
        let carol_path = format!("/v1/orgs/{org_id}/members/{}", carol.id);
        app.patch(bob, &carol_path, json!({ "role": "read" })).await.assert_status(403);
        app.patch(bob, &format!("/v1/orgs/{org_id}/members/{}", ada.id), json!({ "role": "read" }))
            .await
            .assert_status(403);
        assert_eq!(role_of(&app, &ada, &bob_path).await, "review");
        assert_eq!(role_of(&app, &ada, &carol_path).await, "edit");
        assert_eq!(role_of(&app, &ada, &format!("/v1/orgs/{org_id}/members/{}", ada.id)).await, "admin");

        for bad in [json!({ "role": "owner" }), json!({ "role": "guest" }), json!({ "role": 3 })] {
            let res = app.patch(&ada, &bob_path, bad.clone()).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{bad}");
        }
        assert_eq!(role_of(&app, &ada, &bob_path).await, "review");

        let unchanged = app.patch(&ada, &bob_path, json!({})).await;
        unchanged.assert_status(200);
        assert_eq!(unchanged.body["role"], "review", "an absent role changes nothing");

        let guest = app.patch(&ada, &bob_path, json!({ "role": null })).await;
        guest.assert_status(200);
        assert_eq!(guest.body["role"], Value::Null);
        let guests = app.get(&ada, &format!("/v1/orgs/{org_id}/members?role=guest")).await;
        assert_eq!(ids(&guests), vec![bob.id.clone()]);

        app.patch(&ada, &format!("/v1/orgs/{org_id}/members/nobody"), json!({ "role": "read" }))
            .await
            .assert_status(404);
    }

    async fn the_last_admin_cannot_be_demoted(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("edit")).await;
        let bob = &users[0];
        let ada_path = format!("/v1/orgs/{org_id}/members/{}", ada.id);
        let bob_path = format!("/v1/orgs/{org_id}/members/{}", bob.id);

        for role in [json!("edit"), json!(null)] {
            let res = app.patch(&ada, &ada_path, json!({ "role": role })).await;
            res.assert_status(400);
            assert!(res.message().contains("admin"), "{}", res.message());
        }
        assert_eq!(app.get(&ada, &ada_path).await.body["role"], "admin");
        let admins = app.get(&ada, &format!("/v1/orgs/{org_id}/members?role=admin")).await;
        assert_eq!(ids(&admins), vec![ada.id.clone()]);

        // Re-asserting the same role is not a demotion.
        app.patch(&ada, &ada_path, json!({ "role": "admin" })).await.assert_status(200);

        // With a second admin, the first may step down; then the second is the last.
        app.patch(&ada, &bob_path, json!({ "role": "admin" })).await.assert_status(200);
        let stepped_down = app.patch(&ada, &ada_path, json!({ "role": "read" })).await;
        stepped_down.assert_status(200);
        assert_eq!(stepped_down.body["role"], "read");
        app.patch(bob, &bob_path, json!({ "role": "create" })).await.assert_status(400);
        assert_eq!(app.get(bob, &bob_path).await.body["role"], "admin");
    }

    async fn two_admins_stepping_down_at_once_leave_one_admin(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("admin")).await;
        let bob = &users[0];
        let members = format!("/v1/orgs/{org_id}/members");
        for round in 0..8 {
            let (ada_path, bob_path) = (format!("{members}/{}", ada.id), format!("{members}/{}", bob.id));
            let (a, b) = if round % 2 == 0 {
                tokio::join!(
                    app.patch(&ada, &ada_path, json!({ "role": "read" })),
                    app.patch(bob, &bob_path, json!({ "role": "read" })),
                )
            } else {
                tokio::join!(app.delete(&ada, &ada_path), app.delete(bob, &bob_path))
            };
            // Each request alone is allowed; together they must not both pass.
            let mut statuses = [a.status, b.status];
            statuses.sort();
            assert!(matches!(statuses[0], 200 | 204), "round {round}: {statuses:?}");
            assert_eq!(statuses[1], 400, "round {round}: one of them must stay admin");
            // Whoever left can no longer look; ask each in turn.
            let mut admins = app.get(&ada, &format!("{members}?role=admin")).await;
            if admins.status != 200 {
                admins = app.get(bob, &format!("{members}?role=admin")).await;
            }
            assert_eq!(admins.body["count"], 1, "round {round}: {}", admins.body);

            // The remaining admin makes the other an admin again.
            let (stayed, other) = if ids(&admins)[0] == ada.id { (&ada, bob) } else { (bob, &ada) };
            app.add_member(stayed, &org_id, other, json!("admin")).await;
            app.patch(stayed, &format!("{members}/{}", other.id), json!({ "role": "admin" })).await.assert_status(200);
        }
    }

    async fn admins_remove_members_and_members_leave(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"], json!("edit")).await;
        let (bob, carol) = (&users[0], &users[1]);
        let members = format!("/v1/orgs/{org_id}/members");
        let carol_path = format!("{members}/{}", carol.id);

        let denied = app.delete(bob, &carol_path).await;
        denied.assert_status(403);
        assert_eq!(app.get(&ada, &carol_path).await.body["role"], "edit", "still a member");

        app.delete(bob, &format!("{members}/{}", bob.id)).await.assert_status(204);
        app.get(&ada, &format!("{members}/{}", bob.id)).await.assert_status(404);
        app.get(bob, &format!("/v1/orgs/{org_id}")).await.assert_status(404);

        app.delete(&ada, &carol_path).await.assert_status(204);
        app.get(&ada, &carol_path).await.assert_status(404);
        app.get(carol, &format!("/v1/orgs/{org_id}")).await.assert_status(404);
        // Deleting again, or someone who never was a member, is still 204.
        app.delete(&ada, &carol_path).await.assert_status(204);
        app.delete(&ada, &format!("{members}/nobody")).await.assert_status(204);

        let left = app.get(&ada, &members).await;
        assert_eq!(ids(&left), vec![ada.id.clone()]);
        assert_eq!(left.body["count"], 1);
    }

    async fn removing_a_member_removes_their_team_memberships(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob", "Carol"], json!("edit")).await;
        let (bob, carol) = (&users[0], &users[1]);
        let team = app
            .put(&ada, &format!("/v1/orgs/{org_id}/teams"), json!({ "title": "Docs", "members": [bob.id, carol.id] }))
            .await;
        team.assert_status(201);
        let team_id = team.id();
        assert_eq!(team.body["members"], 2);

        app.delete(&ada, &format!("/v1/orgs/{org_id}/members/{}", bob.id)).await.assert_status(204);

        let team = app.get(&ada, &format!("/v1/orgs/{org_id}/teams/{team_id}")).await;
        assert_eq!(team.body["members"], 1);
        let team_members = app.get(&ada, &format!("/v1/orgs/{org_id}/teams/{team_id}/members")).await;
        let in_team: Vec<&str> =
            team_members.items().iter().map(|i| i["organization"]["id"].as_str().unwrap()).collect();
        assert_eq!(in_team, [carol.id.as_str()]);

        // Rejoining starts with no teams.
        app.add_member(&ada, &org_id, bob, json!("edit")).await;
        let back = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", bob.id)).await;
        assert_eq!(back.body["teams"], 0);
        assert!(app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}/teams", bob.id)).await.items().is_empty());
    }

    async fn the_last_admin_cannot_be_removed_or_leave(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("admin")).await;
        let bob = &users[0];
        let ada_path = format!("/v1/orgs/{org_id}/members/{}", ada.id);
        let bob_path = format!("/v1/orgs/{org_id}/members/{}", bob.id);

        // Two admins: one may leave.
        app.delete(&ada, &ada_path).await.assert_status(204);
        app.get(&ada, &format!("/v1/orgs/{org_id}")).await.assert_status(404);

        let res = app.delete(bob, &bob_path).await;
        res.assert_status(400);
        assert!(res.message().contains("admin"), "{}", res.message());
        let still = app.get(bob, &bob_path).await;
        still.assert_status(200);
        assert_eq!(still.body["role"], "admin");
    }

    async fn admins_mark_members_as_sso(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("edit")).await;
        let bob = &users[0];
        let res = app.post(&ada, &format!("/v1/orgs/{org_id}/members/{}/sso", bob.id), json!({})).await;
        res.assert_status(200);
        assert_eq!(res.body["id"], bob.id.as_str());
        assert_eq!(res.body["sso"], true);
        assert_eq!(res.body["role"], "edit", "the role is kept");
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", bob.id)).await.body["sso"], true);

        app.post(bob, &format!("/v1/orgs/{org_id}/members/{}/sso", ada.id), json!({})).await.assert_status(403);
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}", ada.id)).await.body["sso"], false);
        app.post(&ada, &format!("/v1/orgs/{org_id}/members/nobody/sso"), json!({})).await.assert_status(404);
    }

    async fn a_members_teams_with_their_role_and_a_title_filter(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("edit")).await;
        let bob = &users[0];
        let teams = format!("/v1/orgs/{org_id}/teams");
        let mut team_ids = Vec::new();
        for title in ["Docs Writers", "Design", "Platform"] {
            let res = app.put(&ada, &teams, json!({ "title": title })).await;
            res.assert_status(201);
            team_ids.push(res.id());
        }
        let (docs, platform) = (&team_ids[0], &team_ids[2]);
        app.put(&ada, &format!("{teams}/{docs}/members/{}", bob.id), json!({ "role": "member" }))
            .await
            .assert_status(204);
        app.put(&ada, &format!("{teams}/{platform}/members/{}", bob.id), json!({ "role": "owner" }))
            .await
            .assert_status(204);

        let path = format!("/v1/orgs/{org_id}/members/{}/teams", bob.id);
        let res = app.get(&ada, &path).await;
        res.assert_status(200);
        assert_eq!(res.body["count"], 2);
        let items: Vec<(&str, &str, &str)> = res
            .items()
            .iter()
            .map(|i| {
                (
                    i["team"]["id"].as_str().unwrap(),
                    i["team"]["title"].as_str().unwrap(),
                    i["member"]["role"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(items, [(docs.as_str(), "Docs Writers", "member"), (platform.as_str(), "Platform", "owner")]);
        assert_eq!(res.items()[0]["team"]["members"], 1);

        let filtered = app.get(&ada, &format!("{path}?title=PLAT")).await;
        assert_eq!(ids_of_teams(&filtered), vec![platform.clone()]);
        assert_eq!(filtered.body["count"], 1);
        let not_a_member = app.get(&ada, &format!("{path}?title=design")).await;
        assert!(not_a_member.items().is_empty(), "Bob is not in Design");
        assert_eq!(not_a_member.body["count"], 0);

        // Bob sees his own teams; as owner of Platform he may administer it.
        let own = app.get(bob, &path).await;
        own.assert_status(200);
        assert_eq!(own.items()[0]["team"]["permissions"]["admin"], false);
        assert_eq!(own.items()[1]["team"]["permissions"]["admin"], true);

        let paged = app.get(&ada, &format!("{path}?limit=1")).await;
        assert_eq!(ids_of_teams(&paged), vec![docs.clone()]);
        let cursor = paged.next_page().expect("a second page");
        let second = app.get(&ada, &format!("{path}?limit=1&page={cursor}")).await;
        assert_eq!(ids_of_teams(&second), vec![platform.clone()]);
        assert!(second.next_page().is_none());

        app.get(&ada, &format!("/v1/orgs/{org_id}/members/nobody/teams")).await.assert_status(404);
    }

    async fn a_members_spaces_are_an_empty_list_for_now(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("edit")).await;
        let res = app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}/spaces", users[0].id)).await;
        res.assert_status(200);
        assert!(res.items().is_empty());
        assert_eq!(res.body["count"], 0);
        assert!(res.next_page().is_none());
        app.get(&ada, &format!("/v1/orgs/{org_id}/members/nobody/spaces")).await.assert_status(404);
        app.get(&ada, &format!("/v1/orgs/{org_id}/members/{}/spaces?limit=1001", users[0].id))
            .await
            .assert_status(400);
    }

    async fn guests_read_the_org_but_not_its_directory(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Gus"], json!(null)).await;
        let gus = &users[0];
        let org = app.get(gus, &format!("/v1/orgs/{org_id}")).await;
        org.assert_status(200);
        assert_eq!(org.body["title"], "Acme");
        assert_eq!(org.body["permissions"]["listMembers"], false);

        for path in [
            format!("/v1/orgs/{org_id}/members"),
            format!("/v1/orgs/{org_id}/members/{}", ada.id),
            format!("/v1/orgs/{org_id}/members/{}/teams", ada.id),
            format!("/v1/orgs/{org_id}/teams"),
        ] {
            let res = app.get(gus, &path).await;
            res.assert_status(403);
            assert!(res.message().contains("guest"), "{path}: {}", res.message());
        }
        // A guest still sees their own membership.
        let me = app.get(gus, &format!("/v1/orgs/{org_id}/members/{}", gus.id)).await;
        me.assert_status(200);
        assert_eq!(me.body["role"], Value::Null);
    }

    async fn non_members_get_404_everywhere(app: TestApp) {
        let (ada, org_id, users) = org_with(&app, &["Bob"], json!("edit")).await;
        let bob = &users[0];
        let eve = app.user("Eve").await;
        let member = format!("/v1/orgs/{org_id}/members/{}", bob.id);
        for res in [
            app.get(&eve, &format!("/v1/orgs/{org_id}/members")).await,
            app.get(&eve, &member).await,
            app.patch(&eve, &member, json!({ "role": "read" })).await,
            app.delete(&eve, &member).await,
            app.post(&eve, &format!("{member}/sso"), json!({})).await,
            app.get(&eve, &format!("{member}/teams")).await,
            app.get(&eve, &format!("{member}/spaces")).await,
            app.delete(&eve, &format!("/v1/orgs/{org_id}/members/{}", eve.id)).await,
        ] {
            res.assert_status(404);
        }
        let still = app.get(&ada, &member).await;
        assert_eq!(still.body["role"], "edit");
        assert_eq!(still.body["sso"], false);
    }
}

/// The team ids of a member's team list.
fn ids_of_teams(res: &TestResponse) -> Vec<String> {
    res.items()
        .iter()
        .map(|i| i["team"]["id"].as_str().expect("team id").to_owned())
        .collect()
}

both_backends! {
    /// The unfiltered member count is kept in a counter; it must follow every
    /// way of joining and leaving.
    async fn member_count_follows_joins_and_departures(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let count = || async { app.get(&ada, &format!("/v1/orgs/{org}/members")).await.body["count"].clone() };
        assert_eq!(count().await, 1);
        let bob = app.user("Bob").await;
        app.add_member(&ada, &org, &bob, json!("read")).await;
        app.add_member(&ada, &org, &bob, json!("read")).await;
        app.post(&ada, &format!("/v1/orgs/{org}/invites"), json!({ "emails": ["later@example.com"] })).await.assert_status(200);
        assert_eq!(count().await, 2, "a pending invite is not a member yet");
        app.user("Later").await;
        assert_eq!(count().await, 3);
        let space = app.space(&ada, &org, "Shared", None).await;
        let guest = app.user("Guest").await;
        app.post(&ada, &format!("/v1/spaces/{space}/permissions"), json!({ "role": "read", "users": [guest.id] }))
            .await
            .assert_status(204);
        assert_eq!(count().await, 4, "sharing with an outsider makes a guest member");
        app.delete(&bob, &format!("/v1/orgs/{org}/members/{}", bob.id)).await.assert_status(204);
        app.delete(&ada, &format!("/v1/orgs/{org}/members/{}", guest.id)).await.assert_status(204);
        app.delete(&ada, &format!("/v1/orgs/{org}/members/{}", guest.id)).await.assert_status(204);
        assert_eq!(count().await, 2);
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org}/members")).await.items().len(), 2);
    }

    async fn emails_only_for_admins_and_the_member_themself(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let rita = app.user("Rita").await;
        let gus = app.user("Gus").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("edit")).await;
        app.add_member(&ada, &org, &rita, json!("read")).await;
        app.add_member(&ada, &org, &gus, Value::Null).await;
        let members = format!("/v1/orgs/{org}/members");
        let member = |user: &TestUser| format!("{members}/{}", user.id);

        let mut everyone = vec![ada.id.clone(), bob.id.clone(), rita.id.clone(), gus.id.clone()];
        everyone.sort();
        assert_eq!(app.get(&ada, &members).await.emails_shown(), everyone);
        assert_eq!(app.get(&ada, &member(&bob)).await.emails_shown(), vec![bob.id.clone()]);
        for (viewer, other) in [(&bob, &rita), (&rita, &bob)] {
            let list = app.get(viewer, &members).await;
            list.assert_status(200);
            assert_eq!(list.body["count"], 4);
            assert_eq!(list.emails_shown(), vec![viewer.id.clone()], "{}", list.body);
            let one = app.get(viewer, &member(other)).await;
            one.assert_status(200);
            assert_eq!(one.emails_shown(), Vec::<String>::new(), "{}", one.body);
            assert_eq!(app.get(viewer, &member(viewer)).await.emails_shown(), vec![viewer.id.clone()]);
        }
        // A guest sees only themself, email included.
        assert_eq!(app.get(&gus, &member(&gus)).await.emails_shown(), vec![gus.id.clone()]);
        // What admins change answers as they see it.
        let changed = app.patch(&ada, &member(&rita), json!({ "role": "comment" })).await;
        changed.assert_status(200);
        assert_eq!(changed.body["user"]["email"], rita.email.as_str());
    }
}
