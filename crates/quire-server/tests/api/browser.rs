//! A published site in a real browser: headless Chromium driven through
//! WebDriver (Debian's `chromium` and `chromium-driver`, installed by
//! `.ci/run`). It opens a page, follows a navigation link, searches,
//! switches the theme, checks what a page-speed audit would (no
//! render-blocking script, images with their size), and saves screenshots
//! at desktop and mobile width under `target/browser-artifacts/`. A long
//! French page checks reading: the tree and outline stay in view, code
//! blocks copy, the phone menu opens the tree, every control has a name.
//! A page of GitBook's blocks lays out: cards in a row that link as a
//! whole, numbered steps, columns side by side, stacking on a phone. An
//! uploaded HTML or SVG file opened by the organization's owner never runs
//! on the web application's origin.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::support::both_backends;

/// A chromedriver process, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
    http: reqwest::Client,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    async fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (Debian package chromium-driver; .ci/run installs it)");
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(res) = driver.http.get(format!("{}/status", driver.url)).send().await
                && res.status().is_success()
            {
                return driver;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self.http.request(method.clone(), format!("{}{path}", self.url));
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = res.status();
        let value: Value = res.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{method} {path}: {status} {value}");
        value["value"].clone()
    }
}

/// A browser session.
struct Browser<'a> {
    driver: &'a Driver,
    session: String,
}

