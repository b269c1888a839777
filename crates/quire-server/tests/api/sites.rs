//! Sites over HTTP: settings, publication, structure (sections, section
//! groups, site spaces, sorting), share links, adaptive schema, and who may
//! do what.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

async fn create_site(app: &TestApp, user: &TestUser, org: &str, body: Value) -> Value {
    let res = app.post(user, &format!("/v1/orgs/{org}/sites"), body).await;
    res.assert_status(201);
    res.body.clone()
}

fn ids(items: &[Value]) -> Vec<String> {
    items.iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

fn titles(items: &[Value]) -> Vec<String> {
    items.iter().map(|i| i["title"].as_str().unwrap().to_owned()).collect()
}

both_backends! {
    async fn sites_are_created_listed_updated_published_and_deleted(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let guide = app.space(&ada, &org, "Guide", None).await;
        let api = app.space(&ada, &org, "API", None).await;
        let site = create_site(&app, &ada, &org, json!({ "title": "Developer Docs", "spaces": [guide, api] })).await;
        let site_id = site["id"].as_str().unwrap().to_owned();
        assert_eq!(site["siteSpaces"], 2);
        assert_eq!(site["basename"], "developer-docs");
        assert_eq!(site["visibility"], "public");
        assert_eq!(site["type"], "basic", "the seed's default type");
        assert_eq!(site["published"], false);
        assert_eq!(site["permissions"]["admin"], true);
        assert!(site.get("urls").and_then(|u| u.get("published")).is_none());
        // A second site with the same title gets a free basename.
        let other = create_site(&app, &ada, &org, json!({ "title": "Developer Docs", "visibility": "unlisted" })).await;
        assert_eq!(other["basename"], "developer-docs-2");
        let other_id = other["id"].as_str().unwrap().to_owned();
        // The flag that creates a new space for the site, shown first.
        let fresh = create_site(&app, &ada, &org, json!({ "title": "Handbook", "emptySpace": true, "spaces": [api] })).await;
        assert_eq!(fresh["siteSpaces"], 2);
        let fresh_path = format!("/v1/orgs/{org}/sites/{}", fresh["id"].as_str().unwrap());
        let fresh_spaces = app.get(&ada, &format!("{fresh_path}/site-spaces")).await;
        let created = &fresh_spaces.items()[0]["space"];
        assert_eq!(created["title"], "Handbook");
        assert_ne!(created["id"], api.as_str());
        app.get(&ada, &format!("/v1/spaces/{}", created["id"].as_str().unwrap())).await.assert_status(200);
        app.delete(&ada, &fresh_path).await.assert_status(204);
        // A refused creation leaves no space behind.
        let before = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await.items().len();
        app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Bad", "emptySpace": true, "spaces": ["nope"] }))
            .await
            .assert_status(404);
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await.items().len(), before);

        let base = format!("/v1/orgs/{org}/sites");
        let all = app.get(&ada, &base).await;
        assert_eq!(ids(all.items()), [site_id.clone(), other_id.clone()]);
        assert_eq!(ids(app.get(&ada, &format!("{base}?space={guide}")).await.items()), [site_id.as_str()]);
        assert_eq!(ids(app.get(&ada, &format!("{base}?title=docs&limit=1")).await.items()).len(), 1);

        // Every field of the update.
        let path = format!("{base}/{site_id}");
        let patched = app
            .patch(
                &ada,
                &path,
                json!({
                    "title": "Dev Docs",
                    "visibility": "share-link",
                    "basename": "dev",
                    "hostname": "docs.acme.example",
                    "proxy": "acme.example/docs",
                    "adaptiveContent": { "enabled": true },
                    "agentsContext": "excluded",
                    "defaultLevel": "read"
                }),
            )
            .await;
        patched.assert_status(200);
        let s = &patched.body;
        assert_eq!((s["title"].as_str(), s["visibility"].as_str(), s["basename"].as_str()), (Some("Dev Docs"), Some("share-link"), Some("dev")));
        assert_eq!(s["hostname"], "docs.acme.example");
        assert_eq!(s["proxy"]["origin"], "acme.example/docs");
        assert_eq!(s["adaptiveContent"]["enabled"], true);
        assert_eq!(s["agentsContext"], "excluded");
        assert_eq!(s["defaultLevel"], "read");
        let cleared = app.patch(&ada, &path, json!({ "hostname": null, "proxy": null })).await;
        assert!(cleared.body.get("hostname").is_none() && cleared.body.get("proxy").is_none());

        // Bad input is refused and changes nothing.
        for bad in [
            json!({ "visibility": "private" }),
            json!({ "basename": "Has Spaces" }),
            json!({ "basename": "v1" }),
            json!({ "hostname": "acme.example" }),
            json!({ "proxy": "https://acme.example/docs" }),
            json!({ "title": "x" }),
            json!({ "agentsContext": "sometimes" }),
            json!({ "defaultSiteSection": "nope" }),
            json!({ "unknown": 1 }),
        ] {
            app.patch(&ada, &path, bad.clone()).await.assert_status(400);
        }
        assert_eq!(app.get(&ada, &path).await.body["basename"], "dev");
        // Basenames and hostnames are unique across organizations.
        app.patch(&ada, &format!("{base}/{other_id}"), json!({ "basename": "dev" })).await.assert_status(409);
        let bea = app.user("Bea").await;
        let org2 = app.org(&bea, "Beta").await;
        let theirs = create_site(&app, &bea, &org2, json!({ "title": "Theirs" })).await;
        let theirs_path = format!("/v1/orgs/{org2}/sites/{}", theirs["id"].as_str().unwrap());
        app.patch(&ada, &path, json!({ "hostname": "docs.acme.example" })).await.assert_status(200);
        app.patch(&bea, &theirs_path, json!({ "hostname": "docs.acme.example" })).await.assert_status(409);
        app.patch(&bea, &theirs_path, json!({ "basename": "dev" })).await.assert_status(409);

        // Publication.
        let published = app.post(&ada, &format!("{path}/publish"), json!(null)).await;
        published.assert_status(200);
        assert_eq!(published.body["published"], true);
        assert!(published.body["urls"]["published"].as_str().unwrap().starts_with("https://docs.acme.example"));
        assert_eq!(ids(app.get(&ada, &format!("{base}?published=true")).await.items()), [site_id.as_str()]);
        let content = app.get(&ada, &format!("{path}/published")).await;
        content.assert_status(200);
        assert_eq!(content.body["object"], "published-content-site");
        assert_eq!(content.body["structure"]["type"], "siteSpaces");
        assert_eq!(content.body["structure"]["structure"].as_array().unwrap().len(), 2);
        assert_eq!(content.body["customizations"]["site"]["themes"]["default"], "system");
        let unpublished = app.post(&ada, &format!("{path}/unpublish"), json!(null)).await;
        assert_eq!(unpublished.body["published"], false);
        app.get(&ada, &format!("{path}/published")).await.assert_status(404);

        // Delete: 204, also when already gone; the site and its structure are gone.
        app.delete(&ada, &path).await.assert_status(204);
        app.delete(&ada, &path).await.assert_status(204);
        app.get(&ada, &path).await.assert_status(404);
        app.get(&ada, &format!("{path}/site-spaces")).await.assert_status(404);
    }

    async fn sections_groups_and_site_spaces_keep_order_and_defaults(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let guide = app.space(&ada, &org, "Guide", None).await;
        let api = app.space(&ada, &org, "API", None).await;
        let sdk = app.space(&ada, &org, "SDK", None).await;
        let cli = app.space(&ada, &org, "CLI", None).await;
        let site = create_site(&app, &ada, &org, json!({ "title": "Docs", "spaces": [guide] })).await;
        let base = format!("/v1/orgs/{org}/sites/{}", site["id"].as_str().unwrap());

        // Root-level site spaces: the first is the default.
        let added = app.post(&ada, &format!("{base}/site-spaces"), json!({ "spaceId": api })).await;
        added.assert_status(201);
        assert_eq!(added.body["path"], "api");
        assert_eq!(added.body["default"], false);
        let root = app.get(&ada, &format!("{base}/site-spaces")).await;
        assert_eq!(titles(root.items()), ["Guide", "API"]);
        assert_eq!(root.items()[0]["default"], true);
        let structure = app.get(&ada, &format!("{base}/structure")).await;
        assert_eq!(structure.body["type"], "siteSpaces");
        // The same space twice gets a second, free path.
        let again = app.post(&ada, &format!("{base}/site-spaces"), json!({ "spaceId": api })).await;
        assert_eq!(again.body["path"], "api-2");
        app.delete(&ada, &format!("{base}/site-spaces/{}", again.id())).await.assert_status(204);

        // The first section lifts the root-level spaces into a section of
        // their own, which stays the default.
        let sdk_section = app
            .post(&ada, &format!("{base}/sections"), json!({ "spaceId": sdk, "title": "SDKs", "icon": "code" }))
            .await;
        sdk_section.assert_status(201);
        assert_eq!(sdk_section.body["default"], false);
        assert_eq!(sdk_section.body["siteSpaces"][0]["default"], true);
        let sections = app.get(&ada, &format!("{base}/sections")).await;
        assert_eq!(titles(sections.items()), ["Docs", "SDKs"]);
        assert_eq!(sections.items()[0]["default"], true);
        assert_eq!(titles(sections.items()[0]["siteSpaces"].as_array().unwrap()), ["Guide", "API"]);
        let docs_id = sections.items()[0]["id"].as_str().unwrap().to_owned();
        let sdk_id = sdk_section.id();
        // Site spaces added without a section go to the default section.
        let cli_space = app.post(&ada, &format!("{base}/site-spaces"), json!({ "spaceId": cli })).await;
        assert_eq!(cli_space.body["section"], docs_id.as_str());

        // Moves keep a total order.
        let moved = app
            .post(
                &ada,
                &format!("{base}/sections/{sdk_id}/move"),
                json!({ "position": { "before": { "type": "site-section", "siteSection": docs_id } } }),
            )
            .await;
        moved.assert_status(200);
        assert_eq!(titles(app.get(&ada, &format!("{base}/sections")).await.items()), ["SDKs", "Docs"]);
        app.post(
            &ada,
            &format!("{base}/sections/{sdk_id}/move"),
            json!({ "position": { "before": { "type": "site-section", "siteSection": "nope" } } }),
        )
        .await
        .assert_status(400);
        let cli_id = cli_space.id();
        let guide_site_space = sections.items()[0]["siteSpaces"][0]["id"].as_str().unwrap().to_owned();
        app.post(
            &ada,
            &format!("{base}/site-spaces/{cli_id}/move"),
            json!({ "position": { "before": { "type": "site-space", "siteSpace": guide_site_space } } }),
        )
        .await
        .assert_status(200);
        // Without a position, an item moves to the end of its level.
        let cli_ends = app.post(&ada, &format!("{base}/site-spaces/{cli_id}/move"), json!({})).await;
        cli_ends.assert_status(200);
        let docs = app.get(&ada, &format!("{base}/sections")).await;
        assert_eq!(titles(docs.items()[1]["siteSpaces"].as_array().unwrap()), ["Guide", "API", "CLI"]);
        app.post(&ada, &format!("{base}/sections/{sdk_id}/move"), json!({})).await.assert_status(200);
        assert_eq!(titles(app.get(&ada, &format!("{base}/sections")).await.items()), ["Docs", "SDKs"]);
        app.post(
            &ada,
            &format!("{base}/sections/{sdk_id}/move"),
            json!({ "position": { "before": { "type": "site-section", "siteSection": docs_id } } }),
        )
        .await
        .assert_status(200);
        app.post(
            &ada,
            &format!("{base}/site-spaces/{cli_id}/move"),
            json!({ "position": { "before": { "type": "site-space", "siteSpace": guide_site_space } } }),
        )
        .await
        .assert_status(200);

        // Section settings; a repeated path is a conflict; defaults move.
        let patched = app
            .patch(
                &ada,
                &format!("{base}/sections/{docs_id}"),
                json!({ "path": "guides", "description": "Everything", "condition": "visitor.claims.plan == \"pro\"", "defaultSiteSpace": cli_id }),
            )
            .await;
        patched.assert_status(200);
        assert_eq!(patched.body["path"], "guides");
        assert_eq!(titles(patched.body["siteSpaces"].as_array().unwrap()), ["CLI", "Guide", "API"]);
        assert_eq!(patched.body["siteSpaces"][0]["default"], true);
        assert_eq!(patched.body["siteSpaces"][1]["default"], false);
        app.patch(&ada, &format!("{base}/sections/{sdk_id}"), json!({ "path": "guides" })).await.assert_status(409);
        app.patch(&ada, &format!("{base}/sections/{sdk_id}"), json!({ "condition": "visitor.claims.plan ==" }))
            .await
            .assert_status(400);
        app.patch(&ada, &format!("{base}/sections/{docs_id}"), json!({ "condition": null })).await.assert_status(200);
        let site_patch = app.patch(&ada, &base, json!({ "defaultSiteSection": sdk_id })).await;
        site_patch.assert_status(200);
        let sections = app.get(&ada, &format!("{base}/sections")).await;
        assert_eq!(sections.items()[0]["default"], true);
        assert_eq!(sections.items()[1]["default"], false);

        // Groups: created with sections, which leave the top level.
        let group = app
            .post(&ada, &format!("{base}/section-groups"), json!({ "title": "Reference", "sections": [sdk_id] }))
            .await;
        group.assert_status(201);
        assert_eq!(titles(group.body["sections"].as_array().unwrap()), ["SDKs"]);
        let group_id = group.id();
        let structure = app.get(&ada, &format!("{base}/structure")).await;
        assert_eq!(structure.body["type"], "sections");
        assert_eq!(titles(structure.body["structure"].as_array().unwrap()), ["Docs", "Reference"]);
        let added = app
            .post(&ada, &format!("{base}/section-groups/{group_id}/sections"), json!({ "sectionId": docs_id }))
            .await;
        added.assert_status(201);
        assert_eq!(titles(added.body["sections"].as_array().unwrap()), ["SDKs", "Docs"]);
        app.patch(&ada, &format!("{base}/section-groups/{group_id}"), json!({ "title": "All docs", "icon": "book" }))
            .await
            .assert_status(200);
        app.delete(&ada, &format!("{base}/section-groups/{group_id}/sections/{sdk_id}")).await.assert_status(204);
        let structure = app.get(&ada, &format!("{base}/structure")).await;
        assert_eq!(titles(structure.body["structure"].as_array().unwrap()), ["All docs", "SDKs"]);
        // sortSiteStructure: the section goes back into the group, first.
        app.request(reqwest::Method::PATCH, &format!("{base}/structure/sort"))
            .as_user(&ada)
            .json(json!({
                "item": { "type": "site-section", "id": sdk_id },
                "position": { "before": { "type": "site-section", "id": docs_id } }
            }))
            .send()
            .await
            .assert_status(204);
        let groups = app.get(&ada, &format!("{base}/section-groups")).await;
        assert_eq!(titles(groups.items()[0]["sections"].as_array().unwrap()), ["SDKs", "Docs"]);
        // Deleting the group puts its sections at its place.
        app.delete(&ada, &format!("{base}/section-groups/{group_id}")).await.assert_status(204);
        app.delete(&ada, &format!("{base}/section-groups/{group_id}")).await.assert_status(204);
        assert_eq!(titles(app.get(&ada, &format!("{base}/sections")).await.items()), ["SDKs", "Docs"]);

        // Deleting the default section hands the default on; deleting a
        // space removes it from the site.
        app.delete(&ada, &format!("{base}/sections/{sdk_id}")).await.assert_status(204);
        let sections = app.get(&ada, &format!("{base}/sections")).await;
        assert_eq!(titles(sections.items()), ["Docs"]);
        assert_eq!(sections.items()[0]["default"], true);
        app.delete(&ada, &format!("/v1/spaces/{cli}")).await.assert_status(204);
        let spaces = app.get(&ada, &format!("{base}/site-spaces")).await;
        assert_eq!(titles(spaces.items()), ["Guide", "API"]);
        let defaults = app.get(&ada, &format!("{base}/site-spaces?default=true")).await;
        assert_eq!(defaults.items().len(), 1);
        assert_eq!(app.get(&ada, &base).await.body["siteSpaces"], 2);

        // `spaceId: null` creates the space the section shows, in the same
        // write; no `spaceId` at all is refused and creates nothing.
        let fresh = app.post(&ada, &format!("{base}/sections"), json!({ "spaceId": null, "title": "Changelog" })).await;
        fresh.assert_status(201);
        let fresh_space = fresh.body["siteSpaces"][0]["space"]["id"].as_str().unwrap().to_owned();
        assert_eq!(fresh.body["siteSpaces"][0]["space"]["title"], "Changelog");
        let listed = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await;
        assert!(listed.items().iter().any(|s| s["id"] == fresh_space.as_str()));
        let before = listed.items().len();
        app.post(&ada, &format!("{base}/sections"), json!({ "title": "Nothing" })).await.assert_status(400);
        app.post(&ada, &format!("{base}/sections"), json!({ "spaceId": null, "title": "x" })).await.assert_status(400);
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await.items().len(), before);
        let extra = app.post(&ada, &format!("{base}/site-spaces"), json!({ "spaceId": null, "title": "Release notes" })).await;
        extra.assert_status(201);
        assert_eq!(extra.body["space"]["title"], "Release notes");
    }

    async fn share_links_and_the_adaptive_schema(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let site = create_site(&app, &ada, &org, json!({ "title": "Docs", "visibility": "share-link" })).await;
        let base = format!("/v1/orgs/{org}/sites/{}", site["id"].as_str().unwrap());
        app.post(&ada, &format!("{base}/publish"), json!(null)).await.assert_status(200);

        let link = app.post(&ada, &format!("{base}/share-links"), json!({ "name": "Partners" })).await;
        link.assert_status(201);
        assert_eq!(link.body["active"], true);
        let url = link.body["urls"]["published"].as_str().unwrap().to_owned();
        assert!(url.contains("/docs/"), "{url}");
        let link_id = link.id();
        // Someone who is not a member reads the shared site with its key.
        let key = url.trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        let eve = app.user("Eve").await;
        app.get(&eve, &format!("{base}/published")).await.assert_status(404);
        let shared = app.get(&eve, &format!("{base}/published?shareKey={key}")).await;
        shared.assert_status(200);
        assert_eq!(shared.body["site"]["permissions"]["admin"], false);
        app.get(&eve, &format!("{base}/site-spaces?shareKey={key}")).await.assert_status(200);
        app.get(&eve, &format!("{base}/sections?shareKey={key}")).await.assert_status(200);
        app.get(&eve, &format!("{base}/structure?shareKey={key}")).await.assert_status(200);
        app.get(&eve, &format!("{base}/published?shareKey=wrong")).await.assert_status(404);
        app.get(&eve, &format!("{base}?shareKey={key}")).await.assert_status(404);
        app.post(&ada, &format!("{base}/share-links"), json!({ "name": "x".repeat(51) })).await.assert_status(400);
        let revoked = app.patch(&ada, &format!("{base}/share-links/{link_id}"), json!({ "active": false })).await;
        revoked.assert_status(200);
        assert_eq!(revoked.body["active"], false);
        assert!(revoked.body["urls"].get("published").is_none());
        app.patch(&ada, &format!("{base}/share-links/{link_id}"), json!({})).await.assert_status(400);
        app.get(&eve, &format!("{base}/published?shareKey={key}")).await.assert_status(404);
        assert_eq!(app.get(&ada, &format!("{base}/share-links")).await.items().len(), 1);
        app.delete(&ada, &format!("{base}/share-links/{link_id}")).await.assert_status(204);
        app.delete(&ada, &format!("{base}/share-links/{link_id}")).await.assert_status(204);
        app.patch(&ada, &format!("{base}/share-links/{link_id}"), json!({ "active": true })).await.assert_status(404);

        // The adaptive schema: empty at first, then boolean claims.
        let empty = app.get(&ada, &format!("{base}/adaptive-schema")).await;
        empty.assert_status(200);
        assert_eq!(empty.body["jsonSchema"]["type"], "object");
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "beta": { "type": "boolean", "description": "Beta testers" },
                "unsigned": {
                    "type": "object",
                    "description": "Unsigned claims of the site visitor.",
                    "properties": { "darkLaunch": { "type": "boolean", "description": "Dark launch" } },
                    "additionalProperties": false
                }
            },
            "additionalProperties": false
        });
        let put = app.put(&ada, &format!("{base}/adaptive-schema"), json!({ "jsonSchema": schema })).await;
        put.assert_status(200);
        assert_eq!(put.body["jsonSchema"], schema);
        let conditions = app.get(&ada, &format!("{base}/adaptive-schema/template-conditions")).await;
        conditions.assert_status(200);
        let list: Vec<&str> = conditions.body["items"].as_array().unwrap().iter().map(|c| c["condition"].as_str().unwrap()).collect();
        assert_eq!(list, ["visitor.claims.beta == true", "visitor.claims.unsigned.darkLaunch == true"]);
        for bad in [
            json!({ "jsonSchema": { "type": "object", "properties": { "beta": { "type": 12 } } } }),
            json!({ "jsonSchema": { "type": "array" } }),
            json!({ "jsonSchema": { "type": "object", "properties": { "unsigned": { "type": "object", "properties": { "x": { "type": "string" } } } } } }),
        ] {
            app.put(&ada, &format!("{base}/adaptive-schema"), bad).await.assert_status(400);
        }
        assert_eq!(app.get(&ada, &format!("{base}/adaptive-schema")).await.body["jsonSchema"], schema);
        // Every claim the official schema allows: strings with or without
        // values, numbers, arrays, objects, and unsigned claims of any kind.
        let rich = json!({
            "type": "object",
            "properties": {
                "plan": { "type": "string", "enum": ["free", "pro"], "description": "The visitor's plan" },
                "name": { "type": "string", "description": "Name" },
                "seats": { "type": "number", "description": "Seats" },
                "roles": { "type": "array", "description": "Roles", "items": { "type": "string", "description": "A role" } },
                "org": { "type": "object", "description": "Organization", "properties": { "admin": { "type": "boolean", "description": "Admin" } }, "additionalProperties": false },
                "unsigned": {
                    "type": "object",
                    "description": "Unsigned claims of the site visitor.",
                    "properties": { "region": { "type": "string", "enum": ["eu", "us"], "description": "Region" } },
                    "additionalProperties": false
                }
            },
            "additionalProperties": false
        });
        let put = app.put(&ada, &format!("{base}/adaptive-schema"), json!({ "jsonSchema": rich })).await;
        put.assert_status(200);
        assert_eq!(put.body["jsonSchema"]["properties"]["plan"]["enum"], json!(["free", "pro"]));
    }

    async fn members_see_sites_and_roles_decide_changes(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let guide = app.space(&ada, &org, "Guide", None).await;
        let site = create_site(&app, &ada, &org, json!({ "title": "Docs", "spaces": [guide] })).await;
        let base = format!("/v1/orgs/{org}/sites/{}", site["id"].as_str().unwrap());
        let reader = app.user("Rea").await;
        let creator = app.user("Cre").await;
        let guest = app.user("Gus").await;
        let stranger = app.user("Eve").await;
        app.add_member(&ada, &org, &reader, json!("read")).await;
        app.add_member(&ada, &org, &creator, json!("create")).await;
        app.add_member(&ada, &org, &guest, json!(null)).await;

        let seen = app.get(&reader, &base).await;
        seen.assert_status(200);
        assert_eq!(seen.body["permissions"]["admin"], false);
        assert_eq!(seen.body["permissions"]["view"], true);
        app.patch(&reader, &base, json!({ "title": "Mine" })).await.assert_status(403);
        app.post(&reader, &format!("{base}/sections"), json!({ "spaceId": guide })).await.assert_status(403);
        app.post(&reader, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Mine" })).await.assert_status(403);
        // Creators change the structure, not the settings.
        app.post(&creator, &format!("{base}/sections"), json!({ "spaceId": guide, "title": "Again" }))
            .await
            .assert_status(201);
        app.post(&creator, &format!("{base}/publish"), json!(null)).await.assert_status(403);
        // Guests see the organization but not its sites: refused, also when
        // deleting (never a 204 that deleted nothing). Strangers see
        // nothing at all.
        app.get(&guest, &base).await.assert_status(403);
        app.delete(&guest, &base).await.assert_status(403);
        app.delete(&reader, &base).await.assert_status(403);
        app.get(&stranger, &base).await.assert_status(404);
        app.get(&stranger, &format!("/v1/orgs/{org}/sites")).await.assert_status(404);
        app.delete(&stranger, &base).await.assert_status(204);
        app.get(&ada, &base).await.assert_status(200);
        // A space of another organization cannot be added.
        let bea = app.user("Bea").await;
        let org2 = app.org(&bea, "Beta").await;
        let foreign = app.space(&bea, &org2, "Foreign", None).await;
        app.post(&ada, &format!("{base}/site-spaces"), json!({ "spaceId": foreign })).await.assert_status(404);
    }
}
