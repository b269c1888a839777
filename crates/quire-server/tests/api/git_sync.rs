//! Git Sync over HTTP: imports from repositories served over file:// and
//! smart HTTP, exports back to them, and the rules around both (ordering,
//! force, standalone, credentials, the network policy).

use serde_json::{Value, json};

use crate::support::git::{HttpServer, Repo};
use crate::support::{TestApp, TestUser, both_backends};

/// A 1x1 PNG.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0a, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00,
    0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

pub const SETUP: &str = "---\ndescription: Getting ready\n---\n\n# Setup\n\nBack to [the start](../README.md#welcome).\n\n```bash\nquire serve\n```\n";

/// A repository in GitBook's layout: configuration, summary, nested
/// folders, an image, an include, a file the summary does not list.
pub fn gitbook_repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".gitbook.yaml",
        "root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old/setup: guide/setup.md\n  gone: nowhere.md\n",
    )
        .write(
            "docs/SUMMARY.md",
            "# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Setup](guide/setup.md \"Set up\")\n  * [Tuning](guide/advanced/tuning.md)\n\n## Reference\n\n* [API](api.md)\n* [Status](https://status.example.com)\n",
        )
        .write(
            "docs/README.md",
            "# Welcome\n\nStart with the [guide](guide/README.md).\n\n{% include \".gitbook/includes/note.md\" %}\n",
        )
        .write("docs/guide/README.md", "# Guide\n\n![Screenshot](../.gitbook/assets/shot.png)\n")
        .write("docs/guide/setup.md", SETUP)
        .write(
            "docs/guide/advanced/tuning.md",
            "---\ntitle: Tuning\ndescription: >-\n  Turn the knobs\n  for speed.\n---\n\n# Tuning the server\n\nTurn the knobs.\n\nBack to [the guide](../) or [setup](../setup).\n",
        )
        .write("docs/api.md", "# API\n\nSend a token.\n")
        .write("docs/unlisted.md", "# Not in the summary\n")
        .write("docs/.gitbook/assets/shot.png", PNG)
        .write("docs/.gitbook/includes/note.md", "# A shared note\n\nWritten once, shown everywhere.\n")
        .write("src/main.rs", "fn main() {}\n");
    repo.commit("Initial docs");
    repo
}

/// Titles of a page tree, nested as `Title[Child, …]`.
pub fn outline(pages: &[Value]) -> Vec<String> {
    pages
        .iter()
        .map(|p| {
            let children = p["pages"].as_array().map(|c| outline(c)).unwrap_or_default();
            if children.is_empty() {
                p["title"].as_str().unwrap().to_owned()
            } else {
                format!("{}[{}]", p["title"].as_str().unwrap(), children.join(", "))
            }
        })
        .collect()
}

/// Every page of a tree, depth first.
pub fn all_pages(pages: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for page in pages {
        out.push(page.clone());
        out.extend(all_pages(
            page["pages"].as_array().map(Vec::as_slice).unwrap_or_default(),
        ));
    }
    out
}

pub fn page_titled(pages: &[Value], title: &str) -> Value {
    all_pages(pages)
        .into_iter()
        .find(|p| p["title"] == title)
        .unwrap_or_else(|| panic!("no page {title:?}"))
}

/// Imports `url` into `space` and runs the job; the job's result.
pub async fn import(app: &TestApp, user: &TestUser, space: &str, body: Value) -> Value {
    app.clock.advance_millis(1000);
    app.post(user, &format!("/v1/spaces/{space}/git/import"), body)
        .await
        .assert_status(204);
    assert!(app.run_due_jobs().await >= 1);
    let (state, result, error) = app.latest_job("git-import").await;
    assert_eq!(state, "done", "{error:?}");
    result
}

