//! The content engine over HTTP: batches of changes, reading pages, files
//! and revisions, merges and updates, links and backlinks, templates.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00,
    0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// A space with a merged tree: Guide (with Install under it) and FAQ.
async fn seeded(app: &TestApp) -> (TestUser, String, Value) {
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
    let space = app.space(&ada, &org, "Docs", None).await;
    let cr = app.change_request(&ada, &space, "Seed").await;
    let res = app
        .post(
            &ada,
            &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
            json!({ "changes": [
                { "operation": "insert_page", "ref": "guide", "document": { "markdown": "# Guide\n\nline one\nline two\nline three\n" } },
                { "operation": "insert_page", "ref": "install", "into": "guide", "document": { "markdown": "# Install\n\nRun it.\n" } },
                { "operation": "insert_page", "ref": "faq", "document": { "markdown": "# FAQ\n\nSee the [guide](./guide.md).\n" } }
            ] }),
        )
        .await;
    res.assert_status(200);
    let mut ids = json!({});
    for change in res.body["changes"].as_array().unwrap() {
        ids[change["ref"].as_str().unwrap()] = change["page"]["id"].clone();
    }
    app.post(
        &ada,
        &format!("/v1/spaces/{space}/change-requests/{cr}/merge"),
        json!(null),
    )
    .await
    .assert_status(200);
    (ada, space, ids)
}

fn id(ids: &Value, name: &str) -> String {
    ids[name].as_str().unwrap().to_owned()
}

