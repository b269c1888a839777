//! Published sites as their readers get them: HTML pages with navigation,
//! markdown, files, the machine-readable files, search, and audiences.

use base64::Engine as _;
use serde_json::json;

use crate::support::{TestApp, TestUser, both_backends};

/// A 1x1 PNG (the image of the content tests).
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg==";

/// What a published URL answers, redirects not followed.
pub(crate) struct Page {
    pub(crate) status: u16,
    pub(crate) content_type: String,
    pub(crate) headers: reqwest::header::HeaderMap,
    pub(crate) body: String,
    pub(crate) bytes: Vec<u8>,
}

pub(crate) async fn fetch(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Page {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut req = client.get(format!("{}{path}", app.base_url));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let content_type = headers
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let bytes = res.bytes().await.unwrap().to_vec();
    Page {
        status,
        content_type,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
        bytes,
    }
}

async fn get(app: &TestApp, path: &str) -> Page {
    fetch(app, path, &[]).await
}

/// An organization with a site "Docs" showing a Guide (three pages and an
/// image) and an API space; returns the owner, the org and the site's API path.
pub(crate) async fn docs_site(app: &TestApp, visibility: &str) -> (TestUser, String, String) {
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
    let guide = app.space(&ada, &org, "Guide", None).await;
    let api = app.space(&ada, &org, "API", None).await;
    app.publish(
        &ada,
        &guide,
        json!([
            { "operation": "insert_files", "files": [{ "name": "logo.png", "ref": "logo", "contentType": "image/png", "base64": PNG }] },
            { "operation": "insert_page", "ref": "intro", "title": "Introduction", "document": { "markdown": "Welcome. ![Logo](./logo)\n\nNext, [set it up](./setup.md).\n\n## Install the configuration\n\nRun it:\n\n```bash\nquire serve # start\n```\n" } },
            { "operation": "insert_page", "ref": "setup", "title": "Setup", "document": { "markdown": "---\ndescription: Getting ready\n---\n\n# Setup\n\nConfiguration lives in one file.\n\n{% hint style=\"info\" %}\nA hint.\n{% endhint %}\n\n<details>\n\n<summary>Why <em>one</em> file?</summary>\n\nIt is simpler.\n\n</details>\n" } },
            { "operation": "insert_page", "ref": "deep", "into": "setup", "title": "Advanced", "document": { "markdown": "Deeper. Back to [the intro](./intro.md).\n" } }
        ]),
    )
    .await;
    app.publish(
        &ada,
        &api,
        json!([{ "operation": "insert_page", "ref": "auth", "title": "Authentication", "document": { "markdown": "Send a token.\n" } }]),
    )
    .await;
    let site = app
        .post(
            &ada,
            &format!("/v1/orgs/{org}/sites"),
            json!({ "title": "Docs", "visibility": visibility, "spaces": [guide, api] }),
        )
        .await;
    site.assert_status(201);
    let path = format!("/v1/orgs/{org}/sites/{}", site.id());
    app.post(&ada, &format!("{path}/publish"), json!(null))
        .await
        .assert_status(200);
    (ada, org, path)
}

both_backends! {
    async fn a_site_speaks_the_language_of_its_locale(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "public").await;
        app.put(&ada, &format!("{site}/customization"), json!({
            "title": "Docs",
            "localizedTitle": { "fr": "Documentation", "ja": "ドキュメント" },
            "announcement": { "enabled": true, "message": "New release", "style": "info",
                "localizedMessage": { "fr": "Nouvelle version" } },
            "internationalization": { "locale": "fr" }
        }))
            .await
            .assert_status(200);
        let home = get(&app, "/docs/").await;
        assert!(home.body.starts_with("<!doctype html>\n<html lang=\"fr\""), "{}", home.body);
        // The title and the announcement in the site's language.
        assert!(home.body.contains("| Documentation</title>") && home.body.contains("Nouvelle version"), "{}", home.body);
        assert!(!home.body.contains("New release"));
        for text in ["placeholder=\"Rechercher\"", "<p>Sur cette page</p>", "<small>Suivant</small>Setup", "data-empty=\"Aucun résultat\""] {
            assert!(home.body.contains(text), "{text}: {}", home.body);
        }
        assert!(!home.body.contains("On this page"), "{}", home.body);
        let missing = get(&app, "/docs/nope").await;
        assert_eq!(missing.status, 404);
        assert!(missing.body.contains("<h1>Page introuvable</h1>"), "{}", missing.body);
        let none = get(&app, "/docs/?q=zzzzqq").await;
        assert!(none.body.contains("<h1>Rechercher</h1><nav class=\"scopes\""), "{}", none.body);
        assert!(none.body.contains("aria-current=\"true\">Partout</a>") && none.body.contains("</nav><p>Aucun résultat pour <strong>zzzzqq</strong>.</p>"), "{}", none.body);

        // A site space (a language variant) has its own locale.
        let listed = app.get(&ada, &format!("{site}/site-spaces")).await;
        let api_ss = listed.items()[1]["id"].as_str().unwrap().to_owned();
        app.patch(&ada, &format!("{site}/site-spaces/{api_ss}/customization"), json!({ "internationalization": { "locale": "ja" } }))
            .await
            .assert_status(200);
        let api = get(&app, "/docs/api/").await;
        assert!(api.body.contains("<html lang=\"ja\"") && api.body.contains("placeholder=\"検索\""), "{}", api.body);
        assert!(api.body.contains("| ドキュメント</title>"), "{}", api.body);
        assert!(api.body.contains("New release"), "no Japanese message: the default one");
        assert!(get(&app, "/docs/").await.body.contains("<html lang=\"fr\""));
    }

    async fn a_published_site_serves_pages_navigation_and_machine_files(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "public").await;
        let redirect = get(&app, "/docs").await;
        assert_eq!(redirect.status, 308);
        assert_eq!(redirect.headers["location"], "/docs/");

        // The home page is the first page of the default space.
        let home = get(&app, "/docs/").await;
        assert_eq!(home.status, 200, "{}", home.body);
        assert!(home.content_type.starts_with("text/html"));
        assert!(home.body.contains("<h1>Introduction</h1>"), "{}", home.body);
        assert!(!home.body.contains("noindex"));
        assert!(home.body.contains("<a href=\"/docs/setup\">set it up</a>"), "links become site URLs: {}", home.body);
        assert!(home.body.contains("<h3 id=\"install-the-configuration\">"), "{}", home.body);
        assert!(home.body.contains("<span class=\"c\"># start</span>"), "code is highlighted on the server");
        assert!(home.body.contains("href=\"#install-the-configuration\">Install the configuration</a>"), "outline");
        assert!(home.body.contains("class=\"variant\" href=\"/docs/api/\">API</a>"), "{}", home.body);
        assert!(home.body.contains("class=\"next\" href=\"/docs/setup\"><small>Next</small>Setup</a>"), "{}", home.body);
        assert!(home.body.starts_with("<!doctype html>\n<html lang=\"en\""), "{}", home.body);
        assert!(home.body.len() < 50_000, "a first visit stays small: {} bytes", home.body.len());
        let img = regex_like(&home.body, "src=\"/docs/~files/", "\"");
        assert!(home.body.contains("width=\"1\" height=\"1\""), "images carry their size: {}", home.body);

        // A nested page: breadcrumbs, previous and next.
        let deep = get(&app, "/docs/setup/advanced").await;
        assert_eq!(deep.status, 200);
        assert!(deep.body.contains("class=\"crumb\" href=\"/docs/setup\">Setup</a>"), "{}", deep.body);
        assert!(deep.body.contains("class=\"previous\" href=\"/docs/setup\"><small>Previous</small>Setup</a>"));
        assert!(deep.body.contains("<a href=\"/docs/introduction\">the intro</a>"), "{}", deep.body);
        assert!(
            home.body.contains("<details><summary aria-label=\"Pages under Setup\"></summary><ul><li><a class=\"page\" href=\"/docs/setup/advanced\">"),
            "subpages fold unless the current page is among them: {}",
            home.body
        );
        assert!(deep.body.contains("class=\"page\" href=\"/docs/setup/advanced\" aria-current=\"page\""), "{}", deep.body);
        let setup = get(&app, "/docs/setup").await;
        assert!(setup.body.contains("<aside class=\"hint hint-info\">"));
        // The file's leading `# Setup` is the title, shown once.
        assert_eq!(setup.body.matches(">Setup</h").count(), 1, "{}", setup.body);
        assert!(
            setup.body.contains("<details class=\"expandable\"><summary>Why <em>one</em> file?</summary><p>It is simpler.</p>\n</details>"),
            "expandables are <details>, working without script: {}",
            setup.body
        );

        // Any page as markdown.
        let md = get(&app, "/docs/setup.md").await;
        assert_eq!(md.status, 200);
        assert!(md.content_type.starts_with("text/markdown"));
        assert!(md.body.starts_with("# Setup\n\nGetting ready\n"), "{}", md.body);
        assert_eq!(md.body.matches("# Setup").count(), 1, "{}", md.body);
        assert!(!md.body.contains("---"), "no front matter: {}", md.body);
        let accepted = fetch(&app, "/docs/setup", &[("accept", "text/markdown")]).await;
        assert_eq!(accepted.body, md.body);

        // The second space, files with validators, a missing page.
        let api = get(&app, "/docs/api/").await;
        assert!(api.body.contains("<h1>Authentication</h1>"));
        let file = get(&app, &img).await;
        assert_eq!(file.status, 200, "{img}");
        assert_eq!(file.content_type, "image/png");
        let etag = file.headers["etag"].to_str().unwrap().to_owned();
        assert!(file.headers["cache-control"].to_str().unwrap().contains("max-age"));
        assert!(file.headers["content-security-policy"].to_str().unwrap().contains("sandbox"));
        assert!(file.headers["content-disposition"].to_str().unwrap().starts_with("inline;"), "an image is shown");
        assert_eq!(file.headers["x-content-type-options"], "nosniff");
        let again = fetch(&app, &img, &[("if-none-match", &etag)]).await;
        assert_eq!(again.status, 304);
        let bytes = base64::engine::general_purpose::STANDARD.decode(PNG).unwrap();
        assert_eq!(file.bytes, bytes);
        let missing = get(&app, "/docs/nope").await;
        assert_eq!(missing.status, 404);
        assert!(missing.body.contains("Page not found") && missing.body.contains("class=\"brand\""), "{}", missing.body);
        assert_eq!(get(&app, "/nosuchsite/").await.status, 404);

        // Machine-readable files.
        let sitemap = get(&app, "/docs/sitemap.xml").await;
        assert_eq!(sitemap.status, 200);
        assert!(sitemap.body.contains("/docs/setup/advanced</loc>"), "{}", sitemap.body);
        assert!(sitemap.body.contains("/docs/api/authentication</loc>"), "{}", sitemap.body);
        let robots = get(&app, "/docs/robots.txt").await;
        assert!(robots.body.contains("Allow: /") && robots.body.contains("/docs/sitemap.xml"), "{}", robots.body);
        let llms = get(&app, "/docs/llms.txt").await;
        assert!(llms.body.starts_with("# Docs\n"), "{}", llms.body);
        assert!(llms.body.contains("/docs/setup.md): Getting ready"), "{}", llms.body);
        let full = get(&app, "/docs/llms-full.txt").await;
        assert!(full.body.contains("# Advanced\n\nDeeper.") && full.body.contains("# Authentication"), "{}", full.body);

        let rss = get(&app, "/docs/rss.xml").await;
        assert_eq!(rss.status, 200);
        assert!(rss.content_type.starts_with("application/rss+xml"));
        assert!(rss.body.contains("<title>Update to Guide</title>"), "{}", rss.body);
        assert!(rss.body.contains("<title>Update to API</title>") && rss.body.contains("/docs/api/</link>"), "{}", rss.body);
        assert!(!rss.body.contains("Edits"), "change requests' subjects are the team's, not the readers': {}", rss.body);
        assert!(home.body.contains("href=\"/docs/rss.xml\""));

        // Search on the server, no index download.
        let found = get(&app, "/docs/?q=configuration").await;
        assert_eq!(found.status, 200);
        assert!(found.body.contains("<ul class=\"results\">"), "{}", found.body);
        assert!(found.body.contains(">Setup</a>") && found.body.contains(">Introduction</a>"), "{}", found.body);
        assert!(found.body.contains("<mark>Configuration</mark>"), "what matched is marked: {}", found.body);
        // One typo in a longer word is forgiven, and what it stood for marked.
        let typo = get(&app, "/docs/?q=configuraton").await;
        assert!(typo.body.contains(">Setup</a>"), "{}", typo.body);
        assert!(typo.body.contains("<mark>Configuration</mark>"), "{}", typo.body);
        let two = get(&app, "/docs/?q=confguraton").await;
        assert!(!two.body.contains("<ul class=\"results\">"), "two typos are not forgiven: {}", two.body);

        // Customization: stored, read back complete, applied to every page.
        let custom = app
            .put(
                &ada,
                &format!("{site}/customization"),
                json!({
                    "title": "Acme Docs",
                    "styling": { "primaryColor": { "light": "#ff0000", "dark": "#00ff00" }, "font": "Inter" },
                    "themes": { "default": "dark", "toggeable": false },
                    "announcement": { "enabled": true, "message": "Version 2 is out", "style": "success" },
                    "header": { "preset": "default", "links": [{ "title": "Status", "to": { "kind": "url", "url": "https://status.acme.example" }, "links": [] }] },
                    "footer": { "groups": [], "copyright": "© Acme" }
                }),
            )
            .await;
        custom.assert_status(200);
        assert_eq!(custom.body["styling"]["monospaceFont"], "FiraCode", "defaults fill what was not set");
        assert_eq!(app.get(&ada, &format!("{site}/customization")).await.body["title"], "Acme Docs");
        let styled = get(&app, "/docs/").await;
        assert!(styled.body.contains("<title>Introduction | Acme Docs</title>"), "{}", styled.body);
        // #ff0000 reads at 4:1 on white: darkened to AA (#d90000), never shown too pale.
        assert!(styled.body.contains("--accent:#d90000") && styled.body.contains("data-theme=\"dark\""), "{}", styled.body);
        assert!(styled.body.contains("body{font-family:\"Inter\""), "{}", styled.body);
        assert!(styled.body.contains("hint-success") && styled.body.contains("Version 2 is out"));
        assert!(styled.body.contains("href=\"https://status.acme.example\">Status</a>"));
        assert!(styled.body.contains("© Acme") && !styled.body.contains("id=\"theme\""));
        app.put(&ada, &format!("{site}/customization"), json!({ "styling": { "primaryColor": { "light": "red", "dark": "#000" } } }))
            .await
            .assert_status(400);
        assert_eq!(app.get(&ada, &format!("{site}/customization")).await.body["title"], "Acme Docs");
        // Values outside the official enumerations: a 400 naming the setting.
        for (bad, field) in [
            (json!({ "title": "Acme Docs", "styling": { "theme": "sepia" } }), "styling.theme"),
            (json!({ "title": "Acme Docs", "pagination": { "enabled": "yes" } }), "pagination.enabled"),
            (json!({ "title": "Acme Docs", "externalLinks": { "target": "_top" } }), "externalLinks.target"),
        ] {
            let refused = app.put(&ada, &format!("{site}/customization"), bad).await;
            refused.assert_status(400);
            assert!(refused.message().starts_with(field), "{}", refused.message());
        }
        assert_eq!(app.get(&ada, &format!("{site}/customization")).await.body["styling"]["theme"], "clean");

        // A web font: its faces are declared, shown with a fallback until loaded.
        let brand = json!({ "id": "brand", "custom": true, "fontFamily": "Brand Sans", "fontFaces": [
            { "weight": 400, "sources": [{ "url": "https://cdn.acme.example/brand.woff2", "format": "woff2" }] },
            { "weight": 700, "sources": [{ "url": "https://cdn.acme.example/brand-bold.woff2", "format": "woff2" }] }
        ] });
        app.put(&ada, &format!("{site}/customization"), json!({ "title": "Acme Docs", "styling": { "font": brand, "monospaceFont": "JetBrainsMono" } }))
            .await
            .assert_status(200);
        let fonts = get(&app, "/docs/").await;
        assert!(
            fonts.body.contains("@font-face{font-family:\"Brand Sans\";font-weight:700;font-display:swap;src:url(\"https://cdn.acme.example/brand-bold.woff2\") format(\"woff2\")}"),
            "{}",
            fonts.body
        );
        assert!(fonts.body.contains("body{font-family:\"Brand Sans\""));
        assert!(fonts.body.contains("code,pre{font-family:\"JetBrains Mono\""), "{}", fonts.body);

        // A site space overrides part of the site's customization.
        let listed = app.get(&ada, &format!("{site}/site-spaces")).await;
        let space_ids: Vec<String> = listed.items().iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect();
        let (guide_ss, api_ss) = (&space_ids[0], &space_ids[1]);
        let overrides = format!("{site}/site-spaces/{api_ss}/customization");
        let patched = app
            .patch(&ada, &overrides, json!({ "title": "Acme API", "styling": { "primaryColor": { "light": "#0000ff", "dark": "#0000aa" } } }))
            .await;
        patched.assert_status(200);
        assert_eq!(patched.body["title"], "Acme API");
        assert_eq!(patched.body["styling"]["font"]["fontFamily"], "Brand Sans", "what is not overridden is the site's");
        assert_eq!(app.get(&ada, &overrides).await.body["styling"]["primaryColor"]["light"], "#0000ff");
        let guide_settings = app.get(&ada, &format!("{site}/site-spaces/{guide_ss}/customization")).await;
        assert_eq!(guide_settings.body["title"], "Acme Docs");
        let api_page = get(&app, "/docs/api/").await;
        assert!(api_page.body.contains("| Acme API</title>") && api_page.body.contains("--accent:#0000ff"), "{}", api_page.body);
        assert!(get(&app, "/docs/").await.body.contains("| Acme Docs</title>"));
        let published = app.get(&ada, &format!("{site}/published")).await;
        assert_eq!(published.body["customizations"]["siteSpaces"][api_ss]["hasOverrides"], true);
        assert_eq!(published.body["customizations"]["siteSpaces"][guide_ss]["hasOverrides"], false);
        assert_eq!(published.body["customizations"]["siteSpaces"][api_ss]["title"], "Acme API");
        // null removes one override; bad overrides change nothing.
        let unset = app.patch(&ada, &overrides, json!({ "title": null })).await;
        assert_eq!(unset.body["title"], "Acme Docs");
        assert_eq!(unset.body["styling"]["primaryColor"]["light"], "#0000ff");
        for bad in [
            json!({ "ai": { "mode": "search" } }),
            json!({ "styling": { "primaryColor": { "light": "blue", "dark": "#000" } } }),
            json!({ "title": "x" }),
            json!([1]),
        ] {
            app.patch(&ada, &overrides, bad).await.assert_status(400);
        }
        app.patch(&ada, &format!("{site}/site-spaces/nope/customization"), json!({})).await.assert_status(404);
        // Delete: every override goes (204, also when there is none).
        app.delete(&ada, &overrides).await.assert_status(204);
        app.delete(&ada, &overrides).await.assert_status(204);
        let published = app.get(&ada, &format!("{site}/published")).await;
        assert_eq!(published.body["customizations"]["siteSpaces"][api_ss]["hasOverrides"], false);
        assert!(get(&app, "/docs/api/").await.body.contains("| Acme Docs</title>"));

        // Unpublished: gone.
        app.post(&ada, &format!("{site}/unpublish"), json!(null)).await.assert_status(200);
        assert_eq!(get(&app, "/docs/").await.status, 404);
    }

    async fn audiences_admit_exactly_who_they_should(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "unlisted").await;
        // Unlisted: served, never indexed.
        let page = get(&app, "/docs/").await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("<meta name=\"robots\" content=\"noindex, nofollow\">"));
        assert_eq!(page.headers["x-robots-tag"], "noindex, nofollow");
        assert_eq!(get(&app, "/docs/sitemap.xml").await.status, 404);
        assert!(get(&app, "/docs/robots.txt").await.body.contains("Disallow: /"));

        // Share link: only with an active key, as the first segment.
        app.patch(&ada, &site, json!({ "visibility": "share-link" })).await.assert_status(200);
        assert_eq!(get(&app, "/docs/").await.status, 404);
        let link = app.post(&ada, &format!("{site}/share-links"), json!({ "name": "Partners" })).await;
        let url = link.body["urls"]["published"].as_str().unwrap().to_owned();
        let key = url.trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        let shared = get(&app, &format!("/docs/{key}/")).await;
        assert_eq!(shared.status, 200);
        assert!(shared.body.contains(&format!("<a href=\"/docs/{key}/setup\">set it up</a>")), "{}", shared.body);
        assert!(shared.body.contains("noindex"));
        assert_eq!(get(&app, &format!("/docs/{key}/setup/advanced")).await.status, 200);
        assert_eq!(get(&app, "/docs/wrongkey/").await.status, 404);
        app.patch(&ada, &format!("{site}/share-links/{}", link.id()), json!({ "active": false }))
            .await
            .assert_status(200);
        assert_eq!(get(&app, &format!("/docs/{key}/")).await.status, 404, "a revoked key stops at once");

        // Visitor authentication asks visitors without a token to sign in.
        app.patch(&ada, &site, json!({ "visibility": "visitor-auth" })).await.assert_status(200);
        assert_eq!(get(&app, "/docs/").await.status, 401);

        // A custom hostname serves the site at its root.
        app.patch(&ada, &site, json!({ "visibility": "public", "hostname": "docs.acme.example" })).await.assert_status(200);
        let hosted = fetch(&app, "/setup", &[("host", "docs.acme.example")]).await;
        assert_eq!(hosted.status, 200, "{}", hosted.body);
        assert!(hosted.body.contains("<h1>Setup</h1>"));
        assert!(hosted.body.contains("href=\"/setup/advanced\""), "{}", hosted.body);
        assert_eq!(fetch(&app, "/setup", &[("host", "other.acme.example")]).await.status, 404);
        // Another name of the instance itself still reaches sites by basename.
        assert_eq!(fetch(&app, "/docs/setup", &[("host", "localhost")]).await.status, 200);
    }
}