both_backends! {
    async fn published_pages_of_a_synced_space_are_edited_on_their_forge(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main", "repoTreeURL": "https://github.com/acme/docs/tree/main" })).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Handbook", "visibility": "public", "spaces": [space] })).await;
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let page = reqwest::get(format!("{}/handbook/", app.base_url)).await.unwrap().text().await.unwrap();
        let edit = page
            .split("href=\"")
            .filter_map(|s| s.split('"').next())
            .find(|href| href.starts_with("https://github.com/acme/docs/edit/main/"))
            .unwrap_or_else(|| panic!("no edit link: {page}"));
        assert!(edit.ends_with(".md"), "{edit}");
        assert!(page.contains(">Edit on GitHub</a>"), "{page}");
        // A space that is not synced has none.
        let plain = app.space(&ada, &org, "Plain", None).await;
        app.publish(&ada, &plain, json!([{ "operation": "insert_page", "title": "Hello", "document": { "markdown": "Hi.\n" } }])).await;
        let other = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Plain", "visibility": "public", "spaces": [plain] })).await;
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", other.id()), json!(null)).await.assert_status(200);
        let page = reqwest::get(format!("{}/plain/", app.base_url)).await.unwrap().text().await.unwrap();
        assert!(!page.contains("Edit on"), "{page}");
    }

    async fn a_gitbook_repository_imports_with_its_layout(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        let head = repo.head();
        let result = import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        assert_eq!(result["commit"], head.as_str());
        let skipped: Vec<&str> = result["skipped"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap()).collect();
        assert_eq!(skipped, ["docs/unlisted.md"], "{result}");
        // The pages were indexed for search by a job of their own, after
        // the import, and the index no longer lags.
        let (state, indexed, error) = app.latest_job("git-import-index").await;
        assert_eq!(state, "done", "{error:?}");
        assert!(indexed["pages"].as_u64().is_some_and(|n| n >= 5), "{indexed}");
        let found = app.get(&ada, &format!("/v1/spaces/{space}/search?query=tuning")).await;
        assert!(found.items().iter().any(|hit| hit["title"] == "Tuning"), "{}", found.body);
        let mut conn = app.db.read().await.expect("a connection");
        assert_eq!(quire_store::search::lagging(&mut conn, &space).await.expect("read"), None);

        let content = app.get(&ada, &format!("/v1/spaces/{space}/content")).await;
        content.assert_status(200);
        let pages = content.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["Welcome", "Guide[Setup, Tuning]", "Reference[API, Status]"]);
        assert_eq!(content.body["git"]["oid"], head.as_str());
        assert_eq!(content.body["git"]["message"], "Initial docs");
        assert_eq!(content.body["git"]["ref"], "refs/heads/main");
        assert_eq!(content.body["type"], "edits");
        let setup = page_titled(&pages, "Setup");
        assert_eq!(setup["linkTitle"], "Set up");
        assert_eq!(setup["description"], "Getting ready");
        assert_eq!(setup["git"]["path"], "docs/guide/setup.md");
        assert_eq!(page_titled(&pages, "Status")["type"], "link");
        assert_eq!(page_titled(&pages, "Reference")["type"], "group");
        // The markdown is the file's, byte for byte.
        let setup_id = setup["id"].as_str().unwrap().to_owned();
        assert_eq!(app.markdown(&ada, &space, &setup_id).await, SETUP);
        // The image is a file, the include reusable content.
        let files = content.body["files"].as_array().unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0]["name"], "shot.png");
        assert_eq!(files[0]["git"]["path"], "docs/.gitbook/assets/shot.png");
        assert_eq!(files[0]["dimensions"]["width"], 1);
        let reusable = content.body["reusableContents"].as_array().unwrap();
        assert_eq!(reusable.len(), 1);
        assert_eq!(reusable[0]["title"], "A shared note");
        // Links between pages resolve to pages.
        let links = app.get(&ada, &format!("/v1/spaces/{space}/content/page/{setup_id}/links")).await;
        assert_eq!(links.items()[0]["targetReference"]["page"], page_titled(&pages, "Welcome")["id"], "{}", links.body);

        // The space reports its Git Sync.
        let info = app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await;
        info.assert_status(200);
        assert_eq!(info.body["operation"]["state"], "success");
        assert_eq!(info.body["operation"]["direction"], "import");
        assert_eq!(info.body["repoName"], "origin");
        let space_view = app.get(&ada, &format!("/v1/spaces/{space}")).await;
        assert_eq!(space_view.body["gitSync"]["installationStatus"], "active");

        // A re-import after changes keeps page ids and unchanged objects.
        let welcome_id = page_titled(&pages, "Welcome")["id"].clone();
        repo.write("docs/guide/setup.md", format!("{SETUP}\nOne more line.\n"));
        repo.remove("docs/api.md");
        repo.write("docs/SUMMARY.md", "# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Setup](guide/setup.md \"Set up\")\n  * [Tuning](guide/advanced/tuning.md)\n");
        repo.commit("Edit setup, drop the API page");
        import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        let again = app.get(&ada, &format!("/v1/spaces/{space}/content")).await;
        let pages = again.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["Welcome", "Guide[Setup, Tuning]"]);
        assert_eq!(page_titled(&pages, "Setup")["id"], setup_id.as_str(), "ids are stable across imports");
        assert_eq!(page_titled(&pages, "Welcome")["id"], welcome_id);
        assert!(app.markdown(&ada, &space, &setup_id).await.ends_with("One more line.\n"));
        assert_eq!(again.body["files"][0]["id"], files[0]["id"], "an unchanged file keeps its object");

        // The same commit again: nothing to do.
        let same = import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        assert!(same["revision"].is_null() && same["ignored"].is_string(), "{same}");
    }

    async fn folders_decide_without_a_summary_and_projects_share_a_branch(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let repo = Repo::new();
        repo.write("README.md", "# Home\n")
            .write("page-10.md", "# Ten\n")
            .write("page-2.md", "# Two\n")
            .write("guide/README.md", "# The guide\n")
            .write("guide/step.md", "No heading here.\n")
            .write("apps/web/.gitbook.yaml", "")
            .write("apps/web/README.md", "# Web app\n")
            .write("apps/web/deploy.md", "# Deploy the web app\n")
            .write("apps/cli/README.md", "# Command line\n")
            .write("apps/cli/usage.md", "# Usage\n");
        repo.commit("Monorepo");
        let plain = app.space(&ada, &org, "Plain", None).await;
        import(&app, &ada, &plain, json!({ "url": repo.url(), "ref": "refs/heads/main", "repoProjectDirectory": "guide" })).await;
        let pages = app.get(&ada, &format!("/v1/spaces/{plain}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["The guide", "Step"]);

        let web = app.space(&ada, &org, "Web", None).await;
        let cli = app.space(&ada, &org, "CLI", None).await;
        import(&app, &ada, &web, json!({ "url": repo.url(), "ref": "refs/heads/main", "repoProjectDirectory": "apps/web" })).await;
        import(&app, &ada, &cli, json!({ "url": repo.url(), "ref": "refs/heads/main", "repoProjectDirectory": "apps/cli/" })).await;
        let web_pages = app.get(&ada, &format!("/v1/spaces/{web}/content")).await.body["pages"].as_array().unwrap().clone();
        let cli_pages = app.get(&ada, &format!("/v1/spaces/{cli}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&web_pages), ["Web app", "Deploy the web app"]);
        assert_eq!(outline(&cli_pages), ["Command line", "Usage"]);
        assert_eq!(page_titled(&cli_pages, "Usage")["git"]["path"], "usage.md");

        let root = app.space(&ada, &org, "Root", None).await;
        import(&app, &ada, &root, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        let root_pages = app.get(&ada, &format!("/v1/spaces/{root}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(
            outline(&root_pages),
            ["Home", "Apps[Command line[Usage], Web app[Deploy the web app]]", "The guide[Step]", "Two", "Ten"]
        );
    }

    async fn events_apply_in_order_and_standalone_imports_leave_the_space(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        let url = repo.url();
        import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "timestamp": "2026-11-24T10:00:00Z" })).await;
        let first = app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"].clone();
        repo.write("docs/api.md", "# API\n\nChanged.\n");
        repo.commit("Change the API page");
        // An event older than the one applied is ignored.
        app.post(&ada, &format!("/v1/spaces/{space}/git/import"), json!({ "url": url, "ref": "refs/heads/main", "timestamp": "2026-11-24T09:00:00Z" }))
            .await
            .assert_status(204);
        app.run_due_jobs().await;
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"], first);
        // A standalone import records a revision without moving the space.
        let standalone = import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "standalone": true, "timestamp": "2026-11-24T11:00:00Z" })).await;
        let revision = standalone["revision"].as_str().unwrap().to_owned();
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"], first);
        let recorded = app.get(&ada, &format!("/v1/spaces/{space}/revisions/{revision}")).await;
        recorded.assert_status(200);
        assert_eq!(recorded.body["git"]["oid"], repo.head().as_str());
        // A newer event moves it; force imports the same commit again.
        import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "timestamp": "2026-11-24T12:00:00Z" })).await;
        let moved = app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"].clone();
        assert_ne!(moved, first);
        let forced = import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "force": true })).await;
        assert!(forced["revision"].is_string(), "{forced}");
    }

    async fn a_missing_branch_is_named_with_the_branches_there_are(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        // A GitBook-era repository: its branch is `master` (and `main` is
        // what a team guesses first).
        let bare = repo.bare();
        let status = std::process::Command::new("git")
            .args(["-C", &bare.display().to_string(), "branch", "-m", "main", "master"])
            .status()
            .unwrap();
        assert!(status.success());
        let status = std::process::Command::new("git")
            .args(["-C", &bare.display().to_string(), "symbolic-ref", "HEAD", "refs/heads/master"])
            .status()
            .unwrap();
        assert!(status.success());
        // Before connecting, the branches there are and the default one.
        let branches = app.post(&ada, &format!("/v1/spaces/{space}/git/branches"), json!({ "url": repo.url() })).await;
        branches.assert_status(200);
        assert_eq!(branches.body, json!({ "default": "refs/heads/master", "items": ["refs/heads/master"] }));
        let nowhere = format!("{}-missing", repo.url());
        let missing = app.post(&ada, &format!("/v1/spaces/{space}/git/branches"), json!({ "url": nowhere })).await;
        missing.assert_status(400);
        assert!(missing.body["error"]["message"].as_str().is_some_and(|m| m.starts_with("the repository could not be read")), "{}", missing.body);
        app.post(&ada, &format!("/v1/spaces/{space}/git/branches"), json!({ "url": " " })).await.assert_status(400);
        app.post(&ada, &format!("/v1/spaces/{space}/git/branches"), json!({ "url": repo.url(), "ref": "x" })).await.assert_status(400);
        let stranger = app.user("Mallory").await;
        let refused = app.post(&stranger, &format!("/v1/spaces/{space}/git/branches"), json!({ "url": repo.url() })).await;
        assert!(matches!(refused.status, 403 | 404), "{}", refused.status);
        app.clock.advance_millis(1000);
        app.post(&ada, &format!("/v1/spaces/{space}/git/import"), json!({ "url": repo.url(), "ref": "refs/heads/main" }))
            .await
            .assert_status(204);
        app.run_due_jobs().await;
        let (state, _, error) = app.latest_job("git-import").await;
        assert_ne!(state, "done");
        let error = error.unwrap_or_default();
        assert!(
            error.contains("the ref refs/heads/main does not exist in the repository; its branches are master (the default is master: ref refs/heads/master)"),
            "{error}"
        );
        // The branch it names imports.
        import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/master" })).await;
        let content = app.get(&ada, &format!("/v1/spaces/{space}/content")).await;
        assert!(content.body["pages"].as_array().is_some_and(|p| !p.is_empty()), "{}", content.body);
    }

    async fn credentials_stay_secret_over_smart_http(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        let server = HttpServer::start(repo.root(), Some(("ada", "s3cret-token"))).await;
        let base = server.base_url.trim_start_matches("http://");
        let url = format!("http://ada:s3cret-token@{base}/origin.git");
        import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "repoTreeURL": "https://git.example.com/acme/docs/tree/main/" })).await;
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages)[0], "Welcome");
        let info = app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await;
        assert_eq!(info.body["url"], "https://git.example.com/acme/docs/tree/main/");
        let space_view = app.get(&ada, &format!("/v1/spaces/{space}")).await;
        assert!(!space_view.body.to_string().contains("s3cret"), "{}", space_view.body);

        // Wrong credentials: the failure is reported, without them.
        let wrong = format!("http://ada:wrong-token@{base}/origin.git");
        app.clock.advance_millis(1000);
        app.post(&ada, &format!("/v1/spaces/{space}/git/import"), json!({ "url": wrong, "ref": "refs/heads/main", "force": true }))
            .await
            .assert_status(204);
        app.run_due_jobs().await;
        let (state, _, error) = app.latest_job("git-import").await;
        assert_eq!(state, "queued", "a failed import is retried later");
        let error = error.unwrap();
        assert!(!error.contains("wrong-token"), "{error}");
        let info = app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await;
        assert_eq!(info.body["operation"]["state"], "failure");
        assert!(!info.body.to_string().contains("wrong-token"));

        // A token in the query string is as secret as one in the userinfo:
        // not in the job's error, git/info, nor the space's gitSync.
        let in_query = format!("http://{base}/origin.git?access_token=query-s3cret");
        app.clock.advance_millis(1000);
        app.post(&ada, &format!("/v1/spaces/{space}/git/import"), json!({ "url": in_query, "ref": "refs/heads/main", "force": true }))
            .await
            .assert_status(204);
        app.run_due_jobs().await;
        let (_, _, error) = app.latest_job("git-import").await;
        let error = error.unwrap();
        assert!(!error.contains("query-s3cret"), "{error}");
        let info = app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await;
        assert_eq!(info.body["operation"]["state"], "failure");
        assert!(!info.body.to_string().contains("query-s3cret"), "{}", info.body);
        let space_view = app.get(&ada, &format!("/v1/spaces/{space}")).await;
        assert!(!space_view.body.to_string().contains("query-s3cret"), "{}", space_view.body);
    }

    #[app(deny_private_fetch)]
    async fn private_addresses_and_bad_requests_are_refused(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let path = format!("/v1/spaces/{space}/git/import");
        for (body, why) in [
            (json!({ "url": "http://127.0.0.1:9/repo.git", "ref": "refs/heads/main" }), "loopback"),
            (json!({ "url": "file:///etc", "ref": "refs/heads/main" }), "file"),
            (json!({ "url": "ssh://git@example.com/repo.git", "ref": "refs/heads/main" }), "ssh"),
            (json!({ "url": "https://example.com/repo.git", "ref": "main" }), "ref"),
            (json!({ "url": "https://example.com/repo.git" }), "missing ref"),
            (json!({ "url": "https://example.com/repo.git", "ref": "refs/heads/main", "unknown": 1 }), "unknown field"),
            (json!({ "url": "https://example.com/repo.git", "ref": "refs/heads/main", "timestamp": "yesterday" }), "timestamp"),
            (json!({ "url": "https://example.com/repo.git", "ref": "refs/heads/main", "repoProjectDirectory": "../up" }), "directory"),
        ] {
            let res = app.post(&ada, &path, body).await;
            assert_eq!(res.status, 400, "{why}: {}", res.body);
        }
        app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await.assert_status(404);
        assert_eq!(app.run_due_jobs().await, 0, "nothing was queued");
        app.delete(&ada, &format!("/v1/spaces/{space}/git/legacy-installation")).await.assert_status(204);
        // Readers may not sync.
        let bea = app.user("Bea").await;
        app.add_member(&ada, &org, &bea, json!("read")).await;
        let res = app.post(&bea, &path, json!({ "url": "https://example.com/repo.git", "ref": "refs/heads/main" })).await;
        assert_eq!(res.status, 403);
    }
}

