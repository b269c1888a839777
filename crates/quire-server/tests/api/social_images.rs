//! A published page's social preview image: its `og:image` leads to a PNG
//! drawn for it, which only readers of the page get.

use serde_json::json;

use crate::published_sites::{docs_site, fetch};
use crate::support::both_backends;

/// The `content` of the meta tag `property` in a page, if any.
fn meta<'a>(page: &'a str, property: &str) -> Option<&'a str> {
    let start = format!("<meta property=\"{property}\" content=\"");
    let rest = &page[page.find(&start)? + start.len()..];
    rest.split('"').next()
}

/// The width and height a PNG's header says.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let number = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (number(16), number(20))
}

both_backends! {
    async fn every_page_has_a_social_image_drawn_for_it(app: TestApp) {
        let (ada, org, site) = docs_site(&app, "public").await;
        let page = fetch(&app, "/docs/setup", &[]).await;
        assert_eq!(page.status, 200);
        let image = meta(&page.body, "og:image").unwrap_or_else(|| panic!("no og:image: {}", page.body)).to_owned();
        let path = image.strip_prefix(&app.base_url).unwrap_or_else(|| panic!("absolute: {image}")).to_owned();
        assert!(path.starts_with("/docs/~gitbook/ogimage/"), "{path}");
        assert_eq!(meta(&page.body, "og:image:width"), Some("1200"));
        assert_eq!(meta(&page.body, "og:image:height"), Some("630"));
        assert_eq!(meta(&page.body, "twitter:card"), Some("summary_large_image"));
        assert_eq!(meta(&page.body, "twitter:image"), Some(image.as_str()));

        let png = fetch(&app, &path, &[]).await;
        assert_eq!(png.status, 200, "{}", png.body);
        assert_eq!(png.content_type, "image/png");
        assert_eq!(png.headers["cache-control"], "public, max-age=86400");
        assert!(png.headers.get("content-encoding").is_none(), "a PNG is not compressed again");
        assert_eq!(png_size(&png.bytes), (1200, 630));
        // Kept: the same image again, and a 304 for whoever holds it.
        let again = fetch(&app, &path, &[("accept-encoding", "gzip, br")]).await;
        assert_eq!(again.bytes, png.bytes);
        assert!(again.headers.get("content-encoding").is_none());
        let etag = again.headers["etag"].to_str().unwrap().to_owned();
        assert_eq!(fetch(&app, &path, &[("if-none-match", &etag)]).await.status, 304);
        // Every page's own, the space's first page at its root too.
        let home = fetch(&app, "/docs/", &[]).await;
        let home_image = meta(&home.body, "og:image").expect("the first page's image").to_owned();
        assert_ne!(home_image, image);
        let other = fetch(&app, home_image.strip_prefix(&app.base_url).unwrap(), &[]).await;
        assert_eq!(png_size(&other.bytes), (1200, 630));
        assert_ne!(other.bytes, png.bytes, "another title, another image");

        // A page the space does not have, or one withheld from the reader
        // (and its subpages), has none.
        assert_eq!(fetch(&app, "/docs/~gitbook/ogimage/nope", &[]).await.status, 404);
        let spaces = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await;
        let guide = spaces.items().iter().find(|s| s["title"] == "Guide").unwrap()["id"].as_str().unwrap().to_owned();
        let tree = app.get(&ada, &format!("/v1/spaces/{guide}/content")).await;
        let setup_id = tree.body["pages"].as_array().unwrap().iter().find(|p| p["title"] == "Setup").unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(path, format!("/docs/~gitbook/ogimage/{setup_id}"));
        let advanced = fetch(&app, "/docs/setup/advanced", &[]).await;
        let advanced_path = meta(&advanced.body, "og:image").unwrap().strip_prefix(&app.base_url).unwrap().to_owned();
        app.publish(
            &ada,
            &guide,
            json!([{ "operation": "update_page", "page": setup_id, "condition": "visitor.claims.unsigned.staff == true" }]),
        )
        .await;
        assert_eq!(fetch(&app, &path, &[]).await.status, 404);
        assert_eq!(fetch(&app, &advanced_path, &[]).await.status, 404);
        let staff = fetch(&app, "/docs/?visitor.staff=true", &[]).await;
        let claims = staff.headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
        let for_staff = fetch(&app, &path, &[("cookie", &claims)]).await;
        assert_eq!((for_staff.status, for_staff.content_type.as_str()), (200, "image/png"));

        // A site's own image replaces the drawn ones.
        app.put(&ada, &format!("{site}/customization"), json!({ "socialPreview": { "url": "https://acme.example/card.png" } }))
            .await
            .assert_status(200);
        let home = fetch(&app, "/docs/", &[]).await;
        assert_eq!(meta(&home.body, "og:image"), Some("https://acme.example/card.png"));
        assert_eq!(meta(&home.body, "og:image:width"), None);
    }

    async fn a_shared_sites_images_stay_with_its_readers(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "share-link").await;
        let link = app.post(&ada, &format!("{site}/share-links"), json!({ "name": "Partners" })).await;
        let url = link.body["urls"]["published"].as_str().unwrap().to_owned();
        let key = url.trim_end_matches('/').rsplit('/').next().unwrap().to_owned();
        let page = fetch(&app, &format!("/docs/{key}/setup"), &[]).await;
        assert_eq!(page.status, 200);
        let image = meta(&page.body, "og:image").expect("an image").to_owned();
        let path = image.strip_prefix(&app.base_url).unwrap().to_owned();
        assert!(path.starts_with(&format!("/docs/{key}/~gitbook/ogimage/")), "{path}");
        let png = fetch(&app, &path, &[]).await;
        assert_eq!((png.status, png.content_type.as_str()), (200, "image/png"));
        assert_eq!(png_size(&png.bytes), (1200, 630));
        // Shared caches do not keep it, and without the key there is none.
        assert_eq!(png.headers["cache-control"], "private, max-age=86400");
        assert_eq!(png.headers["x-robots-tag"], "noindex, nofollow");
        let without_key = path.replacen(&format!("/{key}"), "", 1);
        assert_eq!(fetch(&app, &without_key, &[]).await.status, 404);
    }
}