both_backends! {
    async fn visitor_auth_admits_signed_tokens_and_conditions_follow_claims(app: TestApp) {
        let (ada, org, site) = docs_site(&app, "visitor-auth").await;
        // Without a token: told to sign in, then sent to the login URL.
        assert_eq!(get(&app, "/docs/").await.status, 401);
        let auth = app
            .request(reqwest::Method::PATCH, &format!("{site}/publishing/auth"))
            .as_user(&ada)
            .json(json!({ "fallbackURL": "https://login.acme.example/sso" }))
            .send()
            .await;
        auth.assert_status(200);
        let key = auth.body["privateKey"].as_str().unwrap().to_owned();
        let login = get(&app, "/docs/setup").await;
        assert_eq!(login.status, 302);
        let location = login.headers["location"].to_str().unwrap();
        assert!(location.starts_with("https://login.acme.example/sso?location=http"), "{location}");
        assert!(location.ends_with("%2Fdocs%2Fsetup"), "{location}");

        // A signed token in the URL becomes a cookie scoped to the site.
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let token = quire_sites::visitor::sign(&json!({ "exp": now + 600, "plan": "pro" }), &key);
        let landed = get(&app, &format!("/docs/setup?jwt_token={token}")).await;
        assert_eq!(landed.status, 303);
        assert_eq!(landed.headers["location"], "/docs/setup");
        let set = landed.headers["set-cookie"].to_str().unwrap().to_owned();
        assert!(set.starts_with(&format!("quire_visitor={token}; Path=/docs/; Max-Age=")), "{set}");
        assert!(set.contains("HttpOnly") && set.contains("SameSite=Lax"), "{set}");
        let cookie = format!("quire_visitor={token}");
        let page = fetch(&app, "/docs/setup", &[("cookie", &cookie)]).await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("<h1>Setup</h1>") && page.body.contains("noindex"));

        // Expired, forged and superseded tokens are refused.
        let expired = quire_sites::visitor::sign(&json!({ "exp": now - 3600 }), &key);
        let forged = quire_sites::visitor::sign(&json!({ "exp": now + 600 }), "not-the-key");
        for bad in [expired, forged] {
            assert_eq!(get(&app, &format!("/docs/?jwt_token={bad}")).await.status, 302);
            assert_eq!(fetch(&app, "/docs/", &[("cookie", &format!("quire_visitor={bad}"))]).await.status, 302);
        }
        app.post(&ada, &format!("{site}/publishing/auth/regenerate"), json!(null)).await.assert_status(200);
        assert_eq!(fetch(&app, "/docs/", &[("cookie", &cookie)]).await.status, 302);

        // Adaptive content on a public site: a section for beta testers
        // (an unsigned claim) and a space for the "pro" plan (a signed one).
        app.patch(&ada, &site, json!({ "visibility": "public" })).await.assert_status(200);
        let key = app.get(&ada, &format!("{site}/publishing/auth")).await.body["privateKey"].as_str().unwrap().to_owned();
        let beta_space = app.space(&ada, &org, "Beta", None).await;
        app.publish(&ada, &beta_space, json!([{ "operation": "insert_page", "title": "Preview", "document": { "markdown": "New things.\n" } }])).await;
        let sections = app.get(&ada, &format!("{site}/sections")).await;
        assert!(sections.items().is_empty());
        let beta = app.post(&ada, &format!("{site}/sections"), json!({ "spaceId": beta_space, "title": "Beta" })).await;
        beta.assert_status(201);
        app.patch(&ada, &format!("{site}/sections/{}", beta.id()), json!({ "condition": "visitor.claims.unsigned.beta == true" }))
            .await
            .assert_status(200);
        let spaces = app.get(&ada, &format!("{site}/site-spaces")).await;
        let api_site_space = spaces.items().iter().find(|s| s["title"] == "API").unwrap()["id"].as_str().unwrap().to_owned();
        app.patch(&ada, &format!("{site}/site-spaces/{api_site_space}"), json!({ "condition": "visitor.claims.plan == \"pro\"" }))
            .await
            .assert_status(200);
        let plain = get(&app, "/docs/").await;
        assert_eq!(plain.status, 200);
        assert!(!plain.body.contains(">Beta</a>") && !plain.body.contains(">API</a>"), "{}", plain.body);
        assert_eq!(get(&app, "/docs/beta/").await.status, 404);
        let opted = get(&app, "/docs/?visitor.beta=true").await;
        assert_eq!(opted.status, 303);
        let claims = opted.headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
        let with_beta = fetch(&app, "/docs/", &[("cookie", &claims)]).await;
        assert!(with_beta.body.contains(">Beta</a>"), "{}", with_beta.body);
        // Section groups head their sections in the header.
        app.post(&ada, &format!("{site}/section-groups"), json!({ "title": "Labs", "sections": [beta.id()] }))
            .await
            .assert_status(201);
        let grouped = fetch(&app, "/docs/", &[("cookie", &claims)]).await;
        assert!(
            grouped.body.contains("<span class=\"section-group\"><span class=\"group-title\">Labs</span><a class=\"section\" href=\"/docs/beta/\">Beta</a></span>"),
            "{}",
            grouped.body
        );
        assert_eq!(fetch(&app, "/docs/beta/", &[("cookie", &claims)]).await.status, 200);
        let pro = quire_sites::visitor::sign(&json!({ "exp": now + 600, "plan": "pro" }), &key);
        let with_pro = fetch(&app, "/docs/", &[("cookie", &format!("quire_visitor={pro}"))]).await;
        assert!(with_pro.body.contains(">API</a>"), "{}", with_pro.body);

        // Pages have conditions too: a staff-only page (and its subpage)
        // exists only for visitors whose claims satisfy it.
        let all_spaces = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await;
        let guide = all_spaces.items().iter().find(|s| s["title"] == "Guide").unwrap()["id"].as_str().unwrap().to_owned();
        let tree = app.get(&ada, &format!("/v1/spaces/{guide}/content")).await;
        let setup_id = tree.body["pages"].as_array().unwrap().iter().find(|p| p["title"] == "Setup").unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let cr = app.change_request(&ada, &guide, "Staff only").await;
        let refused = app
            .post(
                &ada,
                &format!("/v1/spaces/{guide}/change-requests/{cr}/content"),
                json!({ "changes": [{ "operation": "update_page", "page": setup_id, "condition": "visitor.claims.(" }] }),
            )
            .await;
        refused.assert_status(400);
        assert!(refused.body["error"]["message"].as_str().unwrap().contains("condition"), "{}", refused.body);
        app.publish(
            &ada,
            &guide,
            json!([{ "operation": "update_page", "page": setup_id, "condition": "visitor.claims.unsigned.staff == true" }]),
        )
        .await;
        let page = app.get(&ada, &format!("/v1/spaces/{guide}/content/page/{setup_id}")).await;
        assert_eq!(page.body["condition"], "visitor.claims.unsigned.staff == true");
        let reader = get(&app, "/docs/").await;
        assert!(!reader.body.contains(">Setup</a>"), "left out of the navigation: {}", reader.body);
        assert!(!reader.body.contains("class=\"next\""), "and of previous/next: {}", reader.body);
        assert!(reader.body.contains("class=\"broken\""), "links to it are broken: {}", reader.body);
        for path in ["/docs/setup", "/docs/setup.md", "/docs/setup/advanced"] {
            assert_eq!(get(&app, path).await.status, 404, "{path}");
        }
        for index in ["/docs/sitemap.xml", "/docs/llms.txt", "/docs/llms-full.txt", "/docs/?q=configuration"] {
            let listed = get(&app, index).await;
            assert!(!listed.body.contains("/docs/setup") && !listed.body.contains("Getting ready"), "{index}: {}", listed.body);
        }
        let staff = get(&app, "/docs/?visitor.staff=true").await;
        let staff_claims = staff.headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
        let staff_home = fetch(&app, "/docs/", &[("cookie", &staff_claims)]).await;
        assert!(staff_home.body.contains(">Setup</a>"), "{}", staff_home.body);
        assert_eq!(fetch(&app, "/docs/setup/advanced", &[("cookie", &staff_claims)]).await.status, 200);
        assert!(fetch(&app, "/docs/llms.txt", &[("cookie", &staff_claims)]).await.body.contains("/docs/setup"));
        // An empty condition removes it.
        app.publish(&ada, &guide, json!([{ "operation": "update_page", "page": setup_id, "condition": "" }])).await;
        let page = app.get(&ada, &format!("/v1/spaces/{guide}/content/page/{setup_id}")).await;
        assert!(page.body.get("condition").is_none(), "{}", page.body);
        assert_eq!(get(&app, "/docs/setup").await.status, 200);

        // Conditional blocks in a page follow the same claims, in every
        // form of the page; their words are not searchable.
        app.publish(
            &ada,
            &guide,
            json!([{ "operation": "update_page", "page": setup_id, "document": { "markdown": "# Setup\n\nFor everyone.\n\n{% if visitor.claims.unsigned.staff == true %}\n## Staff notes\n\nThe vault combination.\n{% endif %}\n" } }]),
        )
        .await;
        for path in ["/docs/setup", "/docs/setup.md", "/docs/llms-full.txt", "/docs/?q=combination"] {
            let anonymous = get(&app, path).await;
            assert!(!anonymous.body.contains("vault") && !anonymous.body.contains("Staff notes"), "{path}: {}", anonymous.body);
        }
        assert!(get(&app, "/docs/setup").await.body.contains("For everyone."));
        for path in ["/docs/setup", "/docs/setup.md"] {
            let staff = fetch(&app, path, &[("cookie", &staff_claims)]).await;
            assert!(staff.body.contains("The vault combination.") && staff.body.contains("Staff notes"), "{path}: {}", staff.body);
        }
    }
}

