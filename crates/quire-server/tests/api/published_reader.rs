//! What a reader of a published site finds besides the page itself: a
//! search over every section and variant that narrows to one and opens the
//! heading that matched, the date a page was last updated, a page tree that
//! folds, the page as a PDF of what this reader may read, and the site's
//! tint and header colours.

use serde_json::json;

use crate::pdf::poppler;
use crate::published_sites::{docs_site, fetch};
use crate::support::both_backends;

/// The value of the first `attribute="…"` after `after` in `html`.
fn attribute_after(html: &str, after: &str, attribute: &str) -> String {
    let at = html.find(after).unwrap_or_else(|| panic!("{after} not in {html}"));
    let start = html[at..].find(&format!("{attribute}=\"")).unwrap() + at + attribute.len() + 2;
    html[start..start + html[start..].find('"').unwrap()].replace("&amp;", "&")
}

both_backends! {
    async fn a_search_spans_the_site_and_narrows_to_a_space(app: TestApp) {
        docs_site(&app, "public").await;
        // From the Guide, a word only the API space has is found, labelled
        // with where it is.
        let everywhere = fetch(&app, "/docs/?q=token", &[]).await;
        assert_eq!(everywhere.status, 200);
        assert!(everywhere.body.contains(">Authentication</a><span class=\"place\">API</span>"), "{}", everywhere.body);
        // The scopes: the whole site (current), then each space.
        assert!(everywhere.body.contains("<nav class=\"scopes\""), "{}", everywhere.body);
        assert!(everywhere.body.contains("href=\"/docs/?q=token\" aria-current=\"true\">Everywhere</a>"), "{}", everywhere.body);
        assert!(everywhere.body.contains("href=\"/docs/api/?q=token&amp;scope=space\">API</a>"), "{}", everywhere.body);
        // Narrowed to the Guide, it is not there; narrowed to the API, it is.
        let guide = fetch(&app, "/docs/?q=token&scope=space", &[]).await;
        assert!(!guide.body.contains(">Authentication</a>") && !guide.body.contains("<ul class=\"results\">"), "{}", guide.body);
        assert!(guide.body.contains("href=\"/docs/?q=token&amp;scope=space\" aria-current=\"true\">Guide</a>"), "{}", guide.body);
        let api = fetch(&app, "/docs/api/?q=token&scope=space", &[]).await;
        assert!(api.body.contains(">Authentication</a>") && !api.body.contains("class=\"place\""), "{}", api.body);
        // A result that matched under a heading opens that heading.
        let heading = fetch(&app, "/docs/?q=install", &[]).await;
        assert!(heading.body.contains("href=\"/docs/introduction#install-the-configuration\">Introduction</a>"), "{}", heading.body);
        // The search box of a space's page searches from that space (its
        // results keep the reader's navigation).
        let api_page = fetch(&app, "/docs/api/", &[]).await;
        assert!(api_page.body.contains("<form class=\"search\" role=\"search\" action=\"/docs/api/\""), "{}", api_page.body);
        // A query that is not one is a 400, as before.
        let long = "a".repeat(600);
        assert_eq!(fetch(&app, &format!("/docs/?q={long}"), &[]).await.status, 400);
    }
}

both_backends! {
    async fn pages_say_when_they_were_updated_and_fold_their_subpages(app: TestApp) {
        let (ada, org, _site) = docs_site(&app, "public").await;
        let intro = fetch(&app, "/docs/", &[]).await;
        let year = &chrono_year();
        assert!(intro.body.contains(&format!("<p class=\"updated\">Last updated <time datetime=\"{year}")), "{}", intro.body);
        // Setup's subpage is listed, folded while the reader is elsewhere,
        // unfolded under it.
        assert!(intro.body.contains("<details><summary aria-label=\"Pages under Setup\"></summary><ul><li><a class=\"page\" href=\"/docs/setup/advanced\">Advanced</a>"), "{}", intro.body);
        let deep = fetch(&app, "/docs/setup/advanced", &[]).await;
        assert!(deep.body.contains("<details open><summary aria-label=\"Pages under Setup\"></summary>"), "{}", deep.body);
        // A page whose front matter hides its metadata has no date.
        let space = app.space(&ada, &org, "Quiet", None).await;
        app.publish(&ada, &space, json!([{ "operation": "insert_page", "title": "Still", "document": { "markdown": "---\nlayout:\n  metadata:\n    visible: false\n---\n\nNo date here.\n" } }])).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Quiet", "visibility": "public", "spaces": [space] })).await;
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let still = fetch(&app, "/quiet/", &[]).await;
        assert!(still.body.contains("No date here.") && !still.body.contains("class=\"updated\""), "{}", still.body);
    }
}

/// The current year, as the pages' dates begin.
fn chrono_year() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    // Days since the epoch to a civil year (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2)).to_string()
}

