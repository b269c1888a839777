//! Files by URL in content batches: `insert_files` with `url` downloads the
//! file through the guarded fetch client. A tiny HTTP server inside each
//! test (on 127.0.0.1) serves the files; the test servers allow loopback
//! fetches, except the one started with `#[app(deny_private_fetch)]`.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{TestApp, TestUser, both_backends};

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00,
    0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// The largest file a batch accepts (1 MB, as for base64).
const LIMIT: usize = 1024 * 1024;

/// The raw HTTP answer for `path`.
fn answer(path: &str) -> Vec<u8> {
    let head =
        |status: &str, headers: &str| format!("HTTP/1.1 {status}\r\n{headers}Connection: close\r\n\r\n").into_bytes();
    let with_body = |mut head: Vec<u8>, body: &[u8]| {
        head.extend_from_slice(body);
        head
    };
    match path {
        "/logo.png" => with_body(
            head(
                "200 OK",
                &format!("Content-Type: image/png\r\nContent-Length: {}\r\n", PNG.len()),
            ),
            PNG,
        ),
        "/notes" => with_body(head("200 OK", "Content-Length: 5\r\n"), b"notes"),
        "/moved" => head("302 Found", "Location: /logo.png\r\nContent-Length: 0\r\n"),
        // One byte over the limit, announced by Content-Length.
        "/big" => with_body(
            head("200 OK", &format!("Content-Length: {}\r\n", LIMIT + 1)),
            &vec![b'x'; LIMIT + 1],
        ),
        // One byte over the limit, with no length: only counting the bytes
        // as they stream in can notice.
        "/big-stream" => with_body(head("200 OK", ""), &vec![b'x'; LIMIT + 1]),
        "/broken" => head("500 Internal Server Error", "Content-Length: 0\r\n"),
        _ => head("404 Not Found", "Content-Length: 0\r\n"),
    }
}

/// Starts the file server on 127.0.0.1; returns its base URL.
async fn file_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let _ = socket.write_all(&answer(path)).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    format!("http://{address}")
}

/// A user, a space and an open change request on it.
async fn setup(app: &TestApp) -> (TestUser, String, String) {
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
    let space = app.space(&ada, &org, "Docs", None).await;
    let cr = app.change_request(&ada, &space, "Files").await;
    (ada, space, cr)
}

fn by_url(name: &str, url: &str) -> Value {
    json!({ "operation": "insert_files", "files": [{ "name": name, "url": url }] })
}