both_backends! {
    async fn the_audience_matrix(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "public").await;
        let key = app.get(&ada, &format!("{site}/publishing/auth")).await.body["privateKey"].as_str().unwrap().to_owned();
        let link = |name: &'static str| {
            let app = &app;
            let ada = &ada;
            let site = &site;
            async move {
                let res = app.post(ada, &format!("{site}/share-links"), json!({ "name": name })).await;
                let url = res.body["urls"]["published"].as_str().map(str::to_owned);
                (res.id(), url)
            }
        };
        app.post(&ada, &format!("{site}/publish"), json!(null)).await.assert_status(200);
        let (_, right_url) = link("right").await;
        let right = right_url.unwrap().trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        let (revoked_id, revoked_url) = link("revoked").await;
        let revoked = revoked_url.unwrap().trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        app.patch(&ada, &format!("{site}/share-links/{revoked_id}"), json!({ "active": false })).await.assert_status(200);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let sign = quire_sites::visitor::sign;
        let expired = sign(&json!({ "exp": now - 600 }), &key);
        let forged = sign(&json!({ "exp": now + 600 }), "someone-elses-key");
        let valid = sign(&json!({ "exp": now + 600 }), &key);
        let wrong = "A".repeat(32);
        // (path, cookie) for: no credential, wrong key, revoked key, right
        // key, expired token, forged token, valid token.
        let requests: Vec<(String, Option<String>)> = vec![
            ("/docs/".into(), None),
            (format!("/docs/{wrong}/"), None),
            (format!("/docs/{revoked}/"), None),
            (format!("/docs/{right}/"), None),
            ("/docs/".into(), Some(format!("quire_visitor={expired}"))),
            ("/docs/".into(), Some(format!("quire_visitor={forged}"))),
            ("/docs/".into(), Some(format!("quire_visitor={valid}"))),
        ];
        let expected: [(&str, [u16; 7]); 4] = [
            ("public", [200, 404, 404, 200, 200, 200, 200]),
            ("unlisted", [200, 404, 404, 200, 200, 200, 200]),
            ("share-link", [404, 404, 404, 200, 404, 404, 404]),
            ("visitor-auth", [401, 401, 401, 401, 401, 401, 200]),
        ];
        for (visibility, statuses) in expected {
            app.patch(&ada, &site, json!({ "visibility": visibility })).await.assert_status(200);
            for ((path, cookie), status) in requests.iter().zip(statuses) {
                let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("cookie", c.as_str())).collect();
                let got = fetch(&app, path, &headers).await.status;
                assert_eq!(got, status, "{visibility} {path} {cookie:?}");
            }
        }
        // Unpublished: nobody, whatever they bring.
        app.post(&ada, &format!("{site}/unpublish"), json!(null)).await.assert_status(200);
        for (path, cookie) in &requests {
            let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("cookie", c.as_str())).collect();
            assert_eq!(fetch(&app, path, &headers).await.status, 404, "unpublished {path}");
        }
    }
}