both_backends! {
    async fn the_pdf_action_gives_the_page_as_this_reader_reads_it(app: TestApp) {
        let (ada, org, _site) = docs_site(&app, "public").await;
        let spaces = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await;
        let guide = spaces.items().iter().find(|s| s["title"] == "Guide").unwrap()["id"].as_str().unwrap().to_owned();
        let tree = app.get(&ada, &format!("/v1/spaces/{guide}/content")).await;
        let setup = tree.body["pages"].as_array().unwrap().iter().find(|p| p["title"] == "Setup").unwrap()["id"].as_str().unwrap().to_owned();
        app.publish(
            &ada,
            &guide,
            json!([{ "operation": "update_page", "page": setup, "document": { "markdown": "# Setup\n\nFor everyone.\n\n{% if visitor.claims.unsigned.staff == true %}\n## Staff notes\n\nThe vault combination.\n{% endif %}\n" } }]),
        )
        .await;
        let page = fetch(&app, "/docs/setup", &[]).await;
        let href = attribute_after(&page.body, "<a href=\"/docs/~gitbook/pdf", "href");
        assert_eq!(href, format!("/docs/~gitbook/pdf?page={setup}&only=yes"));
        assert!(page.body.contains("type=\"application/pdf\">Export as PDF</a>"), "{}", page.body);
        let pdf = fetch(&app, &href, &[]).await;
        assert_eq!(pdf.status, 200, "{}", pdf.body);
        assert_eq!(pdf.content_type, "application/pdf");
        assert!(pdf.headers["content-disposition"].to_str().unwrap().starts_with("inline"));
        let text = poppler("pdftotext", &[], &pdf.bytes);
        assert!(text.contains("For everyone.") && !text.contains("vault") && !text.contains("Staff notes"), "{text}");
        // A reader the condition admits gets the block, in a PDF of their own.
        let staff = fetch(&app, "/docs/?visitor.staff=true", &[]).await;
        let claims = staff.headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
        let theirs = fetch(&app, &href, &[("cookie", &claims)]).await;
        assert_eq!(theirs.status, 200);
        assert!(poppler("pdftotext", &[], &theirs.bytes).contains("The vault combination."));
        // And the anonymous reader still gets theirs, not the staff one.
        let again = fetch(&app, &href, &[]).await;
        assert!(!poppler("pdftotext", &[], &again.bytes).contains("vault"));
        // The whole space, and pages that do not exist.
        let whole = fetch(&app, "/docs/~gitbook/pdf", &[]).await;
        assert_eq!(whole.status, 200);
        let all = poppler("pdftotext", &[], &whole.bytes);
        assert!(all.contains("Introduction") && all.contains("Advanced"), "{all}");
        assert_eq!(fetch(&app, "/docs/~gitbook/pdf?page=nope", &[]).await.status, 404);
        // A site that turns the action off shows no link.
        let site = app.get(&ada, &format!("/v1/orgs/{org}/sites")).await.items()[0]["id"].as_str().unwrap().to_owned();
        app.put(&ada, &format!("/v1/orgs/{org}/sites/{site}/customization"), json!({ "pageActions": { "items": ["markdown"] } }))
            .await
            .assert_status(200);
        let plain = fetch(&app, "/docs/setup", &[]).await;
        assert!(!plain.body.contains("~gitbook/pdf"), "{}", plain.body);
        // Without an assistant configured, the assistant item never shows.
        assert!(!page.body.contains("class=\"ask-page\""), "{}", page.body);
    }
}

both_backends! {
    async fn tint_and_header_presets_colour_the_site(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "public").await;
        let plain = fetch(&app, "/docs/", &[]).await;
        assert!(!plain.body.contains(":root{--tint:") && !plain.body.contains(" data-header=\"") && !plain.body.contains(" data-tint=\""), "defaults add nothing");
        app.put(&ada, &format!("{site}/customization"), json!({
            "styling": { "tint": { "color": { "light": "#0B3D91", "dark": "#5B8DEF" } } },
            "header": { "preset": "custom", "backgroundColor": { "light": "#102030", "dark": "#203040" }, "linkColor": { "light": "#FFEEDD", "dark": "#EEDDCC" } }
        }))
        .await
        .assert_status(200);
        let custom = fetch(&app, "/docs/", &[]).await;
        assert!(custom.body.contains(" data-header=\"custom\"") && custom.body.contains(" data-tint=\"on\""), "{}", custom.body);
        assert!(custom.body.contains(":root{--tint:#0B3D91;--header-bg:#102030;--header-fg:#FFEEDD}"), "{}", custom.body);
        assert!(custom.body.contains(":root[data-theme=dark]{--tint:#5B8DEF;--header-bg:#203040;--header-fg:#EEDDCC}"), "{}", custom.body);
        // Bold: the tint's colour, with text that reads on it.
        app.put(&ada, &format!("{site}/customization"), json!({
            "styling": { "tint": { "color": { "light": "#0B3D91", "dark": "#5B8DEF" } } },
            "header": { "preset": "bold" }
        }))
        .await
        .assert_status(200);
        let bold = fetch(&app, "/docs/", &[]).await;
        assert!(bold.body.contains("--header-bg:#0B3D91;--header-fg:#ffffff"), "{}", bold.body);
        // A colour that is none is refused, naming the field, and nothing changes.
        let refused = app
            .put(&ada, &format!("{site}/customization"), json!({ "styling": { "tint": { "color": { "light": "red;}", "dark": "#000" } } } }))
            .await;
        refused.assert_status(400);
        assert!(refused.body["error"]["message"].as_str().unwrap().starts_with("styling.tint.color.light"), "{}", refused.body);
        assert!(fetch(&app, "/docs/", &[]).await.body.contains("--tint:#0B3D91"));
    }
}
