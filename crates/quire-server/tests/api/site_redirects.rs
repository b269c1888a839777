//! Site redirects: the six official operations (list, create, bulk upsert,
//! update, delete, resolve by source), their input rules and access, and
//! what published sites answer for them (308/307, wildcards, drafts,
//! content references); beside them the redirects a published site makes
//! by itself (a page path in other letter case or with a trailing slash,
//! a site's basename when it has a custom hostname).

use serde_json::{Value, json};

use crate::published_sites::docs_site;
use crate::support::{TestApp, TestUser, both_backends};

/// What a published URL answers, redirects not followed.
struct Answer {
    status: u16,
    location: String,
    body: String,
}

async fn visit(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Answer {
    let page = crate::published_sites::fetch(app, path, headers).await;
    Answer {
        status: page.status,
        location: page
            .headers
            .get("location")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default(),
        body: page.body,
    }
}

async fn get(app: &TestApp, path: &str) -> Answer {
    visit(app, path, &[]).await
}

/// The Docs site's two site spaces (Guide, API) with their spaces' ids,
/// and the page ids of the Guide by title.
struct Site {
    guide_ss: String,
    api_ss: String,
    guide: String,
    pages: Value,
}

async fn site_of(app: &TestApp, ada: &TestUser, path: &str) -> Site {
    let listed = app.get(ada, &format!("{path}/site-spaces")).await;
    let by_title = |title: &str| {
        listed
            .items()
            .iter()
            .find(|s| s["title"] == title)
            .unwrap_or_else(|| panic!("no site space {title}"))
            .clone()
    };
    let (guide, api) = (by_title("Guide"), by_title("API"));
    let guide_space = guide["space"]["id"].as_str().unwrap().to_owned();
    let content = app.get(ada, &format!("/v1/spaces/{guide_space}/content")).await;
    let mut pages = json!({});
    for page in crate::git_sync::all_pages(content.body["pages"].as_array().unwrap()) {
        pages[page["title"].as_str().unwrap()] = page["id"].clone();
    }
    Site {
        guide_ss: guide["id"].as_str().unwrap().to_owned(),
        api_ss: api["id"].as_str().unwrap().to_owned(),
        guide: guide_space,
        pages,
    }
}

fn sources(items: &[Value]) -> Vec<&str> {
    items.iter().map(|r| r["source"].as_str().unwrap()).collect()
}

both_backends! {
    async fn redirects_are_created_listed_updated_resolved_and_deleted(app: TestApp) {
        let (ada, _org, path) = docs_site(&app, "public").await;
        let site = site_of(&app, &ada, &path).await;
        let redirects = format!("{path}/redirects");
        let setup = site.pages["Setup"].as_str().unwrap().to_owned();

        // Create: 201, the official object, no updatedAt yet.
        let created = app
            .post(&ada, &redirects, json!({
                "source": "/old-setup",
                "permanent": true,
                "destination": { "kind": "site-page", "siteSpaceId": site.guide_ss, "pageId": setup },
            }))
            .await;
        created.assert_status(201);
        let old_setup = created.id();
        assert_eq!(created.body["object"], "site-redirect");
        assert_eq!(created.body["source"], "/old-setup");
        assert_eq!((created.body["draft"].clone(), created.body["captureWildcard"].clone(), created.body["permanent"].clone()), (json!(false), json!(false), json!(true)));
        assert_eq!(created.body["destination"], json!({ "kind": "site-page", "siteSpaceId": site.guide_ss, "pageId": setup }));
        assert!(created.body.get("updatedAt").is_none(), "{}", created.body);
        // A second live redirect from the same source is a conflict; a
        // draft of it may be prepared beside it.
        let again = app.post(&ada, &redirects, json!({ "source": "/old-setup", "destination": { "kind": "site-space", "siteSpaceId": site.api_ss } })).await;
        again.assert_status(409);
        assert!(again.message().contains("/old-setup"), "{}", again.message());
        let draft = app.post(&ada, &redirects, json!({ "source": "/old-setup", "draft": true, "destination": { "kind": "site-space", "siteSpaceId": site.api_ss } })).await;
        draft.assert_status(201);
        assert_eq!(draft.body["draft"], true);
        // A page given by its space and path is kept as the page.
        app.clock.advance_millis(1000);
        let by_path = app
            .post(&ada, &redirects, json!({
                "source": "/guide/*",
                "captureWildcard": true,
                "destination": { "kind": "path", "spaceId": site.guide, "path": "setup/advanced" },
            }))
            .await;
        by_path.assert_status(201);
        assert_eq!(by_path.body["destination"], json!({ "kind": "site-page", "siteSpaceId": site.guide_ss, "pageId": site.pages["Advanced"] }));
        app.clock.advance_millis(1000);
        let external = app
            .post(&ada, &redirects, json!({ "source": "/blog*", "destination": { "kind": "external", "url": "https://blog.acme.example/posts" } }))
            .await;
        external.assert_status(201);

        // List: the live redirects unless draft=true, newest first.
        let live = app.get(&ada, &redirects).await;
        live.assert_status(200);
        assert_eq!(sources(live.items()), ["/blog*", "/guide/*", "/old-setup"]);
        assert_eq!(live.body["count"], 3);
        let drafts = app.get(&ada, &format!("{redirects}?draft=true")).await;
        assert_eq!(sources(drafts.items()), ["/old-setup"]);
        assert_eq!(drafts.items()[0]["id"], draft.id().as_str());
        assert_eq!(sources(app.get(&ada, &format!("{redirects}?orderBy=source")).await.items()), ["/blog*", "/guide/*", "/old-setup"]);
        assert_eq!(sources(app.get(&ada, &format!("{redirects}?search=SETUP")).await.items()), ["/old-setup"]);
        // Pages of one, in order, by cursor; a cursor keeps its order.
        let first = app.get(&ada, &format!("{redirects}?orderBy=source&limit=1")).await;
        assert_eq!(sources(first.items()), ["/blog*"]);
        let cursor = first.next_page().expect("a next page");
        let second = app.get(&ada, &format!("{redirects}?orderBy=source&limit=1&page={cursor}")).await;
        assert_eq!(sources(second.items()), ["/guide/*"]);
        app.get(&ada, &format!("{redirects}?limit=1&page={cursor}")).await.assert_status(400);
        let bad_order = app.get(&ada, &format!("{redirects}?orderBy=title")).await;
        bad_order.assert_status(400);
        assert!(bad_order.message().contains("orderBy"), "{}", bad_order.message());

        // Update: only what is given; updatedAt appears, and the updated
        // redirect comes first by update.
        app.clock.advance_millis(1000);
        let updated = app.patch(&ada, &format!("{redirects}/{old_setup}"), json!({ "permanent": false })).await;
        updated.assert_status(200);
        assert_eq!(updated.body["permanent"], false);
        assert_eq!(updated.body["source"], "/old-setup");
        assert_eq!(updated.body["destination"]["pageId"], setup.as_str());
        assert!(updated.body["updatedAt"].is_string(), "{}", updated.body);
        assert_eq!(sources(app.get(&ada, &format!("{redirects}?orderBy=updatedAt")).await.items()), ["/old-setup", "/blog*", "/guide/*"]);
        let clash = app.patch(&ada, &format!("{redirects}/{}", external.id()), json!({ "source": "/guide/*" })).await;
        clash.assert_status(409);
        // The update takes the official destination, not a path.
        let path_kind = app
            .patch(&ada, &format!("{redirects}/{old_setup}"), json!({ "destination": { "kind": "path", "spaceId": site.guide, "path": "setup" } }))
            .await;
        path_kind.assert_status(400);
        assert!(path_kind.message().contains("destination.kind"), "{}", path_kind.message());
        app.patch(&ada, &format!("{redirects}/nope"), json!({ "permanent": true })).await.assert_status(404);

        // Resolve by source: the exact source, else what a path follows.
        let resolved = app.get(&ada, &format!("{path}/redirect?source=/old-setup")).await;
        resolved.assert_status(200);
        assert_eq!(resolved.body["redirect"]["id"], old_setup.as_str());
        assert_eq!(resolved.body["target"], format!("{}/docs/setup", app.base_url));
        let below = app.get(&ada, &format!("{path}/redirect?source=/guide/a/b")).await;
        below.assert_status(200);
        assert_eq!(below.body["redirect"]["source"], "/guide/*");
        assert_eq!(below.body["target"], format!("{}/docs/setup/advanced/a/b", app.base_url));
        let outside = app.get(&ada, &format!("{path}/redirect?source=/blog-2024/x")).await;
        assert_eq!(outside.body["target"], "https://blog.acme.example/posts", "no capture: the destination alone");
        app.get(&ada, &format!("{path}/redirect?source=/nothing")).await.assert_status(404);
        let bad = app.get(&ada, &format!("{path}/redirect?source=nothing")).await;
        bad.assert_status(400);
        assert!(bad.message().contains("source"), "{}", bad.message());
        app.get(&ada, &format!("{path}/redirect")).await.assert_status(400);
        app.get(&ada, &format!("{path}/redirect?source=/old-setup&shareKey=nope")).await.assert_status(400);

        // Delete: 205 when deleted, 204 when there was none.
        app.delete(&ada, &format!("{redirects}/{}", external.id())).await.assert_status(205);
        app.delete(&ada, &format!("{redirects}/{}", external.id())).await.assert_status(204);
        assert_eq!(sources(app.get(&ada, &redirects).await.items()), ["/guide/*", "/old-setup"]);
    }

    async fn bulk_upserts_apply_whole_or_not_at_all(app: TestApp) {
        let (ada, _org, path) = docs_site(&app, "public").await;
        let site = site_of(&app, &ada, &path).await;
        let redirects = format!("{path}/redirects");
        let to_api = json!({ "kind": "site-space", "siteSpaceId": site.api_ss });
        let to_guide = json!({ "kind": "site-space", "siteSpaceId": site.guide_ss });
        let first = app
            .put(&ada, &redirects, json!({ "redirects": [
                { "source": "/a", "destination": to_api },
                { "source": "/b", "permanent": true, "destination": to_guide },
                { "source": "/c", "intent": "draft", "destination": to_api },
            ] }))
            .await;
        first.assert_status(200);
        let statuses: Vec<(&str, &str, bool)> = first.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["status"].as_str().unwrap(), r["source"].as_str().unwrap(), r["draft"].as_bool().unwrap()))
            .collect();
        assert_eq!(statuses, [("created", "/a", false), ("created", "/b", false), ("created", "/c", true)]);
        let b_id = first.body["results"][1]["id"].as_str().unwrap().to_owned();

        // Update, delete, publish a draft, and report what was not there.
        let second = app
            .put(&ada, &redirects, json!({ "redirects": [
                { "source": "/b", "intent": "live", "captureWildcard": true, "destination": to_api },
                { "source": "/a", "destination": null },
                { "source": "/c", "intent": "publish" },
                { "source": "/gone", "destination": null },
                { "source": "/never", "intent": "publish" },
            ] }))
            .await;
        second.assert_status(200);
        let results = second.body["results"].as_array().unwrap();
        assert_eq!(results.iter().map(|r| r["status"].as_str().unwrap()).collect::<Vec<_>>(), ["updated", "deleted", "published", "error", "error"]);
        assert_eq!(results[0]["id"], b_id.as_str(), "an update keeps the redirect");
        assert_eq!(results[2]["draft"], false);
        assert!(results[3]["error"].as_str().unwrap().contains("/gone"), "{}", results[3]);
        let live = app.get(&ada, &format!("{redirects}?orderBy=source")).await;
        assert_eq!(sources(live.items()), ["/b", "/c"]);
        let b = &live.items()[0];
        assert_eq!((b["captureWildcard"].clone(), b["permanent"].clone()), (json!(true), json!(true)), "permanent kept when not given");
        assert_eq!(b["destination"], to_api);
        assert!(b["updatedAt"].is_string());
        assert!(app.get(&ada, &format!("{redirects}?draft=true")).await.items().is_empty(), "the published draft is gone");
        // Publishing a draft over a live redirect replaces it, keeping its id.
        app.post(&ada, &redirects, json!({ "source": "/b", "draft": true, "destination": to_guide })).await.assert_status(201);
        let published = app.put(&ada, &redirects, json!({ "redirects": [{ "source": "/b", "intent": "publish" }] })).await;
        assert_eq!(published.body["results"][0]["id"], b_id.as_str());
        assert_eq!(app.get(&ada, &format!("{path}/redirect?source=/b")).await.body["redirect"]["destination"], to_guide);

        // Any invalid redirect refuses them all, naming it; nothing changes.
        let before = app.get(&ada, &format!("{redirects}?orderBy=source")).await.body.clone();
        let too_many: Vec<Value> = (0..501).map(|i| json!({ "source": format!("/p{i}"), "destination": to_api })).collect();
        for (body, field) in [
            (json!({ "redirects": [{ "source": "/new", "destination": to_api }, { "source": "/x/", "destination": to_api }] }), "redirects[1].source"),
            (json!({ "redirects": [{ "source": "/new", "destination": to_api }, { "source": "/y", "destination": { "kind": "site-space", "siteSpaceId": "nope" } }] }), "redirects[1].destination.siteSpaceId"),
            (json!({ "redirects": [{ "source": "/new", "destination": to_api }, { "source": "/new", "destination": to_guide }] }), "redirects[1].source"),
            (json!({ "redirects": [{ "source": "/new", "intent": "sometimes", "destination": to_api }] }), "redirects[0].intent"),
            (json!({ "redirects": [{ "source": "/new" }] }), "redirects[0].destination"),
            (json!({ "redirects": [{ "source": "/new", "intent": "publish", "destination": to_api }] }), "redirects[0].destination"),
            (json!({ "redirects": [] }), "redirects"),
            (json!({ "redirects": too_many }), "redirects"),
            (json!({}), "redirects"),
        ] {
            let refused = app.put(&ada, &redirects, body).await;
            refused.assert_status(400);
            assert!(refused.message().contains(field), "{field}: {}", refused.message());
        }
        assert_eq!(app.get(&ada, &format!("{redirects}?orderBy=source")).await.body, before);
        assert!(app.get(&ada, &format!("{redirects}?draft=true")).await.items().is_empty());
    }

    async fn bad_input_is_refused_naming_its_field(app: TestApp) {
        let (ada, _org, path) = docs_site(&app, "public").await;
        let site = site_of(&app, &ada, &path).await;
        let redirects = format!("{path}/redirects");
        let to_api = json!({ "kind": "site-space", "siteSpaceId": site.api_ss });
        let long = format!("/{}", "a".repeat(512));
        for (body, field) in [
            (json!({ "destination": to_api }), "source"),
            (json!({ "source": "old", "destination": to_api }), "source"),
            (json!({ "source": "/old/", "destination": to_api }), "source"),
            (json!({ "source": "/*", "destination": to_api }), "source"),
            (json!({ "source": "/a*b", "destination": to_api }), "source"),
            (json!({ "source": "/a b", "destination": to_api }), "source"),
            (json!({ "source": long, "destination": to_api }), "source"),
            (json!({ "source": 7, "destination": to_api }), "source"),
            (json!({ "source": "/old" }), "destination"),
            (json!({ "source": "/old", "destination": "https://x.example" }), "destination"),
            (json!({ "source": "/old", "destination": { "kind": "page" } }), "destination.kind"),
            (json!({ "source": "/old", "destination": { "kind": "site-section", "siteSectionId": "nope" } }), "destination.siteSectionId"),
            (json!({ "source": "/old", "destination": { "kind": "site-page", "siteSpaceId": site.guide_ss } }), "destination.pageId"),
            (json!({ "source": "/old", "destination": { "kind": "site-page", "siteSpaceId": site.guide_ss, "pageId": "nope" } }), "destination.pageId"),
            (json!({ "source": "/old", "destination": { "kind": "external", "url": "ftp://files.example" } }), "destination.url"),
            (json!({ "source": "/old", "destination": { "kind": "external", "url": "https://x.example/é" } }), "destination.url"),
            (json!({ "source": "/old", "destination": { "kind": "path", "spaceId": site.guide, "path": "nowhere" } }), "destination.path"),
            (json!({ "source": "/old", "destination": { "kind": "path", "spaceId": "nope", "path": "setup" } }), "destination.spaceId"),
            (json!({ "source": "/old", "captureWildcard": "yes", "destination": to_api }), "captureWildcard"),
            (json!({ "source": "/old", "permanent": null, "destination": to_api }), "permanent"),
            (json!({ "source": "/old", "destination": to_api, "status": 301 }), "status"),
            (json!(["/old"]), "body"),
        ] {
            let refused = app.post(&ada, &redirects, body.clone()).await;
            refused.assert_status(400);
            assert!(refused.message().contains(field), "{body}: {}", refused.message());
        }
        let one = app.post(&ada, &redirects, json!({ "source": "/old", "destination": to_api })).await;
        one.assert_status(201);
        for (body, field) in [
            (json!({ "source": "/old/" }), "source"),
            (json!({ "draft": "no" }), "draft"),
            (json!({ "destination": { "kind": "site-space", "siteSpaceId": "nope" } }), "destination.siteSpaceId"),
            (json!({ "colour": "red" }), "colour"),
        ] {
            let refused = app.patch(&ada, &format!("{redirects}/{}", one.id()), body.clone()).await;
            refused.assert_status(400);
            assert!(refused.message().contains(field), "{body}: {}", refused.message());
        }
        // Nothing of the above changed anything.
        let listed = app.get(&ada, &redirects).await;
        assert_eq!(listed.body["count"], 1);
        assert_eq!(listed.items()[0], one.body);
    }

    async fn members_read_redirects_and_admins_change_them(app: TestApp) {
        let (ada, org, path) = docs_site(&app, "public").await;
        let site = site_of(&app, &ada, &path).await;
        let redirects = format!("{path}/redirects");
        let to_api = json!({ "kind": "site-space", "siteSpaceId": site.api_ss });
        let one = app.post(&ada, &redirects, json!({ "source": "/old", "destination": to_api })).await;
        let one_path = format!("{redirects}/{}", one.id());
        let creator = app.user("Cole").await;
        app.add_member(&ada, &org, &creator, json!("create")).await;
        let stranger = app.user("Stella").await;

        // A member who is no admin reads, and may not change.
        assert_eq!(app.get(&creator, &redirects).await.items().len(), 1);
        app.get(&creator, &format!("{path}/redirect?source=/old")).await.assert_status(200);
        app.post(&creator, &redirects, json!({ "source": "/new", "destination": to_api })).await.assert_status(403);
        app.put(&creator, &redirects, json!({ "redirects": [{ "source": "/new", "destination": to_api }] })).await.assert_status(403);
        app.patch(&creator, &one_path, json!({ "permanent": true })).await.assert_status(403);
        app.delete(&creator, &one_path).await.assert_status(403);
        // Someone outside the organization finds nothing.
        app.get(&stranger, &redirects).await.assert_status(404);
        app.get(&stranger, &format!("{path}/redirect?source=/old")).await.assert_status(404);
        app.post(&stranger, &redirects, json!({ "source": "/new", "destination": to_api })).await.assert_status(404);
        app.put(&stranger, &redirects, json!({ "redirects": [{ "source": "/new", "destination": to_api }] })).await.assert_status(404);
        app.patch(&stranger, &one_path, json!({ "permanent": true })).await.assert_status(404);
        app.delete(&stranger, &one_path).await.assert_status(404);
        // What they tried changed nothing.
        let listed = app.get(&ada, &redirects).await;
        assert_eq!(listed.body["count"], 1);
        assert_eq!(listed.items()[0], one.body);
    }

    async fn published_sites_follow_their_live_redirects(app: TestApp) {
        let (ada, _org, path) = docs_site(&app, "public").await;
        let site = site_of(&app, &ada, &path).await;
        let redirects = format!("{path}/redirects");
        // Kept before the redirect exists: the write drops what was kept.
        let setup = get(&app, "/docs/setup/advanced").await;
        assert_eq!(setup.status, 200);
        assert_eq!(get(&app, "/docs/setup/advanced").await.status, 200);
        app.put(&ada, &redirects, json!({ "redirects": [
            { "source": "/old-setup", "permanent": true, "destination": { "kind": "site-page", "siteSpaceId": site.guide_ss, "pageId": site.pages["Setup"] } },
            { "source": "/moved", "permanent": false, "destination": { "kind": "site-space", "siteSpaceId": site.api_ss } },
            { "source": "/manual/*", "captureWildcard": true, "permanent": true, "destination": { "kind": "site-space", "siteSpaceId": site.guide_ss } },
            { "source": "/api-old/*", "permanent": true, "destination": { "kind": "site-space", "siteSpaceId": site.api_ss } },
            { "source": "/v1*", "captureWildcard": true, "permanent": true, "destination": { "kind": "external", "url": "https://archive.acme.example/v1" } },
            { "source": "/setup/advanced", "permanent": true, "destination": { "kind": "external", "url": "https://tuning.acme.example/" } },
            { "source": "/soon", "intent": "draft", "permanent": true, "destination": { "kind": "site-space", "siteSpaceId": site.api_ss } },
        ] }))
        .await
        .assert_status(200);

        // The page kept before is no longer what its path answers.
        let gone = get(&app, "/docs/setup/advanced").await;
        assert_eq!((gone.status, gone.location.as_str()), (308, "https://tuning.acme.example/"));
        // Permanent: 308; temporary: 307; content references lead to their
        // published URLs.
        let old = get(&app, "/docs/old-setup").await;
        assert_eq!((old.status, old.location.as_str()), (308, "/docs/setup"));
        let moved = get(&app, "/docs/moved").await;
        assert_eq!((moved.status, moved.location.as_str()), (307, "/docs/api/"));
        // Wildcards: the rest appended when captured, dropped otherwise.
        let deep = get(&app, "/docs/manual/setup/advanced").await;
        assert_eq!((deep.status, deep.location.as_str()), (308, "/docs/setup/advanced"));
        assert_eq!(get(&app, "/docs/manual").await.location, "/docs/");
        assert_eq!(get(&app, "/docs/api-old/any/thing").await.location, "/docs/api/");
        let prefix = get(&app, "/docs/v1-beta/install%20guide").await;
        assert_eq!((prefix.status, prefix.location.as_str()), (308, "https://archive.acme.example/v1-beta/install%20guide"));
        // A redirect comes before the page its source names; the query
        // goes along.
        let shadowed = get(&app, "/docs/setup/advanced?ref=mail").await;
        assert_eq!((shadowed.status, shadowed.location.as_str()), (308, "https://tuning.acme.example/?ref=mail"));
        // Drafts are not live; paths no redirect names are as before.
        assert_eq!(get(&app, "/docs/soon").await.status, 404);
        assert_eq!(get(&app, "/docs/setup").await.status, 200);
        assert_eq!(get(&app, "/docs/api/authentication").await.status, 200);

        // Publishing the draft makes it live at once.
        app.put(&ada, &redirects, json!({ "redirects": [{ "source": "/soon", "intent": "publish" }] })).await.assert_status(200);
        assert_eq!(get(&app, "/docs/soon").await.location, "/docs/api/");
        // A page gone from the content: its redirect leads nowhere, so the
        // path is what it would be without it.
        let api_space = app.get(&ada, &format!("{path}/site-spaces")).await.items().iter().find(|s| s["title"] == "API").unwrap()["space"]["id"].as_str().unwrap().to_owned();
        let auth = app.get(&ada, &format!("/v1/spaces/{api_space}/content")).await.body["pages"][0]["id"].as_str().unwrap().to_owned();
        app.post(&ada, &redirects, json!({ "source": "/login", "destination": { "kind": "site-page", "siteSpaceId": site.api_ss, "pageId": auth } }))
            .await
            .assert_status(201);
        assert_eq!(get(&app, "/docs/login").await.location, "/docs/api/authentication");
        let cr = app.change_request(&ada, &api_space, "Remove").await;
        app.write(&ada, &api_space, &cr, json!([{ "operation": "delete_page", "page": auth }])).await.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{api_space}/change-requests/{cr}/merge"), json!(null)).await.assert_status(200);
        assert_eq!(get(&app, "/docs/login").await.status, 404);

        // Deleting a redirect stops it at once.
        let listed = app.get(&ada, &format!("{redirects}?search=old-setup")).await;
        app.delete(&ada, &format!("{redirects}/{}", listed.items()[0]["id"].as_str().unwrap())).await.assert_status(205);
        assert_eq!(get(&app, "/docs/old-setup").await.status, 404);

        // On a site not open to everyone, permanent redirects answer 307,
        // under the share key.
        app.patch(&ada, &path, json!({ "visibility": "share-link" })).await.assert_status(200);
        let link = app.post(&ada, &format!("{path}/share-links"), json!({ "name": "Partners" })).await;
        let url = link.body["urls"]["published"].as_str().unwrap().to_owned();
        let key = url.trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        let shared = get(&app, &format!("/docs/{key}/manual/setup")).await;
        assert_eq!((shared.status, shared.location), (307, format!("/docs/{key}/setup")));
        assert_eq!(get(&app, "/docs/manual/setup").await.status, 404, "no key, no site, no redirect");
    }

    async fn page_paths_in_other_case_or_with_a_slash_lead_to_the_page(app: TestApp) {
        let (_ada, _org, _path) = docs_site(&app, "public").await;
        for (asked, canonical) in [
            ("/docs/Setup", "/docs/setup"),
            ("/docs/setup/", "/docs/setup"),
            ("/docs/SETUP/Advanced/", "/docs/setup/advanced"),
            ("/docs/API/Authentication", "/docs/api/authentication"),
            ("/docs/api/authentication/", "/docs/api/authentication"),
            ("/docs/Api", "/docs/api/"),
            ("/docs/Setup.md", "/docs/setup.md"),
            ("/docs/Setup?ref=mail", "/docs/setup?ref=mail"),
        ] {
            let answer = get(&app, asked).await;
            assert_eq!((answer.status, answer.location.as_str()), (308, canonical), "{asked}: {}", answer.body);
        }
        let setup = get(&app, "/docs/setup").await;
        assert_eq!(setup.status, 200);
        assert!(setup.body.contains("<h1>Setup</h1>"));
        // Space roots keep their slash; what names nothing is not found.
        assert_eq!(get(&app, "/docs/api/").await.status, 200);
        assert_eq!(get(&app, "/docs/").await.status, 200);
        assert_eq!(get(&app, "/docs/Nope").await.status, 404);
        assert_eq!(get(&app, "/docs/nope/").await.status, 404);
    }

    #[app(behind_https)]
    async fn a_site_with_a_hostname_sends_its_basename_there(app: TestApp) {
        let (ada, _org, path) = docs_site(&app, "public").await;
        assert_eq!(get(&app, "/docs/setup").await.status, 200, "served at its basename until it has a hostname");
        app.patch(&ada, &path, json!({ "hostname": "docs.acme.example" })).await.assert_status(200);
        for (asked, there) in [
            ("/docs/setup?ref=mail", "https://docs.acme.example/setup?ref=mail"),
            ("/docs/setup/advanced", "https://docs.acme.example/setup/advanced"),
            ("/docs/", "https://docs.acme.example/"),
            ("/docs", "https://docs.acme.example/"),
            ("/docs/llms.txt", "https://docs.acme.example/llms.txt"),
        ] {
            let answer = get(&app, asked).await;
            assert_eq!((answer.status, answer.location.as_str()), (308, there), "{asked}");
        }
        // On the hostname itself, the site answers.
        let hosted = visit(&app, "/setup", &[("host", "docs.acme.example")]).await;
        assert_eq!(hosted.status, 200, "{}", hosted.body);
        assert!(hosted.body.contains("<h1>Setup</h1>"));
        // A share link's URL keeps its key on the way.
        app.patch(&ada, &path, json!({ "visibility": "share-link" })).await.assert_status(200);
        let link = app.post(&ada, &format!("{path}/share-links"), json!({ "name": "Partners" })).await;
        let url = link.body["urls"]["published"].as_str().unwrap().to_owned();
        assert!(url.starts_with("https://docs.acme.example/"), "{url}");
        let key = url.trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        let shared = get(&app, &format!("/docs/{key}/setup")).await;
        assert_eq!((shared.status, shared.location), (308, format!("https://docs.acme.example/{key}/setup")));
        assert_eq!(get(&app, "/docs/setup").await.status, 404, "without the key, nothing to send anywhere");
        // Without its hostname, the basename serves it again.
        app.patch(&ada, &path, json!({ "hostname": null, "visibility": "public" })).await.assert_status(200);
        assert_eq!(get(&app, "/docs/setup").await.status, 200);
    }
}
