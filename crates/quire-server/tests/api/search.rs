//! Search in a space and across an organization: ranking, languages without
//! spaces, stems, phrases, identifiers, prefixes, permissions, and an index
//! that follows every change of a space's content.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

fn page(name: &str, markdown: &str) -> Value {
    json!({ "operation": "insert_page", "ref": name, "document": { "markdown": markdown } })
}

/// The titles of the pages a space search finds, in rank order.
async fn titles(app: &TestApp, user: &TestUser, space: &str, query: &str) -> Vec<String> {
    let res = app
        .get(user, &format!("/v1/spaces/{space}/search?query={}", encode(query)))
        .await;
    res.assert_status(200);
    res.items()
        .iter()
        .map(|p| p["title"].as_str().unwrap().to_owned())
        .collect()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn corpus(app: &TestApp) -> (TestUser, String, String, Value) {
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
    let space = app.space(&ada, &org, "Docs", None).await;
    let ids = app
        .publish(
            &ada,
            &space,
            json!([
                page(
                    "body",
                    "# Server notes\n\nRestart it after you change the configuration of the proxy.\n"
                ),
                page(
                    "heading",
                    "# Options\n\nIntro.\n\n## Configuration options\n\nEvery option, one by one.\n"
                ),
                page("words", "# Configuring the server\n\nSteps.\n"),
                page("exact", "# Configuration\n\nWhere settings live.\n"),
                page("tokyo", "# 旅行\n\n私は東京に住んでいます。\n"),
                page("db", "# 数据库\n\n数据库的配置很重要。\n"),
                page("math", "# 数学\n\n数学很难。\n"),
                page("run", "# Operations\n\nHow to run the service in production.\n"),
                page("phrase", "# Git\n\nResolve a merge conflict by hand.\n"),
                page(
                    "scattered",
                    "# Teams\n\nA conflict between teams needs no merge of opinions.\n"
                ),
                page(
                    "code",
                    "# API client\n\nCall `getSpaceById(id)` and read `snake_case_name`.\n"
                ),
            ]),
        )
        .await;
    (ada, org, space, ids)
}

both_backends! {
    async fn titles_rank_above_headings_above_body(app: TestApp) {
        let (ada, _, space, _) = corpus(&app).await;
        assert_eq!(
            titles(&app, &ada, &space, "configuration ").await,
            ["Configuration", "Configuring the server", "Options", "Server notes"]
        );
        let res = app.get(&ada, &format!("/v1/spaces/{space}/search?query=configuration%20")).await;
        let first = &res.items()[0];
        assert_eq!(first["rank"], 1);
        assert_eq!(first["path"], "configuration");
        assert_eq!(first["resultType"], "page");
        let options = &res.items()[2];
        let section = &options["sections"][0];
        assert_eq!(section["title"], "Configuration options");
        assert_eq!(section["resultType"], "section");
        assert!(section["path"].as_str().unwrap().ends_with("#configuration-options"), "{section}");
        let body = &res.items()[3]["sections"][0]["body"];
        assert!(body.as_str().unwrap().contains("configuration of the proxy"), "{body}");
        // A typo in a longer word is forgiven when the word finds nothing.
        let forgiven = titles(&app, &ada, &space, "configuraton ").await;
        assert!(forgiven.contains(&"Configuration".to_owned()) && forgiven.contains(&"Server notes".to_owned()), "{forgiven:?}");
        assert!(titles(&app, &ada, &space, "proxi ").await.contains(&"Server notes".to_owned()), "a missing letter");
        assert_eq!(titles(&app, &ada, &space, "cnofguration ").await, Vec::<String>::new(), "two edits are too many");
    }

    /// A query scores a bounded number of the pages that match it (the most
    /// recently indexed); the pages with the word in their title or a
    /// heading are found apart, so they still come first when the word is
    /// on many more pages than that.
    async fn a_word_on_hundreds_of_pages_still_ranks_titles_first(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        app.publish(
            &ada,
            &space,
            json!([
                page("title", "# Deploy\n\nHow it ships.\n"),
                page("heading", "# Releases\n\n## Deploy steps\n\nIn order.\n"),
            ]),
        )
        .await;
        let cr = app.change_request(&ada, &space, "Notes").await;
        for batch in 0..12 {
            let notes: Vec<Value> = (batch * 50..batch * 50 + 50)
                .map(|i| page(&format!("note{i}"), &format!("# Note {i}\n\nWe deploy on Fridays, see note {i}.\n")))
                .collect();
            app.post(
                &ada,
                &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
                json!({ "changes": notes }),
            )
            .await
            .assert_status(200);
        }
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null))
            .await
            .assert_status(200);
        let found = titles(&app, &ada, &space, "deploy").await;
        assert_eq!(found.len(), 20, "{found:?}");
        assert_eq!(found[..2], ["Deploy", "Releases"], "{found:?}");
        assert!(found[2..].iter().all(|t| t.starts_with("Note ")), "{found:?}");
        let phrase = titles(&app, &ada, &space, "\"deploy steps\"").await;
        assert_eq!(phrase, ["Releases"]);
        let note = titles(&app, &ada, &space, "fridays 17 ").await;
        assert_eq!(note, ["Note 17"], "an old page is still found by a word few pages hold");
    }

    async fn words_inside_cjk_sentences_are_found(app: TestApp) {
        let (ada, _, space, _) = corpus(&app).await;
        assert_eq!(titles(&app, &ada, &space, "東京").await, ["旅行"]);
        assert_eq!(titles(&app, &ada, &space, "数据").await, ["数据库"]);
        assert_eq!(titles(&app, &ada, &space, "数学").await, ["数学"]);
        assert!(titles(&app, &ada, &space, "京都").await.is_empty());
        let res = app.get(&ada, &format!("/v1/spaces/{space}/search?query={}", encode("東京"))).await;
        assert!(res.items()[0]["sections"][0]["body"].as_str().unwrap().contains("東京"));
    }

    async fn stems_phrases_identifiers_and_prefixes(app: TestApp) {
        let (ada, _, space, _) = corpus(&app).await;
        assert_eq!(titles(&app, &ada, &space, "running ").await, ["Operations"]);
        assert_eq!(titles(&app, &ada, &space, "\"merge conflict\"").await, ["Git"]);
        assert_eq!(titles(&app, &ada, &space, "merge conflict ").await, ["Git", "Teams"]);
        assert_eq!(titles(&app, &ada, &space, "getSpaceById").await, ["API client"]);
        assert_eq!(titles(&app, &ada, &space, "space by id ").await, ["API client"]);
        assert_eq!(titles(&app, &ada, &space, "snake_case_name").await, ["API client"]);
        assert_eq!(titles(&app, &ada, &space, "produc").await, ["Operations"]);
        assert!(titles(&app, &ada, &space, "produc ").await.is_empty());
        assert!(titles(&app, &ada, &space, "unicorn").await.is_empty());
    }

    async fn the_index_follows_merges_updates_and_deletes(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let ids = app.publish(&ada, &space, json!([page("a", "# Alpha\n\nThe walrus sleeps.\n"), page("b", "# Beta\n\nThe heron flies.\n")])).await;
        assert_eq!(titles(&app, &ada, &space, "walrus").await, ["Alpha"]);
        // An open change request does not change what the space's search finds.
        let cr = app.change_request(&ada, &space, "Pending").await;
        app.write(&ada, &space, &cr, json!([{ "operation": "update_page", "page": ids["a"], "document": { "markdown": "# Alpha\n\nThe otter swims.\n" } }]))
            .await
            .assert_status(200);
        assert_eq!(titles(&app, &ada, &space, "walrus").await, ["Alpha"]);
        assert!(titles(&app, &ada, &space, "otter").await.is_empty());
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await.assert_status(200);
        assert!(titles(&app, &ada, &space, "walrus").await.is_empty());
        assert_eq!(titles(&app, &ada, &space, "otter").await, ["Alpha"]);
        // Renames and deletes.
        app.publish(&ada, &space, json!([
            { "operation": "update_page", "page": ids["b"], "title": "Gamma" },
            { "operation": "delete_page", "page": ids["a"] }
        ])).await;
        assert!(titles(&app, &ada, &space, "otter").await.is_empty());
        assert_eq!(titles(&app, &ada, &space, "gamma").await, ["Gamma"]);
        assert_eq!(titles(&app, &ada, &space, "heron").await, ["Gamma"]);
        // Templates write to the space directly.
        app.post(&ada, &format!("/v1/spaces/{space}/content/template"), json!({ "id": "api-reference" })).await.assert_status(201);
        assert_eq!(titles(&app, &ada, &space, "authentication").await[0], "Authentication");
        // A duplicate is indexed by a job queued with it.
        let copy = app.post(&ada, &format!("/v1/spaces/{space}/duplicate"), json!(null)).await;
        copy.assert_status(201);
        let copy = copy.id();
        assert!(titles(&app, &ada, &copy, "heron").await.is_empty());
        assert!(app.run_due_jobs().await >= 1);
        assert_eq!(titles(&app, &ada, &copy, "heron").await, ["Gamma"]);
    }

    async fn nobody_finds_what_they_cannot_read(app: TestApp) {
        let ada = app.user("Ada").await;
        let guest = app.user("Gus").await;
        let org = app.org(&ada, "Acme").await;
        let open = app.space(&ada, &org, "Open", None).await;
        let secret = app.space(&ada, &org, "Secret", None).await;
        app.publish(&ada, &open, json!([page("o", "# Shared plans\n\nThe zebra project.\n")])).await;
        app.publish(&ada, &secret, json!([page("s", "# Hidden plans\n\nThe zebra budget.\n")])).await;
        app.add_member(&ada, &org, &guest, json!(null)).await;
        app.post(&ada, &format!("/v1/spaces/{open}/permissions"), json!({ "role": "read", "users": [guest.id] }))
            .await
            .assert_status(204);
        // Space search: the guest reads one space and cannot see the other.
        assert_eq!(titles(&app, &guest, &open, "zebra").await, ["Shared plans"]);
        app.get(&guest, &format!("/v1/spaces/{secret}/search?query=zebra")).await.assert_status(404);
        // Organization search: only the spaces each caller can read.
        let org_search = |user: &TestUser| {
            let path = format!("/v1/orgs/{org}/search?query=zebra");
            let user = user.clone();
            let app = &app;
            async move {
                let res = app.get(&user, &path).await;
                res.assert_status(200);
                res.items().iter().map(|s| s["title"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
            }
        };
        let mut admin_sees = org_search(&ada).await;
        admin_sees.sort();
        assert_eq!(admin_sees, ["Open", "Secret"]);
        assert_eq!(org_search(&guest).await, ["Open"]);
        let res = app.get(&guest, &format!("/v1/orgs/{org}/search?query=zebra")).await;
        let space = &res.items()[0];
        assert_eq!(space["type"], "space");
        assert_eq!(space["pages"][0]["title"], "Shared plans");
        // Strangers see no organization at all.
        let eve = app.user("Eve").await;
        app.get(&eve, &format!("/v1/orgs/{org}/search?query=zebra")).await.assert_status(404);
    }

    async fn organization_search_over_many_spaces_keeps_to_readable_ones(app: TestApp) {
        // More spaces than the store matches through the index (8 on
        // PostgreSQL): the rest are filtered by space, with the same result.
        let ada = app.user("Ada").await;
        let guest = app.user("Gus").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &guest, json!(null)).await;
        let mut readable = Vec::new();
        for i in 0..12 {
            let space = app.space(&ada, &org, &format!("Space {i:02}"), None).await;
            let text = format!("# Plans {i:02}\n\nThe zebra crossing project.\n");
            app.publish(&ada, &space, json!([page("p", &text)])).await;
            if i < 10 {
                app.post(&ada, &format!("/v1/spaces/{space}/permissions"), json!({ "role": "read", "users": [guest.id] }))
                    .await
                    .assert_status(204);
                readable.push(format!("Space {i:02}"));
            }
        }
        for query in ["zebra", "%22zebra%20crossing%22", "zeb"] {
            let seen = |user: TestUser| {
                let path = format!("/v1/orgs/{org}/search?query={query}&limit=50");
                let app = &app;
                async move {
                    let res = app.get(&user, &path).await;
                    res.assert_status(200);
                    let mut titles: Vec<String> =
                        res.items().iter().map(|s| s["title"].as_str().unwrap().to_owned()).collect();
                    titles.sort();
                    titles
                }
            };
            assert_eq!(seen(guest.clone()).await, readable, "{query}");
            assert_eq!(seen(ada.clone()).await.len(), 12, "{query}");
        }
    }

    async fn queries_are_checked(app: TestApp) {
        let (ada, org, space, _) = corpus(&app).await;
        app.get(&ada, &format!("/v1/spaces/{space}/search")).await.assert_status(400);
        let long = "a".repeat(513);
        app.get(&ada, &format!("/v1/spaces/{space}/search?query={long}")).await.assert_status(400);
        app.get(&ada, &format!("/v1/orgs/{org}/search?query={long}")).await.assert_status(400);
        let empty = app.get(&ada, &format!("/v1/spaces/{space}/search?query=%3F%21")).await;
        empty.assert_status(200);
        assert!(empty.items().is_empty());
        // Pages of results.
        let first = app.get(&ada, &format!("/v1/spaces/{space}/search?query=configuration%20&limit=2")).await;
        assert_eq!(first.items().len(), 2);
        assert_eq!(first.body["count"], 4);
        let cursor = first.next_page().expect("a next page");
        let second = app.get(&ada, &format!("/v1/spaces/{space}/search?query=configuration%20&limit=2&page={cursor}")).await;
        assert_eq!(second.items()[0]["rank"], 3);
    }
}