/// Exports `space` and runs the job; the job's result.
pub async fn export(app: &TestApp, user: &TestUser, space: &str, body: Value) -> Value {
    app.clock.advance_millis(1000);
    app.post(user, &format!("/v1/spaces/{space}/git/export"), body)
        .await
        .assert_status(204);
    assert!(app.run_due_jobs().await >= 1);
    let (state, result, error) = app.latest_job("git-export").await;
    assert_eq!(state, "done", "{error:?}");
    result
}

fn main_ref(url: &str, message: &str) -> Value {
    json!({ "url": url, "ref": "refs/heads/main", "commitMessage": message })
}

/// Opens a change request with `changes`, merges it; its number.
async fn merge_edit(app: &TestApp, user: &TestUser, space: &str, subject: &str, changes: Value) -> i64 {
    let cr = app.change_request(user, space, subject).await;
    app.write(user, space, &cr, changes).await.assert_status(200);
    let merged = app
        .post(
            user,
            &format!("/v1/spaces/{space}/change-requests/{cr}/merge"),
            json!(null),
        )
        .await;
    merged.assert_status(200);
    app.get(user, &format!("/v1/spaces/{space}/change-requests/{cr}"))
        .await
        .body["number"]
        .as_i64()
        .unwrap()
}

both_backends! {
    async fn exports_are_minimal_and_round_trip(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        let url = repo.url();
        import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main" })).await;
        let before = repo.head();
        // Front matter is YAML: a folded description reads as its text.
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        let tuning = all_pages(&pages).into_iter().find(|p| p["title"] == "Tuning").expect("the tuning page");
        assert_eq!(tuning["description"], "Turn the knobs for speed.");
        // Nothing changed: nothing is pushed (the front matter's title and
        // folded description, which say what the page says, stay as written).
        let result = export(&app, &ada, &space, main_ref(&url, "Sync")).await;
        assert_eq!(result["commit"], before.as_str(), "{result}");
        assert_eq!(repo.head(), before);
        // A standalone export to another repository leaves the space's link alone.
        let snapshot = Repo::new();
        let snapshot_url = snapshot.url();
        let mut standalone = main_ref(&snapshot_url, "Snapshot");
        standalone["standalone"] = json!(true);
        export(&app, &ada, &space, standalone).await;
        assert_eq!(snapshot.read("docs/guide/setup.md").as_deref(), Some(SETUP));
        let space_view = app.get(&ada, &format!("/v1/spaces/{space}")).await;
        assert!(space_view.body["gitSync"].is_object());

        // A merged change request exported alone: one commit, its pages only.
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        let setup = page_titled(&pages, "Setup")["id"].as_str().unwrap().to_owned();
        let number = merge_edit(&app, &ada, &space, "Explain the port", json!([
            { "operation": "update_page", "page": setup, "document": { "markdown": format!("{SETUP}\nThe server listens on port 8080.\n") } }
        ])).await;
        export(&app, &ada, &space, main_ref(&url, "Sync")).await;
        assert_eq!(repo.log()[0], format!("GITBOOK-{number}: Explain the port"));
        assert_eq!(
            repo.signatures(),
            ("Ada <ada@example.com>".to_owned(), "Quire <quire@localhost>".to_owned()),
            "authored by the change request's author, committed by Quire"
        );
        assert_eq!(repo.changes(&before, &repo.head()), ["M\tdocs/guide/setup.md"]);
        assert!(repo.read("docs/guide/setup.md").unwrap().ends_with("port 8080.\n"));
        assert_eq!(repo.read("src/main.rs").as_deref(), Some("fn main() {}\n"), "files Quire does not manage stay");

        // New pages get a place, renames keep the file, deletions propagate.
        let guide = page_titled(&pages, "Guide")["id"].as_str().unwrap().to_owned();
        let tuning = page_titled(&pages, "Tuning")["id"].as_str().unwrap().to_owned();
        let api = page_titled(&pages, "API")["id"].as_str().unwrap().to_owned();
        merge_edit(&app, &ada, &space, "Reorganize", json!([
            { "operation": "insert_page", "into": guide, "title": "Troubleshooting", "document": { "markdown": "See [the API](/pages/API_ID).\n".replace("API_ID", &api) } },
            { "operation": "update_page", "page": tuning, "title": "Performance tuning" },
            { "operation": "delete_page", "page": api }
        ])).await;
        let second = repo.head();
        export(&app, &ada, &space, main_ref(&url, "Reorganize the guide")).await;
        assert_eq!(repo.log()[0], "GITBOOK-2: Reorganize");
        let mut changed = repo.changes(&second, &repo.head());
        changed.sort();
        assert_eq!(
            changed,
            ["A\tdocs/guide/troubleshooting.md", "D\tdocs/api.md", "M\tdocs/SUMMARY.md", "M\tdocs/guide/advanced/tuning.md"],
        );
        // The title lives in the front matter there: only that line changes.
        assert_eq!(
            repo.read("docs/guide/advanced/tuning.md").unwrap(),
            "---\ntitle: Performance tuning\ndescription: >-\n  Turn the knobs\n  for speed.\n---\n\n# Tuning the server\n\nTurn the knobs.\n\nBack to [the guide](../) or [setup](../setup).\n"
        );
        assert!(!repo.files().contains(&"docs/api.md".to_owned()));
        assert!(repo.read("docs/SUMMARY.md").unwrap().contains("* [Troubleshooting](guide/troubleshooting.md)"));
        assert!(repo.read("docs/guide/troubleshooting.md").unwrap().starts_with("# Troubleshooting\n\nSee [the API]("));

        // The round trip: the export imported elsewhere is the same space,
        // and exporting again changes nothing.
        let copy = app.space(&ada, &org, "Copy", None).await;
        import(&app, &ada, &copy, json!({ "url": url, "ref": "refs/heads/main" })).await;
        let original = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        let copied = app.get(&ada, &format!("/v1/spaces/{copy}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&copied), outline(&original));
        for (a, b) in all_pages(&original).iter().zip(all_pages(&copied).iter()) {
            assert_eq!(a["git"]["path"], b["git"]["path"]);
            if a["type"] == "document" {
                let (ma, mb) = (
                    app.markdown(&ada, &space, a["id"].as_str().unwrap()).await,
                    app.markdown(&ada, &copy, b["id"].as_str().unwrap()).await,
                );
                assert_eq!(ma, mb, "{}", a["title"]);
            }
        }
        let files_a = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["files"].clone();
        let files_b = app.get(&ada, &format!("/v1/spaces/{copy}/content")).await.body["files"].clone();
        assert_eq!(files_a[0]["git"], files_b[0]["git"]);
        // The page created in Quire kept its id through the round trip.
        let reimported = import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "force": true })).await;
        assert!(reimported["revision"].is_string());
        let after = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(page_titled(&after, "Troubleshooting")["id"], page_titled(&original, "Troubleshooting")["id"]);
        let head = repo.head();
        export(&app, &ada, &space, main_ref(&url, "Again")).await;
        assert_eq!(repo.head(), head, "the second export is an empty diff");
    }

    async fn a_moved_branch_is_merged_and_a_conflict_opens_a_change_request(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        let server = HttpServer::start(repo.root(), Some(("ada", "push-token"))).await;
        let url = format!("http://ada:push-token@{}/origin.git", server.base_url.trim_start_matches("http://"));
        import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main" })).await;
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        let setup = page_titled(&pages, "Setup")["id"].as_str().unwrap().to_owned();

        // Someone pushes to the API page; Quire edits the setup page.
        repo.pull();
        repo.write("docs/api.md", "# API\n\nSend a token in the Authorization header.\n");
        repo.commit("Document the header");
        merge_edit(&app, &ada, &space, "Port", json!([
            { "operation": "update_page", "page": setup, "document": { "markdown": format!("{SETUP}\nPort 8080.\n") } }
        ])).await;
        let result = export(&app, &ada, &space, main_ref(&url, "Sync from Quire")).await;
        assert!(result["mergedRemote"].is_string(), "{result}");
        assert!(repo.read("docs/api.md").unwrap().contains("Authorization header"), "the remote's change stays");
        assert!(repo.read("docs/guide/setup.md").unwrap().ends_with("Port 8080.\n"), "and Quire's is pushed");
        let api = page_titled(&pages, "API")["id"].as_str().unwrap().to_owned();
        assert!(app.markdown(&ada, &space, &api).await.contains("Authorization header"), "the space has the remote's change");
        assert!(!app.get(&ada, &format!("/v1/spaces/{space}")).await.body.to_string().contains("push-token"));

        // Both change the same line: a change request holds the remote's version.
        repo.pull();
        repo.write("docs/guide/setup.md", format!("{SETUP}\nPort 9090.\n"));
        repo.commit("Change the port");
        let remote_head = repo.head();
        merge_edit(&app, &ada, &space, "Other port", json!([
            { "operation": "update_page", "page": setup, "document": { "markdown": format!("{SETUP}\nPort 7070.\n") } }
        ])).await;
        let result = export(&app, &ada, &space, main_ref(&url, "Sync again")).await;
        let cr = result["changeRequest"].as_str().expect("a change request for the conflict").to_owned();
        assert_eq!(repo.head(), remote_head, "nothing was pushed");
        let opened = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await;
        assert_eq!(opened.body["subject"], "Changes from Git (refs/heads/main)");
        let theirs = app
            .get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content/page/{setup}?format=markdown"))
            .await;
        assert!(theirs.body["markdown"].as_str().unwrap().ends_with("Port 9090.\n"), "{}", theirs.body);
        assert!(app.markdown(&ada, &space, &setup).await.ends_with("Port 7070.\n"), "the space keeps its own");
        let info = app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await;
        assert_eq!(info.body["operation"]["state"], "failure");
    }
}