/// The text between `start` (included) and the next `end` (excluded).
fn regex_like(text: &str, start: &str, end: &str) -> String {
    let at = text.find(start).unwrap_or_else(|| panic!("{start} not in {text}"));
    let rest = &text[at + "src=\"".len()..];
    rest[..rest.find(end).unwrap()].to_owned()
}

both_backends! {
    /// Pages run their own inline scripts and nothing else (each script's
    /// hash is in the content security policy); files run nothing; nothing is
    /// sniffed or framed by another origin.
    async fn published_answers_carry_security_headers(app: TestApp) {
        use sha2::Digest as _;
        let (ada, org, _site) = docs_site(&app, "public").await;
        let home = get(&app, "/docs/").await;
        assert_eq!(home.status, 200);
        let policy = home.headers["content-security-policy"].to_str().unwrap().to_owned();
        assert!(policy.contains("default-src 'self'"), "{policy}");
        assert!(policy.contains("frame-ancestors 'self'"), "{policy}");
        assert!(!policy.contains("'unsafe-inline' 'unsafe-eval'") && !policy.contains("script-src *"), "{policy}");
        let mut scripts = 0;
        for part in home.body.split("<script>").skip(1) {
            let script = part.split("</script>").next().unwrap();
            let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script.as_bytes()));
            assert!(policy.contains(&format!("'sha256-{hash}'")), "script not admitted by {policy}: {script}");
            scripts += 1;
        }
        assert_eq!(
            scripts, 4,
            "the theme switch, search as you type, copy buttons (the page has code) and the page actions"
        );
        for name in ["x-content-type-options", "x-frame-options", "referrer-policy"] {
            assert!(home.headers.contains_key(name), "{name} missing");
        }
        assert_eq!(home.headers["x-content-type-options"], "nosniff");

        // An uploaded HTML file opened directly runs nothing.
        let space = app.space(&ada, &org, "Files", None).await;
        let html = base64::engine::general_purpose::STANDARD.encode("<script>alert(1)</script>");
        app.publish(
            &ada,
            &space,
            json!([
                { "operation": "insert_files", "files": [{ "name": "x.html", "ref": "x", "contentType": "text/html", "base64": html }] },
                { "operation": "insert_page", "title": "Files", "document": { "markdown": "[the file](./x)\n" } }
            ]),
        )
        .await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Raw", "visibility": "public", "spaces": [space] })).await;
        site.assert_status(201);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let page = get(&app, "/raw/").await;
        assert_eq!(page.status, 200, "{}", page.body);
        let at = page.body.find("href=\"/raw/~files/").unwrap_or_else(|| panic!("no file link: {}", page.body));
        let rest = &page.body[at + "href=\"".len()..];
        let link = rest[..rest.find('"').unwrap()].to_owned();
        let file = get(&app, &link).await;
        assert_eq!(file.status, 200, "{link}");
        let policy = file.headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("sandbox"), "{policy}");
        assert_eq!(file.headers["x-content-type-options"], "nosniff");
        let missing = get(&app, "/raw/nowhere").await;
        assert_eq!(missing.status, 404);
        assert!(missing.headers.contains_key("content-security-policy"));
    }
}

