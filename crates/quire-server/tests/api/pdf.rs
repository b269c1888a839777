//! PDFs of spaces and change requests over HTTP: the download link, what
//! the PDF holds (read back with poppler's `pdftotext`, `pdfinfo`,
//! `pdffonts`, `pdfimages` and `pdftohtml`), caching by revision, one page
//! or a page with its subpages, embedded OpenAPI operations, bad requests,
//! hostile images (too many pixels, SVGs linking files).

use std::process::Command;

use base64::Engine as _;
use serde_json::{Value, json};

#[path = "../../../quire-pdf/tests/support/images.rs"]
pub(crate) mod images;

use images::{huge_png, listed_images};

use crate::openapi::PETS;
use crate::support::{TestApp, TestUser, both_backends};

const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00,
    0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// Runs a poppler tool on the PDF.
pub(crate) fn poppler(tool: &str, args: &[&str], pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("space.pdf");
    std::fs::write(&path, pdf).expect("write the PDF");
    let mut command = Command::new(tool);
    command.args(args).arg(&path);
    if tool == "pdftotext" {
        command.arg("-");
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{tool} (poppler-utils) must be installed: {e}"));
    assert!(out.status.success(), "{tool}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn info_field(info: &str, name: &str) -> String {
    info.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(':')))
        .map(|v| v.trim().to_owned())
        .unwrap_or_default()
}

/// Asks for a PDF; its download URL.
pub(crate) async fn pdf_url(app: &TestApp, user: &TestUser, path: &str) -> String {
    let res = app.get(user, path).await;
    res.assert_status(200);
    res.body["url"].as_str().expect("a url").to_owned()
}

/// Downloads a PDF without a token.
pub(crate) async fn download(url: &str) -> (u16, Vec<u8>, Option<String>) {
    let res = reqwest::get(url).await.expect("download");
    let status = res.status().as_u16();
    let disposition = res
        .headers()
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, res.bytes().await.expect("bytes").to_vec(), disposition)
}

/// How many PDFs were made (and kept).
async fn stored_pdfs(app: &TestApp) -> i64 {
    let mut conn = app.db.read().await.expect("a connection");
    sqlx::query_scalar("SELECT COUNT(*) FROM pdfs")
        .fetch_one(&mut *conn)
        .await
        .expect("count PDFs")
}

/// A space: a guide with a nested page, a table, an image, code, CJK text,
/// links between pages and an embedded operation.
async fn handbook(app: &TestApp, ada: &TestUser) -> (String, String, Value) {
    let org = app.org(ada, "Acme").await;
    app.post(
        ada,
        &format!("/v1/orgs/{org}/openapi"),
        json!({ "slug": "pets", "source": { "text": PETS } }),
    )
    .await
    .assert_status(201);
    app.run_due_jobs().await;
    let space = app.space(ada, &org, "Handbook", None).await;
    let image = base64::engine::general_purpose::STANDARD.encode(PNG);
    let cr = app.change_request(ada, &space, "Pages").await;
    let res = app
        .post(
            ada,
            &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
            json!({ "changes": [
                { "operation": "insert_files", "files": [{ "name": "logo.png", "ref": "logo", "contentType": "image/png", "base64": image }] },
                { "operation": "insert_page", "ref": "guide", "title": "Guide", "document": { "markdown": "Start with [the install](./install.md) and read [the API](https://example.com/api).\n\n![The logo](./logo)\n\n| Flag | Meaning |\n|---|---|\n| `--listen` | address to listen on |\n\n## Limits\n\nNone worth noting.\n" } },
                { "operation": "insert_page", "ref": "install", "into": "guide", "title": "Install", "document": { "markdown": "```bash\ncargo install quire --locked\n```\n\nBack to [the limits](./guide.md#limits).\n" } },
                { "operation": "insert_page", "ref": "cjk", "title": "多言語", "document": { "markdown": "中文文本和日本語のテキスト。\n" } },
                { "operation": "insert_page", "ref": "api", "title": "API", "document": { "markdown": "{% openapi-operation spec=\"pets\" path=\"/pets\" method=\"get\" %}\n{% endopenapi-operation %}\n" } }
            ] }),
        )
        .await;
    res.assert_status(200);
    app.post(
        ada,
        &format!("/v1/spaces/{space}/change-requests/{cr}/merge"),
        json!(null),
    )
    .await
    .assert_status(200);
    let mut ids = json!({});
    for change in res.body["changes"].as_array().into_iter().flatten() {
        if let Some(name) = change["ref"].as_str() {
            ids[name] = change["page"]["id"].clone();
        }
    }
    (org, space, ids)
}