both_backends! {
    async fn an_imported_space_publishes_with_its_images_links_and_includes(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Handbook", "spaces": [space] })).await;
        site.assert_status(201);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let client = reqwest::Client::new();
        let get = |path: String| {
            let client = client.clone();
            let url = format!("{}{path}", app.base_url);
            async move { client.get(url).send().await.unwrap().text().await.unwrap() }
        };
        let home = get("/handbook/".into()).await;
        assert!(home.contains("<div class=\"include\"><h2 id=\"a-shared-note\">"), "the include is rendered: {home}");
        assert!(home.contains("Written once, shown everywhere."));
        assert!(home.contains("<a href=\"/handbook/guide\">guide</a>"), "links by path go to pages: {home}");
        let guide = get("/handbook/guide".into()).await;
        assert!(guide.contains("<img src=\"/handbook/~files/"), "images by path are the space's files: {guide}");
        assert!(guide.contains("width=\"1\" height=\"1\""));
        let setup = get("/handbook/guide/setup".into()).await;
        assert!(setup.contains("<a href=\"/handbook/welcome#welcome\">the start</a>"), "{setup}");
        // Links to a folder or without `.md` name pages, as on GitBook.
        let tuning = get("/handbook/guide/tuning".into()).await;
        assert!(tuning.contains("<a href=\"/handbook/guide\">the guide</a>"), "{tuning}");
        assert!(tuning.contains("<a href=\"/handbook/guide/setup\">setup</a>"), "{tuning}");
        // `.gitbook.yaml` redirects answer with a permanent redirect.
        let no_follow = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let old = no_follow.get(format!("{}/handbook/old/setup", app.base_url)).send().await.unwrap();
        assert_eq!(old.status(), 308);
        assert_eq!(old.headers()["location"], "/handbook/guide/setup");
        let gone = no_follow.get(format!("{}/handbook/gone", app.base_url)).send().await.unwrap();
        assert_eq!(gone.status(), 404, "a redirect to no page is no redirect");
        // The PDF shows the images pages give by path.
        let url = crate::pdf::pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await;
        let (status, pdf, _) = crate::pdf::download(&url).await;
        assert_eq!(status, 200);
        assert_eq!(crate::pdf::images_of(&pdf), [(1, 1)], "the screenshot of the guide");
        assert!(!crate::pdf::poppler("pdftotext", &[], &pdf).contains("[image"), "no placeholder");
    }
}