both_backends! {
    /// GitBook's named fonts come with the binary: the page declares the
    /// chosen font's faces at the site's own `~gitbook/fonts/`, which
    /// answers them for a year to any origin; nothing is declared for the
    /// default look.
    async fn named_fonts_are_served_by_the_site_itself(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "public").await;
        let plain = get(&app, "/docs/").await;
        assert!(!plain.body.contains("@font-face"), "the default look declares no font: {}", plain.body);
        app.put(&ada, &format!("{site}/customization"), json!({ "styling": { "font": "Poppins", "headingFont": "Poppins" } }))
            .await
            .assert_status(200);
        let page = get(&app, "/docs/setup").await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("body{font-family:\"Poppins\""), "{}", page.body);
        let at = page
            .body
            .find("@font-face{font-family:\"Poppins\";font-weight:400;font-style:normal;font-display:swap;src:url(\"")
            .unwrap_or_else(|| panic!("no face of Poppins: {}", page.body));
        let rest = &page.body[at..];
        let rest = &rest[rest.find("url(\"").unwrap() + "url(\"".len()..];
        let url = rest[..rest.find('"').unwrap()].to_owned();
        assert!(url.starts_with("/docs/~gitbook/fonts/poppins-latin-") && url.ends_with(".woff2"), "{url}");
        assert_eq!(page.body.matches(&format!("url(\"{url}\")")).count(), 1, "declared once for text and headings");
        assert!(page.body.contains(";unicode-range:U+"), "{}", page.body);
        let policy = page.headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("font-src *"), "{policy}");

        let font = get(&app, &url).await;
        assert_eq!(font.status, 200, "{url}");
        assert_eq!(font.content_type, "font/woff2");
        assert_eq!(font.headers["cache-control"], "public, max-age=31536000, immutable");
        assert_eq!(font.headers["access-control-allow-origin"], "*");
        assert!(font.bytes.starts_with(b"wOF2"), "{} bytes", font.bytes.len());
        // The same file at the site's every path prefix is not a font.
        let under_space = get(&app, &url.replace("/docs/", "/docs/api/")).await;
        assert_ne!(under_space.content_type, "font/woff2");

        let missing = get(&app, "/docs/~gitbook/fonts/poppins-latin-400-normal.00000000.woff2").await;
        assert_eq!(missing.status, 404);
        assert!(missing.content_type.starts_with("application/json"), "{}", missing.content_type);
        let error: serde_json::Value = serde_json::from_slice(&missing.bytes).unwrap();
        assert_eq!(error["error"]["code"], 404, "{error}");
    }
}