both_backends! {
    async fn write_a_nested_tree_with_links_and_an_image_then_read_it(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let cr = app.change_request(&ada, &space, "First pages").await;
        let image = base64::engine::general_purpose::STANDARD.encode(PNG);
        let res = app
            .post(
                &ada,
                &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
                json!({ "changes": [
                    { "operation": "insert_files", "files": [{ "name": "logo.png", "ref": "logo", "contentType": "image/png", "base64": image }] },
                    { "operation": "insert_page", "ref": "start", "title": "Getting started", "document": { "markdown": "Welcome! ![Logo](./logo)\n\nNext: [install](./install.md).\n" } },
                    { "operation": "insert_page", "ref": "install", "into": "start", "document": { "markdown": "---\ndescription: How to install\n---\n\n# Install it\n\nBack to [start](./start.md).\n" } }
                ] }),
            )
            .await;
        res.assert_status(200);
        assert_eq!(res.body["changes"].as_array().unwrap().len(), 2);
        let start = res.body["changes"][0]["page"]["id"].as_str().unwrap().to_owned();
        let install = res.body["changes"][1]["page"]["id"].as_str().unwrap().to_owned();

        // Main is untouched until the merge.
        assert!(app.outline(&ada, &format!("/v1/spaces/{space}/content/pages")).await.is_empty());
        let cr_pages = format!("/v1/spaces/{space}/change-requests/{cr}/content/pages");
        assert_eq!(app.outline(&ada, &cr_pages).await, vec!["Getting started", "  Install it"]);

        let merged = app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await;
        merged.assert_status(200);
        let revision = merged.body["revision"].as_str().unwrap().to_owned();

        // The page, as markdown and as the JSON document.
        let md = app.markdown(&ada, &space, &start).await;
        assert!(md.contains("![Logo](/files/"), "batch refs become stable file links: {md}");
        assert!(md.contains(&format!("[install](/pages/{install})")), "{md}");
        let doc = app.get(&ada, &format!("/v1/spaces/{space}/content/page/{start}")).await;
        doc.assert_status(200);
        assert_eq!(doc.body["document"]["object"], "document");
        assert_eq!(doc.body["title"], "Getting started");
        assert_eq!(doc.body["pages"][0]["id"], install.as_str());
        let child = app.get(&ada, &format!("/v1/spaces/{space}/content/page/{install}?format=markdown")).await;
        assert_eq!(child.body["description"], "How to install");
        assert_eq!(child.body["title"], "Install it");
        assert_eq!(child.body["path"], "getting-started/install-it");
        let by_path = app.get(&ada, &format!("/v1/spaces/{space}/content/path/getting-started%2Finstall-it")).await;
        by_path.assert_status(200);
        assert_eq!(by_path.body["id"], install.as_str());
        app.get(&ada, &format!("/v1/spaces/{space}/content/path/nope")).await.assert_status(404);

        // The revision, by id and as the space's content.
        let current = app.get(&ada, &format!("/v1/spaces/{space}/content")).await;
        current.assert_status(200);
        assert_eq!(current.body["id"], revision.as_str());
        assert_eq!(current.body["type"], "merge");
        assert_eq!(current.body["parents"].as_array().unwrap().len(), 2);
        let by_id = app.get(&ada, &format!("/v1/spaces/{space}/revisions/{revision}/pages")).await;
        assert_eq!(by_id.body["pages"][0]["id"], start.as_str());

        // The file: listed, readable, downloadable with the same bytes.
        let files = app.get(&ada, &format!("/v1/spaces/{space}/content/files")).await;
        files.assert_status(200);
        let file = &files.items()[0];
        assert_eq!(file["name"], "logo.png");
        assert_eq!(file["size"], PNG.len());
        assert_eq!(file["dimensions"], json!({ "width": 1, "height": 1 }));
        let file_id = file["id"].as_str().unwrap().to_owned();
        let url = file["downloadURL"].as_str().unwrap().to_owned();
        let client = reqwest::Client::new();
        let bytes = client.get(&url).bearer_auth(&ada.token).send().await.unwrap();
        assert_eq!(bytes.status(), 200);
        assert_eq!(bytes.headers()["content-type"], "image/png");
        assert_eq!(bytes.bytes().await.unwrap().as_ref(), PNG);
        assert_eq!(client.get(&url).send().await.unwrap().status(), 401);
        let eve = app.user("Eve").await;
        assert_eq!(client.get(&url).bearer_auth(&eve.token).send().await.unwrap().status(), 404);

        // Links and backlinks.
        let links = app.get(&ada, &format!("/v1/spaces/{space}/links")).await;
        links.assert_status(200);
        assert_eq!(links.body["stats"]["broken"]["total"], 0);
        assert!(links.items().iter().all(|l| l["status"] == "ok"));
        assert!(links.items().iter().any(|l| l["targetReference"] == json!({ "kind": "page", "page": install, "space": space })));
        let backlinks = app.get(&ada, &format!("/v1/spaces/{space}/content/files/{file_id}/backlinks")).await;
        backlinks.assert_status(200);
        assert_eq!(backlinks.items().len(), 1);
        assert_eq!(backlinks.items()[0]["page"], start.as_str());
        let page_links = app.get(&ada, &format!("/v1/spaces/{space}/content/page/{install}/links")).await;
        assert_eq!(page_links.items().len(), 1);
        assert_eq!(page_links.items()[0]["targetReference"]["page"], start.as_str());
    }

    async fn every_bad_change_rejects_the_whole_batch(app: TestApp) {
        let (ada, space, ids) = seeded(&app).await;
        let guide = id(&ids, "guide");
        let install = id(&ids, "install");
        let cr = app.change_request(&ada, &space, "Bad").await;
        let head = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await.body["revision"].clone();
        let ok = json!({ "operation": "insert_page", "document": { "markdown": "# Fine\n" } });
        let bad_changes = vec![
            json!({ "operation": "update_page", "page": "missing", "title": "x" }),
            json!({ "operation": "delete_page", "page": "missing" }),
            json!({ "operation": "insert_page", "into": "missing", "document": { "markdown": "x" } }),
            json!({ "operation": "insert_page", "at": 99, "document": { "markdown": "x" } }),
            json!({ "operation": "update_page", "page": guide, "into": install }),
            json!({ "operation": "update_page", "page": guide, "slug": "faq" }),
            json!({ "operation": "update_page", "page": guide, "slug": "Not a slug!" }),
            json!({ "operation": "update_page", "page": guide, "title": "" }),
            json!({ "operation": "insert_files", "files": [{ "name": "a.txt", "contentType": "text/plain", "base64": "%%%" }] }),
            json!({ "operation": "insert_files", "files": [{ "name": "a.txt", "base64": "aGk=" }] }),
            json!({ "operation": "insert_files", "files": [] }),
            json!({ "operation": "insert_page", "document": { "document": { "object": "nonsense" } } }),
            json!({ "operation": "rename_page", "page": guide }),
            json!({ "operation": "insert_page" }),
        ];
        for bad in bad_changes {
            let res = app.write(&ada, &space, &cr, json!([ok.clone(), bad.clone()])).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{bad} needs an explanation");
        }
        let dup = app
            .write(&ada, &space, &cr, json!([
                { "operation": "insert_page", "ref": "a", "document": {} },
                { "operation": "insert_page", "ref": "a", "document": {} }
            ]))
            .await;
        dup.assert_status(400);
        app.write(&ada, &space, &cr, json!([])).await.assert_status(400);
        app.write(&ada, &space, &cr, Value::Array(vec![ok.clone(); 51])).await.assert_status(400);
        let after = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await;
        assert_eq!(after.body["revision"], head, "no refused batch wrote anything");
        app.write(&ada, &space, &cr, Value::Array(vec![ok; 50])).await.assert_status(200);
    }

    async fn update_move_and_delete_pages(app: TestApp) {
        let (ada, space, ids) = seeded(&app).await;
        let (guide, install, faq) = (id(&ids, "guide"), id(&ids, "install"), id(&ids, "faq"));
        let cr = app.change_request(&ada, &space, "Reshape").await;
        app.write(&ada, &space, &cr, json!([
            { "operation": "update_page", "page": install, "into": null, "at": 0 },
            { "operation": "update_page", "page": faq, "title": "Questions", "document": { "markdown": "# Questions\n\nAsk.\n" } },
            { "operation": "delete_page", "page": guide }
        ]))
        .await
        .assert_status(200);
        let pages = format!("/v1/spaces/{space}/change-requests/{cr}/content/pages");
        assert_eq!(app.outline(&ada, &pages).await, vec!["Install", "Questions"]);
        let faq_page = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content/page/{faq}?format=markdown")).await;
        assert_eq!(faq_page.body["markdown"], "# Questions\n\nAsk.\n");
        assert_eq!(faq_page.body["slug"], "questions");
        // The FAQ linked to the deleted guide: that link is now broken.
        let links = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content/page/{faq}/links")).await;
        assert!(links.items().is_empty(), "the new FAQ text has no links");
        let main_links = app.get(&ada, &format!("/v1/spaces/{space}/links?status=ok")).await;
        assert_eq!(main_links.items().len(), 1);
    }

    async fn deleting_a_linked_page_breaks_its_links(app: TestApp) {
        let (ada, space, ids) = seeded(&app).await;
        let cr = app.change_request(&ada, &space, "Remove guide").await;
        app.write(&ada, &space, &cr, json!([{ "operation": "delete_page", "page": id(&ids, "guide") }])).await.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null)).await.assert_status(200);
        let broken = app.get(&ada, &format!("/v1/spaces/{space}/links?status=broken")).await;
        broken.assert_status(200);
        assert_eq!(broken.items().len(), 1);
        assert_eq!(broken.body["stats"]["broken"]["total"], 1);
        assert_eq!(broken.items()[0]["locationReferences"][0]["page"], id(&ids, "faq").as_str());
    }

    async fn merges_combine_disjoint_and_line_level_edits(app: TestApp) {
        let (ada, space, ids) = seeded(&app).await;
        let (guide, install, faq) = (id(&ids, "guide"), id(&ids, "install"), id(&ids, "faq"));
        let one = app.change_request(&ada, &space, "One").await;
        let two = app.change_request(&ada, &space, "Two").await;
        app.write(&ada, &space, &one, json!([
            { "operation": "update_page", "page": guide, "document": { "markdown": "# Guide\n\nLINE ONE\nline two\nline three\n" } },
            { "operation": "update_page", "page": install, "title": "Installation" }
        ]))
        .await
        .assert_status(200);
        app.write(&ada, &space, &two, json!([
            { "operation": "update_page", "page": guide, "document": { "markdown": "# Guide\n\nline one\nline two\nLINE THREE\n" } },
            { "operation": "update_page", "page": faq, "into": guide },
            { "operation": "insert_page", "into": install, "document": { "markdown": "# Linux\n" } }
        ]))
        .await
        .assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{one}/merge"), json!(null)).await.assert_status(200);

        let two_view = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{two}")).await;
        assert_eq!(two_view.body["outdated"], true);
        let updated = app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{two}/update"), json!(null)).await;
        updated.assert_status(200);
        assert_eq!(updated.body["result"], "update");
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{two}")).await.body["outdated"], false);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{two}/merge"), json!(null)).await.assert_status(200);

        assert_eq!(app.markdown(&ada, &space, &guide).await, "# Guide\n\nLINE ONE\nline two\nLINE THREE\n");
        assert_eq!(
            app.outline(&ada, &format!("/v1/spaces/{space}/content/pages")).await,
            vec!["Guide", "  Installation", "    Linux", "  FAQ"]
        );
    }

    async fn real_conflicts_are_refused_with_409_naming_the_pages(app: TestApp) {
        let (ada, space, ids) = seeded(&app).await;
        let (guide, install) = (id(&ids, "guide"), id(&ids, "install"));
        let main_before = app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"].clone();

        // Same lines on both sides.
        let a = app.change_request(&ada, &space, "A").await;
        let b = app.change_request(&ada, &space, "B").await;
        app.write(&ada, &space, &a, json!([{ "operation": "update_page", "page": guide, "document": { "markdown": "# Guide\n\nours\n" } }])).await.assert_status(200);
        app.write(&ada, &space, &b, json!([{ "operation": "update_page", "page": guide, "document": { "markdown": "# Guide\n\ntheirs\n" } }])).await.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{a}/merge"), json!(null)).await.assert_status(200);
        let main_after_a = app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"].clone();
        assert_ne!(main_after_a, main_before);
        let refused = app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{b}/merge"), json!(null)).await;
        refused.assert_status(409);
        assert!(refused.message().contains(&guide) && refused.message().contains("Guide"), "{}", refused.message());
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"], main_after_a, "nothing changed");
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{b}/update"), json!(null)).await.assert_status(409);
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{b}")).await.body["status"], "open");

        // Delete on main against an edit in the change request.
        let c = app.change_request(&ada, &space, "C").await;
        let d = app.change_request(&ada, &space, "D").await;
        app.write(&ada, &space, &c, json!([{ "operation": "delete_page", "page": install }])).await.assert_status(200);
        app.write(&ada, &space, &d, json!([{ "operation": "update_page", "page": install, "title": "Setup" }])).await.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{c}/merge"), json!(null)).await.assert_status(200);
        let refused = app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{d}/merge"), json!(null)).await;
        refused.assert_status(409);
        assert!(refused.message().contains(&install));

        // Insert under a page deleted on main.
        let e = app.change_request(&ada, &space, "E").await;
        let f = app.change_request(&ada, &space, "F").await;
        app.write(&ada, &space, &e, json!([{ "operation": "delete_page", "page": guide }])).await.assert_status(200);
        app.write(&ada, &space, &f, json!([{ "operation": "insert_page", "into": guide, "document": { "markdown": "# Orphan\n" } }])).await.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{e}/merge"), json!(null)).await.assert_status(200);
        let refused = app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{f}/merge"), json!(null)).await;
        refused.assert_status(409);
        assert!(refused.message().contains("Orphan"), "{}", refused.message());
    }

    async fn locked_spaces_refuse_content_changes(app: TestApp) {
        let (ada, space, _) = seeded(&app).await;
        let cr = app.change_request(&ada, &space, "Locked").await;
        app.patch(&ada, &format!("/v1/spaces/{space}"), json!({ "editMode": "locked" })).await.assert_status(200);
        let res = app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": "# No\n" } }])).await;
        res.assert_status(409);
        assert!(res.message().contains("locked"));
        app.patch(&ada, &format!("/v1/spaces/{space}"), json!({ "editMode": "live" })).await.assert_status(200);
        app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": "# Yes\n" } }])).await.assert_status(200);
    }

    async fn templates_and_duplicates_carry_content(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "API", None).await;
        app.post(&ada, &format!("/v1/spaces/{space}/content/template"), json!({ "id": "nope" })).await.assert_status(400);
        let res = app.post(&ada, &format!("/v1/spaces/{space}/content/template"), json!({ "id": "api-reference" })).await;
        res.assert_status(201);
        let outline = app.outline(&ada, &format!("/v1/spaces/{space}/content/pages")).await;
        assert_eq!(outline, vec!["API overview", "Authentication", "Reference", "  Errors", "  Pagination"]);
        let links = app.get(&ada, &format!("/v1/spaces/{space}/links?status=broken")).await;
        assert!(links.items().is_empty(), "template pages link to each other correctly");

        let copy = app.post(&ada, &format!("/v1/spaces/{space}/duplicate"), json!(null)).await;
        copy.assert_status(201);
        let copy_id = copy.id();
        assert_eq!(app.outline(&ada, &format!("/v1/spaces/{copy_id}/content/pages")).await, outline);

        let guide = app.space(&ada, &org, "Guide", None).await;
        app.post(&ada, &format!("/v1/spaces/{guide}/content/template"), json!({ "id": "product-guide" })).await.assert_status(201);
        assert_eq!(app.outline(&ada, &format!("/v1/spaces/{guide}/content/pages")).await.len(), 5);
    }
}