both_backends! {
    async fn gitbook_redirects_reach_pages_named_without_md_or_by_their_folder(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = gitbook_repo();
        // GitBook reads a target without `.md` as the page's file, and a
        // folder (with its trailing slash) as its README.
        repo.write(
            ".gitbook.yaml",
            "root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  install: guide/setup\n  old-guide/: guide/\n  start.md: ./README\n  tuning-old: /guide/advanced/tuning\n  old/setup: guide/setup.md\n",
        );
        repo.commit("Redirects as GitBook users write them");
        import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Handbook", "spaces": [space] })).await;
        site.assert_status(201);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let no_follow = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        for (old, page) in [
            ("/handbook/install", "/handbook/guide/setup"),
            ("/handbook/old-guide", "/handbook/guide"),
            ("/handbook/old-guide/", "/handbook/guide"),
            ("/handbook/start", "/handbook/welcome"),
            ("/handbook/tuning-old", "/handbook/guide/tuning"),
            ("/handbook/old/setup", "/handbook/guide/setup"),
        ] {
            let res = no_follow.get(format!("{}{old}", app.base_url)).send().await.unwrap();
            assert_eq!(res.status(), 308, "{old}");
            assert_eq!(res.headers()["location"], page, "{old}");
            let landed = no_follow.get(format!("{}{page}", app.base_url)).send().await.unwrap();
            assert_eq!(landed.status(), 200, "{page}");
        }
    }
}

both_backends! {
    async fn a_broken_repository_imports_what_it_can(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let repo = Repo::new();
        repo.write(".gitbook.yaml", "root: [unclosed\n")
            .write("README.md", "# Home\n")
            .write("SUMMARY.md", "# Summary\n\n* [Home](README.md)\n* [Gone](gone.md)\n* [Here](here.md)\n")
            .write("here.md", "---\nif: visitor.claims.(\n---\n\n# Here\n");
        repo.commit("Broken bits");
        let result = import(&app, &ada, &space, json!({ "url": repo.url(), "ref": "refs/heads/main" })).await;
        let skipped: Vec<&str> = result["skipped"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap()).collect();
        assert_eq!(skipped, [".gitbook.yaml", "gone.md", "here.md"], "{result}");
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["Home", "Here"]);
        assert!(page_titled(&pages, "Here").get("condition").is_none(), "a condition that does not parse is left out");
    }
}