both_backends! {
    /// `styling.codeTheme` colours the code of published pages: the light
    /// theme's colours as the stylesheet's plain rules, the dark theme's under
    /// both of its dark selectors; GitBook's defaults add nothing.
    async fn code_themes_colour_the_code_of_published_pages(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "public").await;
        let plain = get(&app, "/docs/").await;
        assert!(plain.body.contains("<code class=\"language-bash\">"), "{}", plain.body);
        assert!(!plain.body.contains("#282a36") && !plain.body.contains("pre{background:#"), "{}", plain.body);

        app.put(&ada, &format!("{site}/customization"), json!({ "title": "Docs", "styling": { "codeTheme": {
            "default": { "light": "github-light", "dark": "dracula" } } } }))
            .await
            .assert_status(200);
        let themed = get(&app, "/docs/").await;
        assert!(themed.body.contains("<code class=\"language-bash\">"), "{}", themed.body);
        for rule in [
            // github-light in light mode.
            "pre{background:#ffffff;color:#24292e}pre .c{color:#6a737d}",
            "pre .k{color:#d73a49}",
            // dracula where the reader chose dark, and where the system is dark.
            ":root[data-theme=dark] pre{background:#282a36;color:#f8f8f2}",
            ":root[data-theme=dark] pre .c{color:#6272a4}",
            "@media (prefers-color-scheme:dark){:root:not([data-theme=light]) pre{background:#282a36;color:#f8f8f2}",
        ] {
            assert!(themed.body.contains(rule), "{rule}: {}", themed.body);
        }
        // OpenAPI examples keep their own setting (the default here).
        assert!(themed.body.contains(".openapi pre{background:var(--soft);color:var(--fg)}"), "{}", themed.body);

        app.put(&ada, &format!("{site}/customization"), json!({ "title": "Docs", "styling": { "codeTheme": {
            "default": { "light": "github-light", "dark": "dracula" },
            "openapi": { "light": "github-light", "dark": "dracula" } } } }))
            .await
            .assert_status(200);
        let alike = get(&app, "/docs/").await;
        assert!(alike.body.contains(":root[data-theme=dark] pre{background:#282a36"), "{}", alike.body);
        assert!(!alike.body.contains(".openapi pre"), "{}", alike.body);

        // Back to GitBook's defaults: the page as it was.
        app.put(&ada, &format!("{site}/customization"), json!({ "title": "Docs", "styling": { "codeTheme": {
            "default": { "light": "default-light", "dark": "default-dark" } } } }))
            .await
            .assert_status(200);
        let again = get(&app, "/docs/").await;
        assert!(!again.body.contains("#282a36") && !again.body.contains("pre{background:#"), "{}", again.body);
    }
}