/// A space of one page showing `files` (name, content type, bytes) as
/// `markdown` refers to them (`./{name without extension}`).
async fn space_showing(app: &TestApp, ada: &TestUser, files: &[(&str, &str, &[u8])], markdown: &str) -> String {
    let org = app.org(ada, "Acme").await;
    let space = app.space(ada, &org, "Figures", None).await;
    let cr = app.change_request(ada, &space, "Figures").await;
    let files: Vec<Value> = files
        .iter()
        .map(|(name, content_type, bytes)| {
            json!({
                "name": name,
                "ref": name.split('.').next().unwrap_or(name),
                "contentType": content_type,
                "base64": base64::engine::general_purpose::STANDARD.encode(bytes),
            })
        })
        .collect();
    app.post(
        ada,
        &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
        json!({ "changes": [
            { "operation": "insert_files", "files": files },
            { "operation": "insert_page", "ref": "figures", "title": "Figures", "document": { "markdown": markdown } }
        ] }),
    )
    .await
    .assert_status(200);
    app.post(
        ada,
        &format!("/v1/spaces/{space}/change-requests/{cr}/merge"),
        json!(null),
    )
    .await
    .assert_status(200);
    space
}

/// The images (not masks) `pdfimages -list` finds: width and height.
pub(crate) fn images_of(pdf: &[u8]) -> Vec<(u32, u32)> {
    listed_images(&poppler("pdfimages", &["-list"], pdf))
}

