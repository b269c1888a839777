//! Content imports over HTTP: a website served on 127.0.0.1, markdown and
//! HTML files, a zip archive of markdown; into a space and a change request.

use std::io::Write;

use axum::routing::get;
use base64::Engine as _;
use serde_json::json;

use crate::git_sync::{outline, page_titled};
use crate::support::both_backends;

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg==";

fn page(title: &str, body: &str) -> axum::response::Html<String> {
    axum::response::Html(format!(
        "<!doctype html><html><head><title>{title} | Acme</title></head><body>\
         <header><a href=\"/docs/\">Acme docs</a></header>\
         <nav><a href=\"/docs/guide/\">Guide</a> <a href=\"/docs/api.html\">API</a></nav>\
         <main><h1>{title}</h1>{body}</main><footer>© Acme</footer></body></html>"
    ))
}

/// A small documentation site on 127.0.0.1; its base URL.
async fn site() -> (String, tokio::task::JoinHandle<()>) {
    let png = base64::engine::general_purpose::STANDARD.decode(PNG).unwrap();
    let router = axum::Router::new()
        .route("/robots.txt", get(|| async { "User-agent: *\nDisallow: /docs/private\n" }))
        .route(
            "/sitemap.xml",
            get(|| async {
                "<?xml version=\"1.0\"?><urlset><url><loc>http://HOST/docs/extra</loc></url></urlset>"
            }),
        )
        .route("/docs/", get(|| async { page("Welcome", "<p>Read the <a href=\"guide/\">guide</a> or <a href=\"private\">the secret</a>. <a href=\"https://elsewhere.example/\">Elsewhere</a>.</p>") }))
        .route("/docs/guide/", get(|| async { page("Guide", "<p>Start with <a href=\"setup#install\">setup</a>.</p><img src=\"../img/logo.png\" alt=\"Logo\">") }))
        .route("/docs/guide/setup", get(|| async { page("Setup", "<h2 id=\"install\">Install</h2><pre><code class=\"language-bash\">quire serve\n</code></pre><table><tr><th>Flag</th><th>Default</th></tr><tr><td>--listen</td><td>127.0.0.1:8080</td></tr></table>") }))
        .route("/docs/api.html", get(|| async { page("API", "<ul><li>GET</li><li>POST</li></ul>") }))
        .route("/docs/extra", get(|| async { page("Extra", "<p>Only in the sitemap.</p>") }))
        .route("/docs/private", get(|| async { page("Secret", "<p>Robots may not read this.</p>") }))
        .route("/docs/img/logo.png", get(move || { let png = png.clone(); async move { ([("content-type", "image/png")], png) } }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let host = base.trim_start_matches("http://").to_owned();
    let router = router.layer(axum::middleware::map_response(
        move |mut res: axum::response::Response| {
            let host = host.clone();
            async move {
                // The sitemap names the server's own address.
                if res
                    .headers()
                    .get("content-type")
                    .is_some_and(|t| t.to_str().unwrap_or("").starts_with("text/plain"))
                {
                    let body = axum::body::to_bytes(std::mem::take(res.body_mut()), usize::MAX)
                        .await
                        .unwrap();
                    let text = String::from_utf8_lossy(&body).replace("HOST", &host);
                    res.headers_mut().remove("content-length");
                    *res.body_mut() = axum::body::Body::from(text);
                }
                res
            }
        },
    ));
    let task = tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (base, task)
}

both_backends! {
    async fn a_website_is_imported_politely_with_its_tree_links_and_images(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Imported", None).await;
        let (base, _server) = site().await;
        let res = app
            .post(&ada, &format!("/v1/spaces/{space}/content/import"), json!({ "url": format!("{base}/docs/"), "source": "website" }))
            .await;
        res.assert_status(201);
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(res.body["importedResources"], 5, "{} {:?}", res.body, outline(&pages));
        assert!(res.body["totalResources"].as_u64().unwrap() >= 5);
        let content = app.get(&ada, &format!("/v1/spaces/{space}/content")).await;
        assert_eq!(content.body["id"], res.body["revision"]);
        let pages = content.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["Welcome[Extra, Guide[Setup], API]"], "robots.txt keeps the secret out");
        let setup = page_titled(&pages, "Setup")["id"].as_str().unwrap().to_owned();
        let markdown = app.markdown(&ada, &space, &setup).await;
        assert!(markdown.starts_with("# Setup\n"), "{markdown}");
        assert!(markdown.contains("```bash\nquire serve\n```"), "{markdown}");
        assert!(markdown.contains("| --listen | 127.0.0.1:8080 |"), "{markdown}");
        assert!(!markdown.contains("Acme docs") && !markdown.contains("© Acme"), "navigation and footers stay out");
        let guide = page_titled(&pages, "Guide")["id"].as_str().unwrap().to_owned();
        let guide_md = app.markdown(&ada, &space, &guide).await;
        assert!(guide_md.contains(&format!("[setup](/pages/{setup}#install)")), "links become page links: {guide_md}");
        let files = content.body["files"].as_array().unwrap();
        assert_eq!(files.len(), 1);
        assert!(guide_md.contains(&format!("![Logo](/files/{})", files[0]["id"].as_str().unwrap())), "{guide_md}");
        let welcome = app.markdown(&ada, &space, page_titled(&pages, "Welcome")["id"].as_str().unwrap()).await;
        assert!(welcome.contains("](https://elsewhere.example/)"), "other sites stay links: {welcome}");

        // Into a change request; existing pages stay.
        let cr = app.change_request(&ada, &space, "More").await;
        let res = app
            .post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content/import"), json!({ "url": format!("{base}/docs/api.html"), "source": "file" }))
            .await;
        res.assert_status(201);
        let cr_pages = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content")).await.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&cr_pages), ["Welcome[Extra, Guide[Setup], API]", "API"]);
        assert_eq!(outline(&app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone()).len(), 1);
    }

    async fn files_and_archives_of_markdown_are_imported(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Notes", None).await;
        let path = format!("/v1/spaces/{space}/content/import");
        let markdown = base64::engine::general_purpose::STANDARD.encode("---\ndescription: Kept\n---\n\n# Release notes\n\nVersion 2.\n");
        let res = app.post(&ada, &path, json!({ "url": format!("data:text/markdown;base64,{markdown}"), "source": "file" })).await;
        res.assert_status(201);
        let mut zip_bytes = std::io::Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut zip_bytes);
            let options = zip::write::SimpleFileOptions::default();
            for (name, body) in [
                ("export/README.md", "# Handbook\n\nSee [onboarding](team/onboarding.md).\n".as_bytes().to_vec()),
                ("export/team/README.md", b"# Team\n".to_vec()),
                ("export/team/onboarding.md", b"# Onboarding\n\n![Badge](badge.png)\n".to_vec()),
                ("export/team/badge.png", base64::engine::general_purpose::STANDARD.decode(PNG).unwrap()),
                ("export/legacy.html", b"<html><body><nav>x</nav><main><h1>Legacy</h1><p>Old <b>page</b>.</p></main></body></html>".to_vec()),
            ] {
                zip.start_file(name, options).unwrap();
                zip.write_all(&body).unwrap();
            }
            zip.finish().unwrap();
        }
        let archive = base64::engine::general_purpose::STANDARD.encode(zip_bytes.get_ref());
        let res = app.post(&ada, &path, json!({ "url": format!("data:application/zip;base64,{archive}"), "source": "file" })).await;
        res.assert_status(201);
        assert_eq!(res.body["importedResources"], 4, "{}", res.body);
        let content = app.get(&ada, &format!("/v1/spaces/{space}/content")).await;
        let pages = content.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["Release notes", "Handbook", "Legacy", "Team[Onboarding]"]);
        assert_eq!(page_titled(&pages, "Release notes")["description"], "Kept");
        let onboarding = page_titled(&pages, "Onboarding")["id"].as_str().unwrap().to_owned();
        let handbook_md = app.markdown(&ada, &space, page_titled(&pages, "Handbook")["id"].as_str().unwrap()).await;
        assert!(handbook_md.contains(&format!("[onboarding](/pages/{onboarding})")), "{handbook_md}");
        let onboarding_md = app.markdown(&ada, &space, &onboarding).await;
        let badge = content.body["files"][0]["id"].as_str().unwrap();
        assert!(onboarding_md.contains(&format!("![Badge](/files/{badge})")), "{onboarding_md}");
        let legacy = app.markdown(&ada, &space, page_titled(&pages, "Legacy")["id"].as_str().unwrap()).await;
        assert_eq!(legacy, "# Legacy\n\nOld **page**.\n");

        // Bad requests change nothing.
        let revision = content.body["id"].clone();
        for (body, status) in [
            (json!({ "url": "data:text/plain;base64,@@@", "source": "file" }), 400),
            (json!({ "url": "data:application/zip;base64,UEsDBA==", "source": "file" }), 400),
            (json!({ "url": "https://example.com/", "source": "notion" }), 400),
            (json!({ "url": "not a url", "source": "website" }), 400),
            (json!({ "source": "website" }), 400),
        ] {
            let res = app.post(&ada, &path, body.clone()).await;
            assert_eq!(res.status, status, "{body}: {}", res.body);
        }
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["id"], revision);
    }

    #[app(deny_private_fetch)]
    async fn imports_from_private_addresses_are_refused(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Imported", None).await;
        let (base, _server) = site().await;
        let res = app
            .post(&ada, &format!("/v1/spaces/{space}/content/import"), json!({ "url": format!("{base}/docs/"), "source": "website" }))
            .await;
        assert_eq!(res.status, 400, "{}", res.body);
        assert!(res.message().contains("could not be fetched"), "{}", res.body);
        let bea = app.user("Bea").await;
        app.add_member(&ada, &org, &bea, json!("read")).await;
        let res = app
            .post(&bea, &format!("/v1/spaces/{space}/content/import"), json!({ "url": "https://example.com/", "source": "website" }))
            .await;
        assert_eq!(res.status, 403);
    }
}