both_backends! {
    /// GitBook's icons (`<i class="fa-github">`, a page's `icon` in its
    /// front matter) are drawn inline as SVG, in the site's icon style
    /// (`styling.icons`); unknown or crafted names draw nothing.
    async fn icons_are_drawn_in_the_site_icon_style(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Guide", None).await;
        app.publish(
            &ada,
            &space,
            json!([{ "operation": "insert_page", "title": "Stars", "document": { "markdown": "---\nicon: star\n---\n\nStar us on <i class=\"fa-github\">:github:</i>, rate it <i class=\"fa-star\">:star:</i>, not <i class=\"fa-no-such-icon\">:none:</i> <i class=\"fa-x&quot;onload\">:x:</i>.\n" } }]),
        )
        .await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Icons", "visibility": "public", "spaces": [space] })).await;
        site.assert_status(201);
        let site = format!("/v1/orgs/{org}/sites/{}", site.id());
        app.post(&ada, &format!("{site}/publish"), json!(null)).await.assert_status(200);
        // The path of the star drawn after `at` in the page.
        let star = |body: &str, at: &str| {
            let from = &body[body.find(at).unwrap_or_else(|| panic!("{at} not in {body}"))..];
            let from = &from[from.find("<svg class=\"icon\" viewBox=\"0 0 576 512\"").unwrap_or_else(|| panic!("no star: {body}"))..];
            let from = &from[from.find(" d=\"").unwrap() + 4..];
            from[..from.find('"').unwrap()].to_owned()
        };

        let regular = get(&app, "/icons/").await;
        assert_eq!(regular.status, 200, "{}", regular.body);
        let body = &regular.body;
        assert!(
            body.contains("Star us on <svg class=\"icon\" viewBox=\"0 0 512 512\" aria-hidden=\"true\" fill=\"currentColor\" width=\"1em\" height=\"1em\"><path d=\"M"),
            "{body}"
        );
        assert!(body.contains("<h1><svg class=\"icon\" viewBox=\"0 0 576 512\""), "the page's icon: {body}");
        assert!(body.contains("\"/></svg> Stars</h1>"), "{body}");
        assert!(!body.contains(":github:") && !body.contains(":star:") && !body.contains("data-icon"), "{body}");
        assert!(body.contains("not <span class=\"icon\" aria-hidden=\"true\"></span>"), "an unknown icon takes no room: {body}");
        let mut tags = body.split('<').skip(1).map(|t| &t[..t.find('>').unwrap_or(t.len())]);
        assert!(tags.all(|t| !t.contains("onload")), "{body}");

        app.put(&ada, &format!("{site}/customization"), json!({ "styling": { "icons": "solid" } }))
            .await
            .assert_status(200);
        let solid = get(&app, "/icons/").await;
        assert_eq!(solid.status, 200);
        for at in ["<h1>", "rate it "] {
            assert_ne!(star(body, at), star(&solid.body, at), "{at}: solid is not regular");
        }
        assert_eq!(star(&solid.body, "<h1>"), star(&solid.body, "rate it "));
        let github = |body: &str| body[body.find("Star us on <svg").unwrap()..][..200].to_owned();
        assert_eq!(github(body), github(&solid.body), "a brand is the same in every style");
        // Pro-only styles are approximated: thin draws the regular icons.
        app.put(&ada, &format!("{site}/customization"), json!({ "styling": { "icons": "thin" } }))
            .await
            .assert_status(200);
        assert_eq!(star(&get(&app, "/icons/").await.body, "<h1>"), star(body, "<h1>"));
    }
}