both_backends! {
    async fn files_by_url_are_downloaded(app: TestApp) {
        let server = file_server().await;
        let (ada, space, cr) = setup(&app).await;
        let res = app
            .write(&ada, &space, &cr, json!([
                { "operation": "insert_files", "files": [
                    { "name": "logo.png", "ref": "logo", "url": format!("{server}/logo.png") },
                    { "name": "moved.png", "url": format!("{server}/moved") },
                    { "name": "notes.md", "contentType": "text/markdown", "url": format!("{server}/notes") }
                ] },
                { "operation": "insert_page", "title": "Home", "document": { "markdown": "![Logo](./logo)\n" } }
            ]))
            .await;
        res.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null))
            .await
            .assert_status(200);

        let files = app.get(&ada, &format!("/v1/spaces/{space}/content/files")).await;
        files.assert_status(200);
        let file = |name: &str| {
            files
                .items()
                .iter()
                .find(|f| f["name"] == name)
                .unwrap_or_else(|| panic!("no file {name} in {}", files.body))
                .clone()
        };
        let client = reqwest::Client::new();
        for name in ["logo.png", "moved.png"] {
            let logo = file(name);
            assert_eq!(logo["contentType"], "image/png", "taken from the response's Content-Type");
            assert_eq!(logo["size"], PNG.len());
            assert_eq!(logo["dimensions"], json!({ "width": 1, "height": 1 }));
            let url = logo["downloadURL"].as_str().expect("downloadURL");
            let download = client.get(url).bearer_auth(&ada.token).send().await.expect("download");
            assert_eq!(download.status(), 200);
            assert_eq!(download.headers()["content-type"], "image/png");
            assert_eq!(download.bytes().await.expect("bytes").as_ref(), PNG);
        }
        let notes = file("notes.md");
        assert_eq!(notes["contentType"], "text/markdown", "the body's contentType wins");
        assert_eq!(notes["size"], 5);
        let home = app.get(&ada, &format!("/v1/spaces/{space}/content/pages")).await;
        let home_id = home.body["pages"][0]["id"].as_str().expect("page id").to_owned();
        let md = app.markdown(&ada, &space, &home_id).await;
        assert!(md.contains("![Logo](/files/"), "refs to downloaded files resolve: {md}");
    }

    async fn failed_downloads_reject_the_whole_batch(app: TestApp) {
        let server = file_server().await;
        let (ada, space, cr) = setup(&app).await;
        let head = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await.body["revision"].clone();
        let ok = json!({ "operation": "insert_page", "document": { "markdown": "# Fine\n" } });
        for (path, expected) in [
            ("/missing", "HTTP 404"),
            ("/broken", "HTTP 500"),
            ("/big", "larger than 1048576 bytes"),
            ("/big-stream", "larger than 1048576 bytes"),
        ] {
            let res = app.write(&ada, &space, &cr, json!([ok.clone(), by_url("f.bin", &format!("{server}{path}"))])).await;
            res.assert_status(400);
            assert!(res.message().contains(expected), "{path}: {}", res.message());
            assert!(res.message().contains("changes[1]"), "{path}: {}", res.message());
        }
        // One good file and one bad one in the same change: nothing is added.
        let mixed = app
            .write(&ada, &space, &cr, json!([{ "operation": "insert_files", "files": [
                { "name": "logo.png", "url": format!("{server}/logo.png") },
                { "name": "gone.png", "url": format!("{server}/missing") }
            ] }]))
            .await;
        mixed.assert_status(400);
        for (url, expected) in [
            ("ftp://127.0.0.1/logo.png", "only http and https"),
            ("file:///etc/passwd", "only http and https"),
            ("not a url", "not a valid URL"),
        ] {
            let res = app.write(&ada, &space, &cr, json!([by_url("f.bin", url)])).await;
            res.assert_status(400);
            assert!(res.message().contains(expected), "{url}: {}", res.message());
        }
        let both = app
            .write(&ada, &space, &cr, json!([{ "operation": "insert_files", "files": [
                { "name": "f.png", "url": format!("{server}/logo.png"), "base64": "aGk=", "contentType": "image/png" }
            ] }]))
            .await;
        both.assert_status(400);
        let after = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await;
        assert_eq!(after.body["revision"], head, "no refused batch wrote anything");
        let files = app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/content/files")).await;
        files.assert_status(200);
        assert!(files.items().is_empty(), "{}", files.body);
    }

    #[app(deny_private_fetch)]
    async fn private_addresses_are_refused_unless_allowed(app: TestApp) {
        let server = file_server().await;
        let port = server.rsplit(':').next().expect("port").to_owned();
        let (ada, space, cr) = setup(&app).await;
        for url in [
            format!("{server}/logo.png"),
            format!("http://localhost:{port}/logo.png"),
            format!("http://[::1]:{port}/logo.png"),
            "http://10.0.0.1/logo.png".to_owned(),
            "http://169.254.169.254/latest/meta-data/".to_owned(),
        ] {
            let res = app.write(&ada, &space, &cr, json!([by_url("logo.png", &url)])).await;
            res.assert_status(400);
            assert!(res.message().contains("private networks"), "{url}: {}", res.message());
            assert!(res.message().contains("--allow-private-fetch"), "{url}: {}", res.message());
        }
        // Files sent inline still work.
        app.write(&ada, &space, &cr, json!([{ "operation": "insert_files", "files": [
            { "name": "a.txt", "contentType": "text/plain", "base64": "aGk=" }
        ] }]))
        .await
        .assert_status(200);
    }
}