impl Browser<'_> {
    async fn open(driver: &Driver) -> Browser<'_> {
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]
            }
        } } });
        let value = driver.call(reqwest::Method::POST, "/session", Some(caps)).await;
        Browser {
            driver,
            session: value["sessionId"].as_str().expect("session id").to_owned(),
        }
    }

    async fn cmd(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        self.driver
            .call(method, &format!("/session/{}{path}", self.session), body)
            .await
    }

    async fn go(&self, url: &str) {
        self.cmd(reqwest::Method::POST, "/url", Some(json!({ "url": url })))
            .await;
    }

    async fn run(&self, script: &str) -> Value {
        self.cmd(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
        .await
    }

    async fn find(&self, css: &str) -> String {
        let found = self
            .cmd(
                reqwest::Method::POST,
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_owned()
    }

    async fn click(&self, css: &str) {
        let id = self.find(css).await;
        self.cmd(reqwest::Method::POST, &format!("/element/{id}/click"), Some(json!({})))
            .await;
    }

    async fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.cmd(
            reqwest::Method::POST,
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    /// Waits until `script` returns true (pages load asynchronously).
    async fn until(&self, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.run(script).await != Value::Bool(true) {
            assert!(Instant::now() < deadline, "timed out waiting for: {script}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn screenshot(&self, name: &str) -> usize {
        let png = self.cmd(reqwest::Method::GET, "/screenshot", None).await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().expect("base64 screenshot"))
            .expect("a PNG");
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-artifacts");
        std::fs::create_dir_all(&dir).expect("artifact directory");
        std::fs::write(dir.join(name), &bytes).expect("write the screenshot");
        bytes.len()
    }

    /// The accessible names of the shown elements `css` matches, as the
    /// browser computes them, with each element's HTML.
    async fn labels(&self, css: &str) -> Vec<(String, String)> {
        let found = self
            .cmd(
                reqwest::Method::POST,
                "/elements",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        let mut labels = Vec::new();
        for element in found.as_array().into_iter().flatten() {
            let Some(id) = element
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
            else {
                continue;
            };
            let shown = self
                .cmd(reqwest::Method::GET, &format!("/element/{id}/displayed"), None)
                .await;
            if shown != Value::Bool(true) {
                continue;
            }
            let label = self
                .cmd(reqwest::Method::GET, &format!("/element/{id}/computedlabel"), None)
                .await;
            let html = self
                .cmd(reqwest::Method::GET, &format!("/element/{id}/property/outerHTML"), None)
                .await;
            labels.push((
                label.as_str().unwrap_or_default().to_owned(),
                html.as_str().unwrap_or_default().to_owned(),
            ));
        }
        labels
    }

    async fn resize(&self, width: u32, height: u32) {
        self.cmd(
            reqwest::Method::POST,
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        )
        .await;
    }

    async fn close(self) {
        self.driver
            .call(reqwest::Method::DELETE, &format!("/session/{}", self.session), None)
            .await;
    }
}

both_backends! {
    async fn a_reader_navigates_searches_and_switches_theme_in_chromium(app: TestApp) {
        let (_ada, _org, _site) = crate::published_sites::docs_site(&app, "public").await;
        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        browser.go(&format!("{}/docs/", app.base_url)).await;
        browser.until("return document.querySelector('h1') !== null").await;
        assert_eq!(browser.run("return document.querySelector('article h1').textContent").await, "Introduction");
        assert_eq!(browser.run("return document.title").await, "Introduction | Docs");

        // What a page-speed audit checks: no script that blocks rendering,
        // no image without its size (no layout shift), nothing else to load.
        assert_eq!(browser.run("return document.querySelectorAll('head script[src], link[rel=stylesheet]').length").await, 0);
        assert_eq!(browser.run("return [...document.images].filter(i => !i.getAttribute('width') || !i.getAttribute('height')).length").await, 0);
        browser.until("return [...document.images].filter(i => i.complete && i.naturalWidth > 0).length === 1").await;

        // Follow a navigation link.
        browser.click("nav.tree a[href='/docs/setup']").await;
        browser.until("return location.pathname === '/docs/setup' && document.querySelector('article h1').textContent === 'Setup'").await;
        // The file's `# Setup` is the page's title, shown once.
        assert_eq!(browser.run("return document.querySelectorAll('article h1, article h2, article h3').length").await, 1);
        browser.go(&format!("{}/docs/", app.base_url)).await;
        browser.until("return document.querySelector('.outline a') !== null").await;
        assert_eq!(
            browser.run("return document.querySelector('.outline a').getAttribute('href')").await,
            "#install-the-configuration"
        );
        browser.click("nav.tree a[href='/docs/setup']").await;
        browser.until("return location.pathname === '/docs/setup'").await;

        let port = app.base_url.rsplit(':').next().unwrap_or("0").to_owned();
        assert!(browser.screenshot(&format!("site-desktop-{port}.png")).await > 1000);

        // Search as you type: results appear under the box.
        browser.type_into("form.search input[name=q]", "configur").await;
        browser.until("var b = document.querySelector('.suggest'); return !!b && !b.hidden && b.querySelectorAll('li').length > 0").await;
        assert_eq!(browser.run("return location.pathname").await, "/docs/setup", "typing does not leave the page");
        browser.run("document.querySelector('form.search input').value = ''; return true").await;

        // Search from the header box.
        browser.type_into("form.search input[name=q]", "configuration\u{E007}").await;
        browser.until("return document.querySelector('ul.results') !== null").await;
        let titles = browser.run("return [...document.querySelectorAll('ul.results li > a')].map(a => a.textContent).join(',')").await;
        assert!(titles.as_str().unwrap().contains("Setup"), "{titles}");

        // Switch the theme: the reader's choice is kept.
        let before = browser.run("return getComputedStyle(document.body).backgroundColor").await;
        browser.click("#theme").await;
        browser.until("return !!document.documentElement.dataset.theme").await;
        let after = browser.run("return getComputedStyle(document.body).backgroundColor").await;
        assert_ne!(before, after, "the background changes with the theme");
        assert_eq!(
            browser.run("return localStorage.getItem('quire-theme') === document.documentElement.dataset.theme").await,
            true
        );

        // A screenshot at mobile width too.
        browser
            .cmd(reqwest::Method::POST, "/window/rect", Some(json!({ "width": 390, "height": 844 })))
            .await;
        browser.go(&format!("{}/docs/setup", app.base_url)).await;
        browser.until("return document.querySelector('article h1') !== null").await;
        assert_eq!(browser.run("return document.documentElement.scrollWidth <= window.innerWidth + 1").await, true, "no sideways scrolling on a phone");
        assert!(browser.screenshot(&format!("site-mobile-{port}.png")).await > 1000);
        browser.close().await;
    }
}

/// Whether the element `css` is shown and inside the viewport (script text).
fn in_view(css: &str) -> String {
    format!(
        "var e = document.querySelector({}); if (!e) return false; var r = e.getBoundingClientRect(); \
         return getComputedStyle(e).display !== 'none' && r.width > 0 && r.top >= 0 && r.top < innerHeight && r.bottom > 0",
        Value::from(css)
    )
}

both_backends! {
    async fn a_reader_of_a_long_french_page_keeps_the_tree_copies_code_and_opens_the_phone_menu(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Guide", None).await;
        let mut long = String::from("Une longue page.\n\n```rust\nfn main() { println!(\"bonjour\"); }\n```\n\n```\nsans langage\n```\n\n");
        for i in 1..=30 {
            long.push_str(&format!("## Partie {i}\n\nUn paragraphe assez long pour remplir la page, encore et encore, au fil de la lecture.\n\nEt un autre, pour que la page soit vraiment longue.\n\n"));
        }
        let mut pages = vec![json!({ "operation": "insert_page", "ref": "long", "title": "Longue page", "document": { "markdown": long } })];
        for i in 1..=12 {
            pages.push(json!({ "operation": "insert_page", "title": format!("Chapitre {i}"), "document": { "markdown": "Court.\n" } }));
        }
        app.publish(&ada, &space, json!(pages)).await;
        let site = app
            .post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Guide", "visibility": "public", "spaces": [space] }))
            .await;
        site.assert_status(201);
        let path = format!("/v1/orgs/{org}/sites/{}", site.id());
        app.put(&ada, &format!("{path}/customization"), json!({ "internationalization": { "locale": "fr" } }))
            .await
            .assert_status(200);
        app.post(&ada, &format!("{path}/publish"), json!(null)).await.assert_status(200);

        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        let port = app.base_url.rsplit(':').next().unwrap_or("0").to_owned();
        browser.go(&format!("{}/guide/", app.base_url)).await;
        browser.until("return document.querySelector('article h1') !== null").await;

        // The interface speaks French.
        assert_eq!(browser.run("return document.documentElement.lang").await, "fr");
        assert_eq!(browser.run("return document.querySelector('form.search input').placeholder").await, "Rechercher");
        assert_eq!(browser.run("return document.querySelector('.outline p').textContent").await, "Sur cette page");
        assert_eq!(browser.run("return document.querySelector('.pager .next small').textContent").await, "Suivant");

        // Code: labelled, highlighted only with a language, a copy button.
        assert_eq!(browser.run("return [...document.querySelectorAll('figure.code figcaption')].map(c => c.textContent).join(',')").await, "rust");
        assert_eq!(browser.run("return document.querySelectorAll('figure.code')[1].querySelectorAll('span').length").await, 0);
        browser.until("return document.querySelectorAll('figure.code button.copy').length === 2").await;
        assert_eq!(browser.run("return document.querySelector('button.copy').textContent").await, "Copier");

        // Every control has a name.
        for (label, html) in browser.labels("button:not([hidden]), input, a[href]").await {
            assert!(!label.trim().is_empty(), "a control without an accessible name: {html}");
        }
        assert!(browser.screenshot(&format!("site-long-top-{port}.png")).await > 1000);

        // Copying: the button says so, and the clipboard holds the code
        // (the headless browser is granted the clipboard).
        for name in ["clipboard-write", "clipboard-read"] {
            browser
                .cmd(
                    reqwest::Method::POST,
                    "/permissions",
                    Some(json!({ "descriptor": { "name": name }, "state": "granted" })),
                )
                .await;
        }
        browser.click("figure.code button.copy").await;
        browser.until("return document.querySelector('button.copy').textContent === 'Copié'").await;
        let pasted = browser
            .cmd(
                reqwest::Method::POST,
                "/execute/async",
                Some(json!({ "script": "var done = arguments[0]; navigator.clipboard.readText().then(done, function () { done(null) })", "args": [] })),
            )
            .await;
        assert_eq!(pasted, "fn main() { println!(\"bonjour\"); }");

        // Scrolling a long page: the tree and the outline stay in view.
        assert_eq!(browser.run(&in_view("nav.tree")).await, true);
        browser.run("window.scrollTo(0, document.body.scrollHeight / 2); return true").await;
        browser.until("return scrollY > 1000").await;
        assert_eq!(browser.run(&in_view("nav.tree")).await, true, "the tree stays in view");
        assert_eq!(browser.run(&in_view("aside.outline")).await, true, "the outline stays in view");
        assert_eq!(browser.run(&in_view("article h1")).await, false, "the page did scroll");
        assert!(browser.screenshot(&format!("site-long-scrolled-{port}.png")).await > 1000);

        // On a phone the tree is behind the menu button in the header.
        browser.resize(390, 844).await;
        browser.go(&format!("{}/guide/", app.base_url)).await;
        browser.until("return document.querySelector('article h1') !== null && innerWidth < 500").await;
        assert_eq!(browser.run(&in_view("#menu")).await, true, "the menu button is in the header");
        assert_eq!(browser.run("return getComputedStyle(document.querySelector('nav.tree')).display").await, "none");
        assert_eq!(browser.labels("#menu").await[0].0, "Menu");
        assert_eq!(browser.run("return document.documentElement.scrollWidth <= innerWidth + 1").await, true, "no sideways scrolling");
        assert!(browser.screenshot(&format!("site-phone-closed-{port}.png")).await > 1000);
        browser.click("#menu").await;
        browser.until(&in_view("nav.tree")).await;
        assert_eq!(browser.run("return document.querySelector('#menu').checked").await, true, "the button tells it is open");
        assert_eq!(browser.run("return document.querySelectorAll('nav.tree a.page').length").await, 13);
        assert_eq!(browser.run(&in_view("nav.tree a[href='/guide/chapitre-1']")).await, true, "the tree is on screen");
        assert!(browser.screenshot(&format!("site-phone-menu-{port}.png")).await > 1000);
        // Tapping beside the drawer closes it.
        browser.run("document.elementFromPoint(370, 400).click(); return true").await;
        browser.until("return getComputedStyle(document.querySelector('nav.tree')).display === 'none'").await;
        browser.close().await;
    }
}

/// The top of the first element `css` selects, in CSS pixels.
fn top(css: &str, index: usize) -> String {
    format!("return Math.round(document.querySelectorAll('{css}')[{index}].getBoundingClientRect().top)")
}

both_backends! {
    async fn gitbook_blocks_lay_out_on_desktop_and_phone(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Blocks", None).await;
        let markdown = "Cards, steps and columns as GitBook shows them.\n\n\
<table data-view=\"cards\"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type=\"content-ref\"></th></tr></thead><tbody>\
<tr><td><strong>Install</strong></td><td>Get the binary.</td><td><a href=\"https://example.com/install\">install</a></td></tr>\
<tr><td><strong>Configure</strong></td><td>Set the port.</td><td><a href=\"configure.md\">configure</a></td></tr>\
<tr><td><strong>Publish</strong></td><td>Share the docs.</td><td><a href=\"https://example.com/publish\">publish</a></td></tr></tbody></table>\n\n\
{% stepper %}\n{% step %}\n### Download\n\nFetch the archive.\n{% endstep %}\n\n{% step %}\n### Run\n\nStart the server.\n{% endstep %}\n{% endstepper %}\n\n\
{% columns %}\n{% column width=\"50%\" %}\n**Left**\n\nText on the left side of the page.\n{% endcolumn %}\n\n{% column %}\n**Right**\n\nText on the right side.\n{% endcolumn %}\n{% endcolumns %}\n\n\
<table><thead><tr><th width=\"160\">Key</th><th align=\"center\">Does</th></tr></thead><tbody><tr><td><kbd>Ctrl</kbd> + <kbd>K</kbd></td><td><mark style=\"background-color:yellow;\">Search</mark></td></tr></tbody></table>\n\n\
{% updates %}\n{% update date=\"2026-11-25\" tags=\"release\" %}\n## Version 2\n\nFaster pages.\n{% endupdate %}\n{% endupdates %}\n";
        app.publish(
            &ada,
            &space,
            json!([
                { "operation": "insert_page", "title": "Blocks", "document": { "markdown": markdown } },
                { "operation": "insert_page", "title": "Configure", "document": { "markdown": "Set the port.\n" } }
            ]),
        )
        .await;
        let site = app
            .post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Blocks", "visibility": "public", "spaces": [space] }))
            .await;
        site.assert_status(201);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);

        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        let port = app.base_url.rsplit(':').next().unwrap_or("0").to_owned();
        browser.resize(1280, 900).await;
        browser.go(&format!("{}/blocks/", app.base_url)).await;
        browser.until("return document.querySelector('.cards .card') !== null && innerWidth > 1000").await;
        // Cards share a row and the whole card is its link.
        assert_eq!(browser.run("return document.querySelectorAll('.cards .card').length").await, 3);
        assert_eq!(browser.run(&top(".cards .card", 0)).await, browser.run(&top(".cards .card", 1)).await, "cards side by side");
        browser.click(".cards .card:nth-child(2) .card-link").await;
        browser.until("return location.pathname === '/blocks/configure'").await;
        browser.go(&format!("{}/blocks/", app.base_url)).await;
        browser.until("return document.querySelector('.stepper') !== null").await;
        // Steps are numbered; columns stand side by side.
        assert_eq!(browser.run("return getComputedStyle(document.querySelectorAll('.stepper > .step')[1], '::before').content").await, "counter(step)");
        assert_eq!(browser.run(&top(".column", 0)).await, browser.run(&top(".column", 1)).await, "columns side by side");
        assert_eq!(browser.run("return getComputedStyle(document.querySelector('mark')).backgroundColor").await, "rgb(255, 255, 0)");
        for (label, html) in browser.labels("button:not([hidden]), input, a[href]").await {
            assert!(!label.trim().is_empty(), "a control without an accessible name: {html}");
        }
        assert!(browser.screenshot(&format!("blocks-desktop-{port}.png")).await > 1000);

        // On a phone: one card a row, columns stacked, nothing sideways.
        browser.resize(390, 844).await;
        browser.go(&format!("{}/blocks/", app.base_url)).await;
        browser.until("return document.querySelector('.cards .card') !== null && innerWidth < 500").await;
        let (first, second) = (browser.run(&top(".cards .card", 0)).await, browser.run(&top(".cards .card", 1)).await);
        assert!(second.as_i64() > first.as_i64(), "cards stack: {first} {second}");
        let (left, right) = (browser.run(&top(".column", 0)).await, browser.run(&top(".column", 1)).await);
        assert!(right.as_i64() > left.as_i64(), "columns stack: {left} {right}");
        assert_eq!(browser.run("return document.documentElement.scrollWidth <= innerWidth + 1").await, true, "no sideways scrolling");
        assert!(browser.screenshot(&format!("blocks-phone-{port}.png")).await > 1000);
        browser.close().await;
    }
}

/// A page whose script, if it ran on Quire's origin with the reader's
/// session, would make its uploader an admin (synchronous requests: done
/// before the page finishes loading) and say so in its title.
fn hostile_page(org: &str, uploader: &str) -> String {
    format!(
        r#"<!doctype html><title>harmless</title><script>
var s = new XMLHttpRequest(); s.open('GET', '/auth/session', false); s.send();
var csrf = JSON.parse(s.responseText).csrfToken;
var p = new XMLHttpRequest(); p.open('PATCH', '/v1/orgs/{org}/members/{uploader}', false);
p.setRequestHeader('Content-Type', 'application/json'); p.setRequestHeader('X-CSRF-Token', csrf);
p.send('{{"role":"admin"}}'); document.title = 'ran ' + p.status;
</script>"#
    )
}

both_backends! {
    async fn an_uploaded_page_or_svg_never_runs_on_the_apps_origin(app: TestApp) {
        let ada = app.user("Ada").await;
        let eve = app.user("Eve").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &eve, json!("edit")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let cr = app.change_request(&eve, &space, "Attachments").await;
        let page = hostile_page(&org, &eve.id);
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg"><script>{}</script></svg>"#,
            page.split("<script>").nth(1).and_then(|s| s.split("</script>").next()).expect("the script")
        );
        let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
        app.write(&eve, &space, &cr, json!([{ "operation": "insert_files", "files": [
            { "name": "notes.html", "contentType": "text/html", "base64": b64(&page) },
            { "name": "logo.svg", "contentType": "image/svg+xml", "base64": b64(&svg) }
        ] }]))
        .await
        .assert_status(200);
        let files = app.get(&eve, &format!("/v1/spaces/{space}/change-requests/{cr}/content/files")).await;
        files.assert_status(200);
        let urls: Vec<String> = files.items().iter().map(|f| f["downloadURL"].as_str().expect("downloadURL").to_owned()).collect();
        assert_eq!(urls.len(), 2);

        // The owner, signed in in Chromium, opens both links.
        let cookie = crate::mcp::session_cookie(&app, &ada.id).await;
        let token = cookie.trim_start_matches("quire_session=");
        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        browser.go(&format!("{}/health", app.base_url)).await;
        browser
            .cmd(reqwest::Method::POST, "/cookie", Some(json!({ "cookie": { "name": "quire_session", "value": token, "path": "/" } })))
            .await;
        browser.go(&format!("{}/v1/user", app.base_url)).await;
        let me = browser.run("return document.body.innerText").await;
        assert!(me.as_str().unwrap_or_default().contains(&ada.id), "the browser is Ada's session: {me}");
        for url in &urls {
            browser.go(url).await;
            let title = browser.run("return document.title").await;
            assert!(!title.as_str().unwrap_or_default().starts_with("ran"), "{url} ran its script: {title}");
        }
        browser.close().await;
        let eves = app.get(&ada, &format!("/v1/orgs/{org}/members/{}", eve.id)).await;
        assert_eq!(eves.body["role"], "edit", "the uploader is no admin");

        // What the links answer: attachments in a sandbox, never sniffed.
        for url in &urls {
            let res = reqwest::Client::new().get(url).bearer_auth(&ada.token).send().await.expect("a download");
            assert_eq!(res.status(), 200);
            let headers = res.headers();
            assert!(headers["content-disposition"].to_str().unwrap().starts_with("attachment; filename="), "{headers:?}");
            assert_eq!(headers["x-content-type-options"], "nosniff");
            assert!(headers["content-security-policy"].to_str().unwrap().contains("sandbox"), "{headers:?}");
        }
    }
}

/// Whether the page's own scripts run: the theme switch changes the theme.
const SCRIPTS_RUN: &str = "var before = document.documentElement.dataset.theme || ''; \
    document.querySelector('#theme').click(); \
    return (document.documentElement.dataset.theme || '') !== before";

both_backends! {
    async fn a_page_revisited_keeps_its_scripts_and_images(app: TestApp) {
        let (_ada, _org, _site) = crate::published_sites::docs_site(&app, "public").await;
        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        // Each kind of answer, first visit then revisits: a page, another
        // page, back to the first, and a reload (each revalidated: 304s).
        browser.go(&format!("{}/docs/", app.base_url)).await;
        browser.until("return document.querySelector('article h1') !== null").await;
        assert_eq!(browser.run(SCRIPTS_RUN).await, true, "first visit");
        for visit in ["reload", "another page", "back", "forward", "reload again"] {
            match visit {
                "reload" | "reload again" => {
                    browser.cmd(reqwest::Method::POST, "/refresh", Some(json!({}))).await;
                }
                "another page" => browser.go(&format!("{}/docs/setup", app.base_url)).await,
                "back" => {
                    browser.cmd(reqwest::Method::POST, "/back", Some(json!({}))).await;
                }
                _ => {
                    browser.cmd(reqwest::Method::POST, "/forward", Some(json!({}))).await;
                }
            }
            browser.until("return document.readyState === 'complete' && document.querySelector('article h1') !== null").await;
            assert_eq!(browser.run(SCRIPTS_RUN).await, true, "{visit}: the page's scripts run");
        }
        // The image of the first page loads on a revisit too.
        browser.go(&format!("{}/docs/", app.base_url)).await;
        browser.cmd(reqwest::Method::POST, "/refresh", Some(json!({}))).await;
        browser.until("return [...document.images].filter(i => i.complete && i.naturalWidth > 0).length === 1").await;
        assert_eq!(browser.run(SCRIPTS_RUN).await, true);
        browser.close().await;

        // What a revalidation answers: the 200's policy, never a file's.
        let client = reqwest::Client::new();
        let page = client.get(format!("{}/docs/", app.base_url)).send().await.expect("a page");
        let etag = page.headers()["etag"].clone();
        let policy = page.headers()["content-security-policy"].clone();
        assert_eq!(page.headers()["cache-control"], "no-cache");
        let again = client
            .get(format!("{}/docs/", app.base_url))
            .header("if-none-match", etag)
            .send()
            .await
            .expect("a revalidation");
        assert_eq!(again.status(), 304);
        assert_eq!(again.headers()["content-security-policy"], policy);
    }
}

/// The serious and critical axe-core violations of the page shown, in the
/// theme `theme` (`light` or `dark`).
async fn violations(browser: &Browser<'_>, axe: &str, theme: &str) -> Vec<String> {
    browser
        .run(&format!(
            "document.documentElement.dataset.theme = '{theme}'; return true"
        ))
        .await;
    browser.run(&format!("{axe}; return true")).await;
    let found = browser
        .cmd(
            reqwest::Method::POST,
            "/execute/async",
            Some(json!({ "script": "const done = arguments[arguments.length - 1]; \
                window.axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations \
                .filter(v => v.impact === 'serious' || v.impact === 'critical') \
                .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' + n.html + ' ' + n.failureSummary).join(', '))));", "args": [] })),
        )
        .await;
    found
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

both_backends! {
    async fn every_kind_of_published_page_passes_axe_in_both_themes(app: TestApp) {
        let (_ada, _org, _site) = crate::published_sites::docs_site(&app, "public").await;
        let axe = std::fs::read_to_string(crate::web_app::web_dir().join("node_modules/axe-core/axe.min.js"))
            .expect("axe-core (web/package-lock.json)");
        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        let mut found = Vec::new();
        for path in ["/docs/", "/docs/setup", "/docs/api/", "/docs/?q=configuration", "/docs/nope"] {
            browser.go(&format!("{}{path}", app.base_url)).await;
            browser.until("return document.readyState === 'complete'").await;
            for theme in ["light", "dark"] {
                for violation in violations(&browser, &axe, theme).await {
                    found.push(format!("{path} ({theme}) {violation}"));
                }
            }
        }
        // The skip link leads past the header to the content.
        browser.go(&format!("{}/docs/", app.base_url)).await;
        assert_eq!(browser.run("return document.querySelector('a.skip').getAttribute('href')").await, "#content");
        assert_eq!(browser.run("return document.querySelector('#content').tagName").await, "MAIN");
        // A heading's name is its text alone.
        let label = browser.labels("article h2").await;
        assert!(label.iter().all(|(name, _)| !name.contains('#') && !name.contains("Link")), "{label:?}");
        browser.close().await;
        assert!(found.is_empty(), "{found:#?}");
    }
}

both_backends! {
    async fn every_customization_field_shows_on_the_published_site(app: TestApp) {
        let (ada, _org, site) = crate::published_sites::docs_site(&app, "public").await;
        let default_page = reqwest::get(format!("{}/docs/", app.base_url)).await.unwrap().text().await.unwrap();
        let image = default_page
            .split("src=\"")
            .map(|s| s.split('"').next().unwrap_or_default())
            .find(|src| src.contains("~files"))
            .expect("the page's image")
            .to_owned();
        let logo = format!("{}{image}", app.base_url);
        let link = |title: &str, url: &str| json!({ "title": title, "to": { "kind": "url", "url": url } });
        let site_spaces = app.get(&ada, &format!("{site}/site-spaces")).await;
        let api_space = site_spaces.items()[1]["space"]["id"].as_str().expect("the API space").to_owned();
        app.put(&ada, &format!("{site}/customization"), json!({
            "title": "Acme Docs",
            "styling": { "theme": "bold", "corners": "circular", "depth": "flat", "links": "accent",
                "headingFont": "Merriweather", "search": "subtle", "sidebar": { "background": "filled", "list": "pill" },
                "primaryColor": { "light": "#346DDB", "dark": "#346DDB" },
                "infoColor": { "light": "#7a3cff", "dark": "#b18cff" },
                "tint": { "color": { "light": "#0B3D91", "dark": "#5B8DEF" } },
                "font": "Inter", "monospaceFont": "JetBrainsMono", "icons": "solid",
                "codeTheme": { "default": { "light": "github-light", "dark": "dracula" } } },
            "favicon": { "emoji": "1f389" },
            "header": { "preset": "default", "logo": { "light": logo, "dark": logo },
                "primaryLink": { "kind": "url", "url": "https://acme.example/" }, "links": [
                { "title": "Resources", "to": null, "links": [link("Blog", "https://blog.acme.example"), link("Status", "https://status.acme.example")] },
                { "title": "Sign up", "style": "button-primary", "to": { "kind": "url", "url": "https://acme.example/signup" }, "links": [] },
                { "title": "API reference", "to": { "kind": "space", "space": api_space }, "links": [] },
                { "title": "Pro only", "condition": "visitor.claims.unsigned.pro == true", "to": { "kind": "url", "url": "https://acme.example/pro" }, "links": [] }
            ] },
            "footer": { "logo": { "light": logo, "dark": logo }, "copyright": "© Acme", "groups": [
                { "title": "Company", "links": [link("About", "https://acme.example/about")] }
            ] },
            "socialAccounts": [{ "platform": "github", "handle": "acme", "display": { "footer": true, "header": false } }],
            "privacyPolicy": { "url": "https://acme.example/privacy" },
            "socialPreview": { "url": "https://acme.example/card.png" },
            "externalLinks": { "target": "blank" },
            "pagination": { "enabled": false }
        }))
        .await
        .assert_status(200);
        let page = reqwest::get(format!("{}/docs/setup", app.base_url)).await.unwrap().text().await.unwrap();
        for (what, shown) in [
            ("styling", page.contains("data-look=\"bold\" data-corners=\"circular\" data-depth=\"flat\" data-links=\"accent\" data-search=\"subtle\" data-sidebar=\"filled\" data-list=\"pill\"")),
            ("heading font", page.contains("h1,h2,h3,h4,.brand{font-family:\"Merriweather\"")),
            ("hint colours", page.contains(":root{--hint-info:#7a3cff}:root[data-theme=dark]{--hint-info:#b18cff}")),
            ("emoji favicon", page.contains("rel=\"icon\" href=\"data:image/svg+xml,") && page.contains("%F0%9F%8E%89")),
            ("logo for the title", page.contains("<img class=\"logo\"") && page.contains("alt=\"Acme Docs\"")),
            ("primary link", page.contains("<a class=\"brand\" href=\"https://acme.example/\">")),
            ("dropdown", page.contains("<details class=\"dropdown\"><summary class=\"header-link\">Resources</summary>")),
            ("button", page.contains("class=\"header-link button primary\" href=\"https://acme.example/signup\"")),
            ("conditional link withheld", !page.contains("Pro only")),
            ("link to a space of the site", page.contains("<a class=\"header-link\" href=\"/docs/api/\">API reference</a>")),
            ("footer group", page.contains("aria-label=\"Company\"") && page.contains("https://acme.example/about")),
            ("social account", page.contains("href=\"https://github.com/acme\"")),
            ("privacy policy", page.contains("href=\"https://acme.example/privacy\">Privacy policy</a>")),
            ("social image", page.contains("<meta property=\"og:image\" content=\"https://acme.example/card.png\">")),
            ("markdown alternate", page.contains("type=\"text/markdown\" href=\"http")),
            ("no pagination", !page.contains("class=\"pager\"")),
            ("tint", page.contains(" data-tint=\"on\"") && page.contains("--tint:#0B3D91")),
            ("named fonts served by the site", page.contains("/docs/~gitbook/fonts/inter-") && page.contains("/docs/~gitbook/fonts/jetbrains-mono-")),
            ("code theme", page.contains("#282a36")),
            ("pdf action", page.contains("/docs/~gitbook/pdf?page=")),
            ("last updated", page.contains("<p class=\"updated\">")),
        ] {
            assert!(shown, "{what}: {page}");
        }
        // A conditioned link shows to the visitors its condition admits.
        let no_redirects = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let opted = no_redirects.get(format!("{}/docs/setup?visitor.pro=true", app.base_url)).send().await.unwrap();
        assert_eq!(opted.status(), 303);
        let claims = opted.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
        let pro = no_redirects
            .get(format!("{}/docs/setup", app.base_url))
            .header("cookie", claims)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(pro.contains(">Pro only</a>"), "{pro}");
        let again = reqwest::get(format!("{}/docs/setup", app.base_url)).await.unwrap().text().await.unwrap();
        assert!(!again.contains("Pro only"), "kept answers stay per visitor");
        let intro = reqwest::get(format!("{}/docs/", app.base_url)).await.unwrap().text().await.unwrap();
        assert!(intro.contains("target=\"_blank\"") || !intro.contains("rel=\"noopener\">"), "external links open apart");
        // Photographed at desktop, phone and dark, and checked with axe.
        let axe = std::fs::read_to_string(crate::web_app::web_dir().join("node_modules/axe-core/axe.min.js"))
            .expect("axe-core");
        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        browser.go(&format!("{}/docs/setup", app.base_url)).await;
        browser.until("return document.readyState === 'complete'").await;
        let port = app.base_url.rsplit(':').next().unwrap_or("0").to_owned();
        assert!(browser.screenshot(&format!("customized-desktop-{port}.png")).await > 1000);
        // The named fonts arrive from the site itself.
        browser.until("return document.fonts.status === 'loaded' && document.fonts.check('16px Merriweather') && document.fonts.check('16px Inter')").await;
        let loaded = browser
            .run("return [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family).join(',')")
            .await;
        assert!(loaded.as_str().unwrap_or_default().contains("Merriweather") && loaded.as_str().unwrap_or_default().contains("Inter"), "{loaded}");
        let radius = browser.run("return getComputedStyle(document.querySelector('.hint')).borderRadius").await;
        assert_eq!(radius, "18px", "circular corners");
        let header = browser.run("return getComputedStyle(document.querySelector('header.top')).backgroundColor").await;
        assert_ne!(header, "rgba(0, 0, 0, 0)", "a bold header");
        let mut found = violations(&browser, &axe, "light").await;
        browser.run("document.documentElement.dataset.theme = 'dark'; return true").await;
        assert!(browser.screenshot(&format!("customized-dark-{port}.png")).await > 1000);
        found.extend(violations(&browser, &axe, "dark").await);
        browser.resize(390, 844).await;
        browser.run("document.documentElement.dataset.theme = 'light'; return true").await;
        assert!(browser.screenshot(&format!("customized-phone-{port}.png")).await > 1000);
        assert_eq!(browser.run("return document.documentElement.scrollWidth <= window.innerWidth + 1").await, true);
        browser.close().await;
        assert!(found.is_empty(), "{found:#?}");
    }
}

both_backends! {
    async fn readers_use_the_page_actions_and_the_keyboard(app: TestApp) {
        let (ada, _org, site) = crate::published_sites::docs_site(&app, "public").await;
        // A page of math, shown as MathML (no script, no font to fetch).
        let spaces = app.get(&ada, &format!("{site}/site-spaces")).await;
        let guide = spaces.items()[0]["space"]["id"].as_str().expect("the guide").to_owned();
        app.publish(&ada, &guide, json!([{ "operation": "insert_page", "title": "Math", "document": {
            "markdown": "The ratio $$a/b$$ inline.\n\n$$\n\\frac{a}{b} = \\sqrt{x^2 + 1}\n$$\n"
        } }]))
        .await;
        let math = reqwest::get(format!("{}/docs/math", app.base_url)).await.unwrap().text().await.unwrap();
        assert!(math.contains("<math display=\"block\">") && math.contains("<mfrac>"), "{math}");
        let page = reqwest::get(format!("{}/docs/setup", app.base_url)).await.unwrap().text().await.unwrap();
        assert!(page.contains("<details class=\"actions\"><summary>Page actions</summary>"), "{page}");
        assert!(page.contains("https://chatgpt.com/?hints=search&amp;q=Read%20http") && page.contains("https://claude.ai/new?q=Read%20"));
        assert!(page.contains(&format!("data-copy-text=\"{}/docs/~gitbook/mcp\"", app.base_url)));
        // The markdown action's address answers the page's markdown.
        let md_url = page
            .split("<a href=\"")
            .filter_map(|s| s.split('"').next())
            .find(|href| href.ends_with("setup.md"))
            .expect("the markdown link")
            .to_owned();
        let md = reqwest::get(&md_url).await.unwrap();
        assert!(md.headers()["content-type"].to_str().unwrap().starts_with("text/markdown"));
        assert!(md.text().await.unwrap().starts_with("# Setup"));

        let driver = Driver::start().await;
        let browser = Browser::open(&driver).await;
        browser.go(&format!("{}/docs/setup", app.base_url)).await;
        browser.until("return document.readyState === 'complete'").await;
        // The menu opens; the variants read as a dropdown named by the current one.
        browser.click("details.actions > summary").await;
        browser.until("return document.querySelector('details.actions').open").await;
        assert_eq!(browser.run("return document.querySelector('.variant-current').textContent").await, "Guide");
        // Ctrl+K goes to the search box; typing shows results; the arrows
        // walk through them.
        browser
            .cmd(reqwest::Method::POST, "/actions", Some(json!({ "actions": [{ "type": "key", "id": "k", "actions": [
                { "type": "keyDown", "value": "\u{E009}" }, { "type": "keyDown", "value": "k" },
                { "type": "keyUp", "value": "k" }, { "type": "keyUp", "value": "\u{E009}" }
            ] }] })))
            .await;
        browser.until("return document.activeElement === document.querySelector('form.search input')").await;
        browser.type_into("form.search input[name=q]", "configuration").await;
        browser.until("var b = document.querySelector('.suggest'); return !!b && !b.hidden && b.querySelectorAll('a').length > 0").await;
        browser
            .cmd(reqwest::Method::POST, "/actions", Some(json!({ "actions": [{ "type": "key", "id": "k", "actions": [
                { "type": "keyDown", "value": "\u{E015}" }, { "type": "keyUp", "value": "\u{E015}" }
            ] }] })))
            .await;
        browser.until("return document.activeElement === document.querySelector('.suggest a')").await;
        let port = app.base_url.rsplit(':').next().unwrap_or("0").to_owned();
        assert!(browser.screenshot(&format!("reader-actions-{port}.png")).await > 1000);
        // From the Guide, the search reaches the API space, says so, and
        // Enter on a result opens the heading that matched.
        browser.run("var i = document.querySelector('form.search input'); i.value = ''; i.focus(); return true").await;
        browser.type_into("form.search input[name=q]", "token").await;
        browser.until("var b = document.querySelector('.suggest'); return !!b && !b.hidden && [...b.querySelectorAll('.place')].some(p => p.textContent === 'API')").await;
        browser.run("var i = document.querySelector('form.search input'); i.value = ''; i.focus(); return true").await;
        browser.type_into("form.search input[name=q]", "install").await;
        browser.until("var b = document.querySelector('.suggest'); return !!b && !b.hidden && !!b.querySelector('a[href$=\"#install-the-configuration\"]')").await;
        browser
            .cmd(reqwest::Method::POST, "/actions", Some(json!({ "actions": [{ "type": "key", "id": "k", "actions": [
                { "type": "keyDown", "value": "\u{E015}" }, { "type": "keyUp", "value": "\u{E015}" },
                { "type": "keyDown", "value": "\u{E007}" }, { "type": "keyUp", "value": "\u{E007}" }
            ] }] })))
            .await;
        browser.until("return location.pathname === '/docs/introduction' && location.hash === '#install-the-configuration'").await;
        browser.go(&format!("{}/docs/math", app.base_url)).await;
        browser.until("return document.readyState === 'complete'").await;
        assert_eq!(
            browser.run("return document.querySelector('math[display=block]').getBoundingClientRect().height > 20").await,
            true,
            "the browser lays the fraction out"
        );
        assert!(browser.screenshot(&format!("reader-math-{port}.png")).await > 1000);
        browser.close().await;
    }
}