both_backends! {
    async fn a_space_pdf_holds_its_pages_with_contents_outline_and_links(app: TestApp) {
        let ada = app.user("Ada").await;
        let (_, space, ids) = handbook(&app, &ada).await;
        let url = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await;
        assert!(url.starts_with(&format!("{}/~pdf/", app.base_url)), "{url}");
        let (status, pdf, disposition) = download(&url).await;
        assert_eq!(status, 200);
        assert!(pdf.starts_with(b"%PDF-"));
        assert_eq!(disposition.as_deref(), Some("inline; filename=\"handbook.pdf\""));

        let info = poppler("pdfinfo", &[], &pdf);
        assert_eq!(info_field(&info, "Title"), "Handbook");
        let pages: usize = info_field(&info, "Pages").parse().unwrap();
        assert!(pages >= 4, "a title page, contents, then the pages: {info}");

        let text = poppler("pdftotext", &["-layout"], &pdf);
        let contents = text.find("Contents").expect("a table of contents");
        for title in ["Guide", "Install", "多言語", "API"] {
            assert!(text[contents..].contains(title), "{title} in {text}");
        }
        assert!(text.contains("cargo install quire --locked"), "code: {text}");
        assert!(text.contains("--listen") && text.contains("address to listen on"), "the table: {text}");
        assert!(text.contains("中文文本和日本語のテキスト。"), "CJK: {text}");
        // The embedded operation, from the spec's latest version.
        assert!(text.contains("GET") && text.contains("/pets") && text.contains("List pets"), "{text}");
        assert!(text.contains("limit") && text.contains("The pets"), "parameters and responses: {text}");
        // Tree order: the guide, its subpage, then the others.
        let at = |needle: &str| text.rfind(needle).unwrap_or_else(|| panic!("{needle} in {text}"));
        assert!(at("cargo install") > at("None worth noting") && at("中文文本") > at("cargo install"));

        let fonts = poppler("pdffonts", &[], &pdf);
        assert!(fonts.contains("CJK"), "a CJK font is embedded: {fonts}");
        assert!(fonts.contains("DejaVuSansMono"), "code in a monospace font: {fonts}");
        let images = poppler("pdfimages", &["-list"], &pdf);
        assert!(images.lines().skip(2).any(|l| l.split_whitespace().nth(2) == Some("image")), "{images}");

        let xml = poppler("pdftohtml", &["-xml", "-stdout", "-i", "-q"], &pdf);
        let outline = &xml[xml.find("<outline>").expect("bookmarks")..];
        for entry in ["Guide</item>", "Limits</item>", "Install</item>", "多言語</item>", "API</item>"] {
            assert!(outline.contains(entry), "{entry} in {outline}");
        }
        let href = |text: &str| {
            xml.lines()
                .find(|l| l.contains(&format!(">{text}</a>")))
                .and_then(|l| l.split("href=\"").nth(1))
                .and_then(|h| h.split('"').next())
                .map(str::to_owned)
        };
        let install_page = outline
            .lines()
            .find(|l| l.contains(">Install</item>"))
            .and_then(|l| l.split("page=\"").nth(1))
            .and_then(|p| p.split('"').next())
            .unwrap()
            .to_owned();
        assert_eq!(href("the install"), Some(format!("space.html#{install_page}")), "an internal link: {xml}");
        assert!(href("the limits").is_some_and(|h| h.starts_with("space.html#")), "to a heading: {xml}");
        assert_eq!(href("the API").as_deref(), Some("https://example.com/api"));

        // The same revision again: the same PDF, not made twice; a new link.
        let again = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await;
        assert_ne!(again, url);
        assert_eq!(download(&again).await.1, pdf);
        assert_eq!(stored_pdfs(&app).await, 1);

        // One page only, and a page with its subpages.
        let guide = ids["guide"].as_str().unwrap();
        let only = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf?only=true&page={guide}")).await;
        let (_, one, disposition) = download(&only).await;
        assert_eq!(disposition.as_deref(), Some("inline; filename=\"guide.pdf\""));
        let one_text = poppler("pdftotext", &[], &one);
        assert!(one_text.contains("None worth noting") && !one_text.contains("cargo install"), "{one_text}");
        assert!(!one_text.contains("Contents"), "a single page has no table of contents");
        let subtree = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf?page={guide}")).await;
        let subtree_text = poppler("pdftotext", &[], &download(&subtree).await.1);
        assert!(subtree_text.contains("cargo install") && !subtree_text.contains("中文文本"), "{subtree_text}");
        assert_eq!(stored_pdfs(&app).await, 3);
        let cjk = ids["cjk"].as_str().unwrap();
        let (_, _, disposition) = download(&pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf?only=true&page={cjk}")).await).await;
        assert_eq!(
            disposition.as_deref(),
            Some("inline; filename=\"___.pdf\"; filename*=UTF-8''%E5%A4%9A%E8%A8%80%E8%AA%9E.pdf")
        );

        // The link stops working after an hour.
        app.clock.advance_millis(60 * 60 * 1000 + 1);
        assert_eq!(download(&url).await.0, 404);
    }

    async fn change_request_pdfs_show_the_draft_and_new_spec_versions_update_pdfs(app: TestApp) {
        let ada = app.user("Ada").await;
        let (org, space, ids) = handbook(&app, &ada).await;
        let first = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await;
        let first_pdf = download(&first).await.1;
        let cr = app.change_request(&ada, &space, "Draft").await;
        let install = ids["install"].as_str().unwrap();
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"), json!({ "changes": [
            { "operation": "update_page", "page": install, "document": { "markdown": "A draft paragraph.\n" } }
        ] })).await.assert_status(200);
        let draft = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/change-requests/{cr}/pdf")).await;
        let draft_text = poppler("pdftotext", &[], &download(&draft).await.1);
        assert!(draft_text.contains("A draft paragraph.") && !draft_text.contains("cargo install"), "{draft_text}");
        let main_text = poppler("pdftotext", &[], &download(&pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await).await.1);
        assert!(main_text.contains("cargo install"), "main is unchanged: {main_text}");

        // A new version of the embedded spec makes a new PDF.
        app.put(&ada, &format!("/v1/orgs/{org}/openapi/pets"), json!({ "source": { "text": PETS.replace("List pets", "List every pet") } }))
            .await
            .assert_status(200);
        app.run_due_jobs().await;
        let updated = pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await;
        let updated_pdf = download(&updated).await.1;
        assert_ne!(updated_pdf, first_pdf);
        assert!(poppler("pdftotext", &[], &updated_pdf).contains("List every pet"));
    }

    async fn bad_pdf_requests_are_refused(app: TestApp) {
        let ada = app.user("Ada").await;
        let (org, space, _) = handbook(&app, &ada).await;
        let res = app.get(&ada, &format!("/v1/spaces/{space}/pdf?only=true")).await;
        res.assert_status(400);
        assert!(res.message().contains("page"), "{}", res.body);
        app.get(&ada, &format!("/v1/spaces/{space}/pdf?page=nope")).await.assert_status(404);
        app.get(&ada, &format!("/v1/spaces/{space}/pdf?only=maybe")).await.assert_status(400);
        app.get(&ada, &format!("/v1/spaces/{space}/pdf?size=a4")).await.assert_status(400);
        app.get(&ada, "/v1/spaces/nope/pdf").await.assert_status(404);
        app.get(&ada, &format!("/v1/spaces/{space}/change-requests/999/pdf")).await.assert_status(404);
        let bea = app.user("Bea").await;
        let res = app.get(&bea, &format!("/v1/spaces/{space}/pdf")).await;
        assert!(res.status == 403 || res.status == 404, "{}", res.status);
        app.request(reqwest::Method::GET, &format!("/v1/spaces/{space}/pdf")).send().await.assert_status(401);
        // Readers may.
        app.add_member(&ada, &org, &bea, json!("read")).await;
        app.get(&bea, &format!("/v1/spaces/{space}/pdf")).await.assert_status(200);
        assert_eq!(download(&format!("{}/~pdf/not-a-token", app.base_url)).await.0, 404);
        assert_eq!(stored_pdfs(&app).await, 1, "refused requests made nothing");
    }

    async fn images_of_too_many_pixels_show_their_alternative_text(app: TestApp) {
        let ada = app.user("Ada").await;
        // 900 megapixels (900 MB decoded) in under 1 MiB, the most a file
        // sent inline may have.
        let huge = huge_png(30_000);
        assert!(huge.len() < 1024 * 1024, "under the file size limits: {} bytes", huge.len());
        let space = space_showing(
            &app,
            &ada,
            &[("huge.png", "image/png", &huge), ("huge2.png", "image/png", &huge), ("logo.png", "image/png", PNG)],
            "Before.\n\n![Huge diagram](./huge)\n\n![Huge again](./huge2)\n\n![The logo](./logo)\n\nAfter.\n",
        )
        .await;
        let pdf = download(&pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await).await.1;
        assert!(pdf.starts_with(b"%PDF-"));
        let text = poppler("pdftotext", &[], &pdf);
        assert!(text.contains("[image: Huge diagram]") && text.contains("[image: Huge again]"), "{text}");
        assert!(text.contains("Before.") && text.contains("After."), "{text}");
        assert_eq!(images_of(&pdf), vec![(1, 1)], "only the logo, no giant image");
    }

    async fn an_svg_linking_images_makes_a_pdf_without_them(app: TestApp) {
        let ada = app.user("Ada").await;
        let embedded = base64::engine::general_purpose::STANDARD.encode(PNG);
        let svg = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100" viewBox="0 0 200 100">
  <rect x="1" y="1" width="198" height="98" fill="none" stroke="black"/>
  <image href="img.png" x="10" y="10" width="50" height="50"/>
  <image xlink:href="file:///etc/passwd" x="10" y="10" width="50" height="50"/>
  <image href="data:image/png;base64,{embedded}" x="120" y="10" width="50" height="50"/>
  <text x="70" y="50" font-size="14">Diagram label</text>
</svg>"#
        );
        let space = space_showing(
            &app,
            &ada,
            &[("diagram.svg", "image/svg+xml", svg.as_bytes())],
            "![The diagram](./diagram)\n\nBelow it.\n",
        )
        .await;
        let res = app.get(&ada, &format!("/v1/spaces/{space}/pdf")).await;
        res.assert_status(200);
        let url = res.body["url"].as_str().expect("a url");
        let (status, pdf, _) = download(url).await;
        assert_eq!(status, 200);
        let info = poppler("pdfinfo", &[], &pdf);
        assert_eq!(info_field(&info, "Pages"), "1", "{info}");
        let text = poppler("pdftotext", &[], &pdf);
        assert!(text.contains("Diagram label") && text.contains("Below it."), "{text}");
        assert!(!text.contains("[image: The diagram]"), "the SVG is shown: {text}");
        assert_eq!(images_of(&pdf), vec![(1, 1)], "the embedded image is kept");
    }
}
