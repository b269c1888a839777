//! Signing in without an identity provider: passwords set through one-time
//! links, the session as API authentication with its CSRF token, one's
//! sessions listed and ended, password changes, attempt limits, invitations
//! accepted by setting a password, and organizations enforcing single
//! sign-on closed to sessions that did not go through it.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{TestApp, both_backends};

/// A browser without JavaScript: keeps the cookies the server sets, sends
/// the session's CSRF token once it knows it, follows no redirect.
pub struct Browser {
    pub base: String,
    http: reqwest::Client,
    pub cookies: BTreeMap<String, String>,
    pub csrf: Option<String>,
}

pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    #[track_caller]
    pub fn expect(self, status: u16) -> Answer {
        assert_eq!(
            self.status, status,
            "expected {status}, got {}: {}",
            self.status, self.body
        );
        self
    }

    pub fn message(&self) -> &str {
        self.body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

impl Browser {
    pub fn new(base: &str) -> Browser {
        Browser {
            base: base.to_owned(),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("HTTP client"),
            cookies: BTreeMap::new(),
            csrf: None,
        }
    }

    /// Sends a request (a path of the server, or an absolute URL); with
    /// `csrf`, the known CSRF token goes along.
    pub async fn send(&mut self, method: Method, path: &str, body: Option<Value>, csrf: bool) -> Answer {
        let url = if path.starts_with("http") {
            path.to_owned()
        } else {
            format!("{}{path}", self.base)
        };
        let mut request = self.http.request(method, &url);
        if !self.cookies.is_empty() {
            let header: Vec<String> = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
            request = request.header("cookie", header.join("; "));
        }
        if csrf && let Some(token) = &self.csrf {
            request = request.header("x-csrf-token", token);
        }
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let response = request.send().await.unwrap_or_else(|e| panic!("{url}: {e}"));
        for value in response.headers().get_all("set-cookie") {
            let value = value.to_str().unwrap_or_default();
            let pair = value.split(';').next().unwrap_or_default();
            if let Some((name, v)) = pair.split_once('=') {
                if v.is_empty() || value.contains("Max-Age=0") {
                    self.cookies.remove(name);
                } else {
                    self.cookies.insert(name.to_owned(), v.to_owned());
                }
            }
        }
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if let Some(token) = body.get("csrfToken").and_then(Value::as_str) {
            self.csrf = Some(token.to_owned());
        }
        Answer { status, headers, body }
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        self.send(Method::GET, path, None, false).await
    }

    /// Follows redirects from `url` (a path of the server or an absolute
    /// URL) to the first answer that is not one: its URL and the answer.
    pub async fn follow(&mut self, url: &str) -> (String, Answer) {
        let mut url = if url.starts_with("http") {
            url.to_owned()
        } else {
            format!("{}{url}", self.base)
        };
        for _ in 0..20 {
            let answer = self.get(&url).await;
            if !(300..400).contains(&answer.status) {
                return (url, answer);
            }
            let location = answer.headers["location"].to_str().expect("a Location").to_owned();
            url = reqwest::Url::parse(&url)
                .and_then(|base| base.join(&location))
                .expect("a URL to follow")
                .to_string();
        }
        panic!("more than 20 redirects from {url}");
    }

    pub async fn post(&mut self, path: &str, body: Value) -> Answer {
        self.send(Method::POST, path, Some(body), true).await
    }

    pub async fn sign_in(&mut self, email: &str, password: &str) -> Answer {
        self.post("/auth/sign-in", json!({ "email": email, "password": password }))
            .await
    }
}

/// A one-time link's token (the fragment of its URL).
fn token_of(url: &str) -> String {
    url.split_once("/sign-in/link#")
        .map(|(_, t)| t.to_owned())
        .unwrap_or_else(|| panic!("not a link: {url}"))
}

const PASSWORD: &str = "correct horse battery";

/// `POST /auth/links` with an API token: the status and the body.
async fn password_link(app: &TestApp, token: &str, email: &str) -> (u16, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{}/auth/links", app.base_url))
        .bearer_auth(token)
        .json(&json!({ "email": email }))
        .send()
        .await
        .expect("POST /auth/links");
    (answer.status().as_u16(), answer.json().await.expect("JSON"))
}

/// `email` gets a password through a reset link the CLI makes.
async fn set_password(app: &TestApp, email: &str, password: &str) {
    let link = quire_sign_in::links::password_link_for_cli(&app.state.app, &app.base_url, email)
        .await
        .expect("a password link");
    let mut browser = Browser::new(&app.base_url);
    browser
        .post(
            "/auth/links/use",
            json!({ "token": token_of(&link.url), "password": password }),
        )
        .await
        .expect(200);
}

both_backends! {
    async fn a_password_session_is_api_authentication_with_its_csrf_token(app: TestApp) {
        let ada = app.user("Ada").await;
        let mut browser = Browser::new(&app.base_url);
        // No password yet: the same answer as a wrong one.
        let refused = browser.sign_in(&ada.email, PASSWORD).await.expect(401);
        assert_eq!(refused.message(), "wrong email or password");
        assert!(browser.cookies.is_empty());

        set_password(&app, &ada.email, PASSWORD).await;
        browser.sign_in(&ada.email, "not the password").await.expect(401);
        let nobody = browser.sign_in("nobody@example.com", PASSWORD).await.expect(401);
        assert_eq!(nobody.message(), "wrong email or password");
        let signed_in = browser.sign_in(&ada.email.to_uppercase(), PASSWORD).await.expect(200);
        assert_eq!(signed_in.body["user"]["id"], ada.id.as_str());
        assert_eq!(signed_in.body["method"], "password");
        let cookie = signed_in.headers["set-cookie"].to_str().expect("a cookie").to_owned();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
        assert!(!signed_in.body.to_string().contains(PASSWORD));

        // The session works as API authentication; what changes something
        // needs its CSRF token.
        let me = browser.get("/v1/user").await.expect(200);
        assert_eq!(me.body["id"], ada.id.as_str());
        let no_csrf = browser.send(Method::POST, "/v1/orgs", Some(json!({ "title": "Docs" })), false).await.expect(403);
        assert!(no_csrf.message().contains("X-CSRF-Token"), "{}", no_csrf.message());
        let mut wrong = Browser::new(&app.base_url);
        wrong.cookies = browser.cookies.clone();
        wrong.csrf = Some("0".repeat(32));
        wrong.post("/v1/orgs", json!({ "title": "Docs" })).await.expect(403);
        let orgs = app.get(&ada, "/v1/orgs").await;
        assert!(orgs.items().is_empty(), "nothing was made without the CSRF token");
        browser.post("/v1/orgs", json!({ "title": "Docs" })).await.expect(201);
        assert_eq!(app.get(&ada, "/v1/orgs").await.items().len(), 1);

        // A bearer token still wins over a cookie.
        let other = app.user("Grace").await;
        let mut both = Browser::new(&app.base_url);
        both.cookies = browser.cookies.clone();
        let answer = both
            .http
            .get(format!("{}/v1/user", app.base_url))
            .header("cookie", format!("quire_session={}", browser.cookies["quire_session"]))
            .bearer_auth(&other.token)
            .send()
            .await
            .expect("GET /v1/user");
        let answer: Value = answer.json().await.expect("JSON");
        assert_eq!(answer["id"], other.id.as_str());

        // Signing out ends the session for the API too.
        browser.post("/auth/sign-out", json!({})).await.expect(204);
        assert!(browser.cookies.is_empty());
        browser.get("/auth/session").await.expect(401);
    }

    async fn people_make_list_and_revoke_their_api_tokens_from_a_session(app: TestApp) {
        let ada = app.user("Ada").await;
        let grace = app.user("Grace").await;
        set_password(&app, &ada.email, PASSWORD).await;
        let mut browser = Browser::new(&app.base_url);
        browser.sign_in(&ada.email, PASSWORD).await.expect(200);
        // Ada's token from `quire token create` is listed, never shown.
        let listed = browser.get("/auth/tokens").await.expect(200);
        assert_eq!(listed.body["items"].as_array().map(Vec::len), Some(1), "{}", listed.body);
        assert!(!listed.body.to_string().contains(&ada.token));

        // Bad input changes nothing: no CSRF token, no label, a label too long, unknown fields.
        browser
            .send(Method::POST, "/auth/tokens", Some(json!({ "label": "CI" })), false)
            .await
            .expect(403);
        browser.post("/auth/tokens", json!({ "label": "" })).await.expect(400);
        browser.post("/auth/tokens", json!({ "label": "x".repeat(65) })).await.expect(400);
        browser.post("/auth/tokens", json!({ "label": "CI", "scope": "all" })).await.expect(400);
        let listed = browser.get("/auth/tokens").await.expect(200);
        assert_eq!(listed.body["items"].as_array().map(Vec::len), Some(1));

        // A new token is shown once, works, and is listed by its label.
        let made = browser.post("/auth/tokens", json!({ "label": "CI" })).await.expect(201);
        let token = made.body["token"].as_str().expect("the token").to_owned();
        let me = app.request(Method::GET, "/v1/user").token(&token).send().await;
        me.assert_status(200);
        assert_eq!(me.body["id"], ada.id.as_str());
        let listed = browser.get("/auth/tokens").await.expect(200);
        let entry = listed.body["items"]
            .as_array()
            .and_then(|items| items.iter().find(|t| t["label"] == "CI"))
            .expect("the new token listed")
            .clone();
        assert!(!listed.body.to_string().contains(&token));

        // Nobody else's token can be revoked this way; revoking one's own
        // stops it at once.
        let mut other = Browser::new(&app.base_url);
        set_password(&app, &grace.email, PASSWORD).await;
        other.sign_in(&grace.email, PASSWORD).await.expect(200);
        let id = entry["id"].as_str().expect("an id");
        other.send(Method::DELETE, &format!("/auth/tokens/{id}"), None, true).await.expect(404);
        app.request(Method::GET, "/v1/user").token(&token).send().await.assert_status(200);
        browser.send(Method::DELETE, &format!("/auth/tokens/{id}"), None, true).await.expect(204);
        app.request(Method::GET, "/v1/user").token(&token).send().await.assert_status(401);
        browser.send(Method::DELETE, &format!("/auth/tokens/{id}"), None, true).await.expect(404);
        // A token is not a session: it cannot list or make tokens.
        let by_token = reqwest::Client::new()
            .get(format!("{}/auth/tokens", app.base_url))
            .bearer_auth(&ada.token)
            .send()
            .await
            .expect("GET /auth/tokens");
        assert_eq!(by_token.status().as_u16(), 401);
    }

    async fn people_list_their_sessions_and_end_them(app: TestApp) {
        let ada = app.user("Ada").await;
        set_password(&app, &ada.email, PASSWORD).await;
        let mut laptop = Browser::new(&app.base_url);
        let mut phone = Browser::new(&app.base_url);
        laptop.sign_in(&ada.email, PASSWORD).await.expect(200);
        phone.sign_in(&ada.email, PASSWORD).await.expect(200);

        let listed = laptop.get("/auth/sessions").await.expect(200);
        let items = listed.body["items"].as_array().expect("a list").clone();
        // Three: the reset link signed its browser in too.
        assert_eq!(items.len(), 3, "{items:?}");
        let current: Vec<&Value> = items.iter().filter(|s| s["current"] == true).collect();
        assert_eq!(current.len(), 1);
        assert_eq!(current[0]["method"], "password");
        assert_eq!(current[0]["address"], "127.0.0.1");
        assert!(!listed.body.to_string().contains(&laptop.cookies["quire_session"]), "no session token is listed");

        // The laptop ends the phone's session.
        let phone_id = phone.get("/auth/session").await.expect(200);
        assert!(phone_id.body["csrfToken"].is_string());
        let phone_sessions = phone.get("/auth/sessions").await.expect(200);
        let phone_session = phone_sessions.body["items"]
            .as_array()
            .and_then(|items| items.iter().find(|s| s["current"] == true))
            .and_then(|s| s["id"].as_str())
            .expect("the phone's session")
            .to_owned();
        laptop
            .send(Method::DELETE, &format!("/auth/sessions/{phone_session}"), None, false)
            .await
            .expect(403);
        laptop
            .send(Method::DELETE, &format!("/auth/sessions/{phone_session}"), None, true)
            .await
            .expect(204);
        phone.get("/auth/session").await.expect(401);
        phone.get("/v1/user").await.expect(401);
        laptop
            .send(Method::DELETE, &format!("/auth/sessions/{phone_session}"), None, true)
            .await
            .expect(404);

        // Someone else's session cannot be ended.
        let grace = app.user("Grace").await;
        set_password(&app, &grace.email, PASSWORD).await;
        let mut other = Browser::new(&app.base_url);
        other.sign_in(&grace.email, PASSWORD).await.expect(200);
        let laptop_session = laptop.get("/auth/sessions").await.body["items"]
            .as_array()
            .and_then(|items| items.iter().find(|s| s["current"] == true))
            .and_then(|s| s["id"].as_str())
            .expect("the laptop's session")
            .to_owned();
        other
            .send(Method::DELETE, &format!("/auth/sessions/{laptop_session}"), None, true)
            .await
            .expect(404);
        laptop.get("/auth/session").await.expect(200);
    }

    async fn changing_a_password_needs_the_current_one_and_ends_other_sessions(app: TestApp) {
        let ada = app.user("Ada").await;
        set_password(&app, &ada.email, PASSWORD).await;
        let mut laptop = Browser::new(&app.base_url);
        let mut phone = Browser::new(&app.base_url);
        laptop.sign_in(&ada.email, PASSWORD).await.expect(200);
        phone.sign_in(&ada.email, PASSWORD).await.expect(200);

        let change = |current: &str, new: &str| {
            json!({ "currentPassword": current, "newPassword": new })
        };
        let wrong = laptop
            .send(Method::PUT, "/auth/password", Some(change("guess guess guess", "a new password")), true)
            .await
            .expect(403);
        assert_eq!(wrong.message(), "the current password is wrong");
        let short = laptop
            .send(Method::PUT, "/auth/password", Some(change(PASSWORD, "short")), true)
            .await
            .expect(400);
        assert!(short.message().contains("at least 10 characters"), "{}", short.message());
        laptop
            .send(Method::PUT, "/auth/password", Some(json!({ "newPassword": "a new password" })), true)
            .await
            .expect(400);
        laptop.sign_in(&ada.email, PASSWORD).await.expect(200);
        laptop
            .send(Method::PUT, "/auth/password", Some(change(PASSWORD, "a new password")), true)
            .await
            .expect(204);
        laptop.get("/auth/session").await.expect(200);
        phone.get("/auth/session").await.expect(401);
        phone.sign_in(&ada.email, PASSWORD).await.expect(401);
        phone.sign_in(&ada.email, "a new password").await.expect(200);
    }

    async fn failed_attempts_lock_an_account_for_a_while(app: TestApp) {
        let ada = app.user("Ada").await;
        set_password(&app, &ada.email, PASSWORD).await;
        let mut browser = Browser::new(&app.base_url);
        for _ in 0..quire_sign_in::limits::PER_ACCOUNT {
            browser.sign_in(&ada.email, "a wrong guess").await.expect(401);
        }
        // Now even the right password is refused, with when to retry.
        let locked = browser.sign_in(&ada.email, PASSWORD).await.expect(429);
        assert!(locked.message().contains("too many failed sign-in attempts"), "{}", locked.message());
        let retry: u64 = locked.headers["retry-after"].to_str().ok().and_then(|v| v.parse().ok()).expect("Retry-After");
        assert!(retry > 0 && retry <= 15 * 60, "{retry}");
        assert!(browser.cookies.is_empty());
        // Another account from the same address is not locked.
        let grace = app.user("Grace").await;
        set_password(&app, &grace.email, PASSWORD).await;
        browser.sign_in(&grace.email, PASSWORD).await.expect(200);
        // Once the window passes, the right password works again, and a
        // success forgets the failures.
        app.clock.advance_millis(quire_sign_in::limits::WINDOW_MS);
        let mut later = Browser::new(&app.base_url);
        later.sign_in(&ada.email, PASSWORD).await.expect(200);
        for _ in 0..quire_sign_in::limits::PER_ACCOUNT - 1 {
            later.sign_in(&ada.email, "a wrong guess").await.expect(401);
        }
        later.sign_in(&ada.email, PASSWORD).await.expect(200);
    }

    async fn many_failures_from_one_address_stop_its_attempts(app: TestApp) {
        let ada = app.user("Ada").await;
        set_password(&app, &ada.email, PASSWORD).await;
        // Failures spread over many accounts, so no account limit is hit.
        let guesses: Vec<_> = (0..quire_sign_in::limits::PER_ADDRESS)
            .map(|n| {
                let base = app.base_url.clone();
                tokio::spawn(async move {
                    let mut browser = Browser::new(&base);
                    browser.sign_in(&format!("guess{n}@example.com"), "a wrong guess").await.status
                })
            })
            .collect();
        for guess in guesses {
            assert_eq!(guess.await.expect("a guess"), 401);
        }
        let mut browser = Browser::new(&app.base_url);
        browser.sign_in(&ada.email, PASSWORD).await.expect(429);
        // One-time links are refused from that address too.
        browser.post("/auth/links/inspect", json!({ "token": "x".repeat(43) })).await.expect(429);
    }

    async fn one_time_links_are_used_once(app: TestApp) {
        let ada = app.user("Ada").await;
        let link = quire_sign_in::links::password_link_for_cli(&app.state.app, &app.base_url, &ada.email)
            .await
            .expect("a link");
        assert!(link.url.starts_with(&format!("{}/sign-in/link#", app.base_url)), "{}", link.url);
        let token = token_of(&link.url);
        let mut browser = Browser::new(&app.base_url);
        let info = browser.post("/auth/links/inspect", json!({ "token": token })).await.expect(200);
        assert_eq!(info.body["purpose"], "reset");
        assert_eq!(info.body["email"], ada.email.as_str());
        assert_eq!(info.body["needsPassword"], true);
        assert_eq!(info.body["needsDisplayName"], false);
        // A reset needs a password that keeps the rules; a refusal uses
        // nothing up.
        browser.post("/auth/links/use", json!({ "token": token })).await.expect(400);
        browser.post("/auth/links/use", json!({ "token": token, "password": "short" })).await.expect(400);
        let used = browser.post("/auth/links/use", json!({ "token": token, "password": PASSWORD })).await.expect(200);
        assert_eq!(used.body["user"]["id"], ada.id.as_str());
        assert_eq!(used.body["method"], "link");
        browser.get("/v1/user").await.expect(200);
        let again = Browser::new(&app.base_url).post("/auth/links/use", json!({ "token": token, "password": PASSWORD })).await.expect(401);
        assert_eq!(again.message(), "this link has expired or was already used");
        Browser::new(&app.base_url).post("/auth/links/inspect", json!({ "token": "nonsense" })).await.expect(401);

        // Links expire: a reset after a day.
        let late = quire_sign_in::links::password_link_for_cli(&app.state.app, &app.base_url, &ada.email)
            .await
            .expect("a link");
        app.clock.advance_millis(24 * 60 * 60 * 1000);
        Browser::new(&app.base_url)
            .post("/auth/links/use", json!({ "token": token_of(&late.url), "password": PASSWORD }))
            .await
            .expect(401);

        // Nobody with that email and no invitation: no link.
        let none = quire_sign_in::links::password_link_for_cli(&app.state.app, &app.base_url, "nobody@example.com").await;
        assert!(none.is_err());
    }

    async fn an_invitation_is_accepted_by_setting_a_password(app: TestApp) {
        let admin = app.user("Admin").await;
        let org = app.org(&admin, "Docs").await;
        app.post(&admin, &format!("/v1/orgs/{org}/invites"), json!({ "emails": ["new.writer@example.com"], "role": "edit" }))
            .await
            .assert_status(200);

        // The admin makes the invitation's link; nobody else can.
        let outsider = app.user("Outsider").await;
        let (status, link) = password_link(&app, &outsider.token, "new.writer@example.com").await;
        assert_eq!(status, 404, "{link}");
        let (status, link) = password_link(&app, &admin.token, "new.writer@example.com").await;
        assert_eq!(status, 201, "{link}");
        assert_eq!(link["purpose"], "invitation");
        let token = token_of(link["url"].as_str().expect("its URL"));

        let mut browser = Browser::new(&app.base_url);
        let info = browser.post("/auth/links/inspect", json!({ "token": token })).await.expect(200);
        assert_eq!(info.body["needsDisplayName"], true);
        browser.post("/auth/links/use", json!({ "token": token, "password": PASSWORD })).await.expect(400);
        let joined = browser
            .post("/auth/links/use", json!({ "token": token, "password": PASSWORD, "displayName": "New Writer" }))
            .await
            .expect(200);
        assert_eq!(joined.body["user"]["displayName"], "New Writer");
        let orgs = browser.get("/v1/orgs").await.expect(200);
        assert_eq!(orgs.body["items"][0]["id"], org.as_str(), "the invitation made them a member");
        let mut again = Browser::new(&app.base_url);
        again.sign_in("new.writer@example.com", PASSWORD).await.expect(200);

        // Not for a stranger; not for a member who signs in on their own:
        // no link in the answer.
        let (status, link) = password_link(&app, &admin.token, &outsider.email).await;
        assert_eq!(status, 404, "{link}");
        let (status, link) = password_link(&app, &admin.token, "new.writer@example.com").await;
        assert_eq!(status, 403, "{link}");
        assert!(link.get("url").is_none() && !link.to_string().contains("/sign-in/link"), "{link}");
        assert!(link["error"]["message"].as_str().unwrap_or_default().contains("quire password-link"), "{link}");

        // An account the organization brought in that never signed in (made
        // by single sign-on provisioning or the command line) gets its first
        // password from the admin, audited against that person.
        app.post(&admin, &format!("/v1/orgs/{org}/invites"), json!({ "emails": ["quiet@example.com"], "role": "read" }))
            .await
            .assert_status(200);
        let quiet = quire_app::accounts::ensure_user(&app.state.app, "quiet@example.com", "Quiet").await.expect("an account");
        let (status, link) = password_link(&app, &admin.token, "quiet@example.com").await;
        assert_eq!(status, 201, "{link}");
        assert_eq!(link["purpose"], "reset");
        let log = app.get(&admin, &format!("/v1/orgs/{org}/audit-events?action=POST%20%2Fauth%2Flinks")).await;
        log.assert_status(200);
        let targets: Vec<&Value> = log.items().iter().map(|e| &e["target"]).collect();
        assert_eq!(
            targets,
            [&json!({ "type": "user", "id": quiet.id }), &json!({ "type": "invited-email", "id": "new.writer@example.com" })],
            "each link's person, never its maker: {}",
            log.body
        );
        // Once Quiet belongs to an organization the admin does not run, no more.
        let other_admin = app.user("Other Admin").await;
        let other = app.org(&other_admin, "Elsewhere").await;
        app.post(&other_admin, &format!("/v1/orgs/{other}/invites"), json!({ "emails": ["quiet@example.com"] }))
            .await
            .assert_status(200);
        let mut quiet_browser = Browser::new(&app.base_url);
        quiet_browser
            .post("/auth/links/use", json!({ "token": token_of(link["url"].as_str().unwrap()), "password": PASSWORD }))
            .await
            .expect(200);
        let (status, link) = password_link(&app, &admin.token, "quiet@example.com").await;
        assert_eq!(status, 403, "{link}");
    }

    async fn an_admin_of_another_organization_cannot_take_over_an_account(app: TestApp) {
        // Vic has an account and a password, and runs his own organization.
        let vic = app.user("Vic").await;
        set_password(&app, &vic.email, PASSWORD).await;
        let corp = app.org(&vic, "Vic Corp").await;
        let mut vics = Browser::new(&app.base_url);
        vics.sign_in(&vic.email, PASSWORD).await.expect(200);

        // Mallory makes an organization and invites Vic by email.
        let mallory = app.user("Mallory").await;
        let trap = app.org(&mallory, "Trap").await;
        let invited = app.post(&mallory, &format!("/v1/orgs/{trap}/invites"), json!({ "emails": [vic.email], "role": "read" })).await;
        invited.assert_status(200);
        assert_eq!(invited.body["users"], json!([]));
        app.get(&mallory, &format!("/v1/orgs/{trap}/members/{}", vic.id)).await.assert_status(404);
        let (status, link) = password_link(&app, &mallory.token, &vic.email).await;
        assert_eq!(status, 403, "Vic signs in on his own: {link}");
        assert!(!link.to_string().contains("/sign-in/link"), "no link is shown: {link}");

        // Even once Vic accepts, his sign-in stays his.
        app.accept_invitation(&vic, &trap).await;
        let (status, link) = password_link(&app, &mallory.token, &vic.email).await;
        assert_eq!(status, 403, "{link}");
        assert!(!link.to_string().contains("/sign-in/link"), "no link is shown: {link}");
        vics.get("/auth/session").await.expect(200);
        Browser::new(&app.base_url).sign_in(&vic.email, PASSWORD).await.expect(200);
        app.get(&vic, &format!("/v1/orgs/{corp}")).await.assert_status(200);
        app.get(&mallory, &format!("/v1/orgs/{corp}")).await.assert_status(404);
    }

    async fn concurrent_guesses_are_counted_before_they_are_checked(app: TestApp) {
        let ada = app.user("Ada").await;
        set_password(&app, &ada.email, PASSWORD).await;
        let guesses: Vec<_> = (0..100)
            .map(|_| {
                let (base, email) = (app.base_url.clone(), ada.email.clone());
                tokio::spawn(async move { Browser::new(&base).sign_in(&email, "a wrong guess").await.status })
            })
            .collect();
        let mut checked = 0;
        for guess in guesses {
            match guess.await.expect("a guess") {
                401 => checked += 1,
                429 => {}
                other => panic!("a guess answered {other}"),
            }
        }
        assert!(
            checked <= quire_sign_in::limits::PER_ACCOUNT,
            "{checked} of 100 concurrent guesses were checked; the limit is {}",
            quire_sign_in::limits::PER_ACCOUNT
        );
        // One at a time, the rest of the limit is checked, and no more.
        loop {
            match Browser::new(&app.base_url).sign_in(&ada.email, "a wrong guess").await.status {
                401 => checked += 1,
                429 => break,
                other => panic!("a guess answered {other}"),
            }
        }
        assert_eq!(checked, quire_sign_in::limits::PER_ACCOUNT);
        Browser::new(&app.base_url).sign_in(&ada.email, PASSWORD).await.expect(429);
    }

    async fn failed_sign_ins_and_bad_links_are_audited_for_the_person_and_their_admins(app: TestApp) {
        let admin = app.user("Admin").await;
        let ada = app.user("Ada").await;
        let org = app.org(&admin, "Docs").await;
        app.add_member(&admin, &org, &ada, json!("edit")).await;
        set_password(&app, &ada.email, PASSWORD).await;
        let mut browser = Browser::new(&app.base_url);
        browser.sign_in(&ada.email, "a wrong guess").await.expect(401);
        browser.sign_in("nobody@example.com", "a wrong guess").await.expect(401);
        browser.post("/auth/links/inspect", json!({ "token": "x".repeat(43) })).await.expect(401);
        let mut laptop = Browser::new(&app.base_url);
        laptop.sign_in(&ada.email, PASSWORD).await.expect(200);
        laptop
            .send(Method::PUT, "/auth/password", Some(json!({ "currentPassword": "not it at all", "newPassword": "another long one" })), true)
            .await
            .expect(403);

        // Ada reads her account's events: the refusals, with why and from where.
        let own = app.get(&ada, "/v1/user/audit-events").await;
        own.assert_status(200);
        let refused: Vec<&Value> = own.items().iter().filter(|e| e["payload"]["outcome"] == "refused").collect();
        let reasons: Vec<&str> = refused.iter().filter_map(|e| e["payload"]["reason"].as_str()).collect();
        assert!(reasons.contains(&"wrong email or password"), "{}", own.body);
        assert!(reasons.contains(&"wrong current password"), "{}", own.body);
        assert!(refused.iter().all(|e| e["payload"]["address"] == "127.0.0.1"), "{}", own.body);
        assert!(!own.body.to_string().contains("a wrong guess"), "no typed password is kept");
        assert!(!own.body.to_string().contains("nobody@example.com"), "no typed email is kept");

        // Her organization's admin sees them in its log; another person does not.
        let log = app.get(&admin, &format!("/v1/orgs/{org}/audit-events?limit=100")).await;
        log.assert_status(200);
        let sign_ins = log.items().iter().filter(|e| e["action"] == "POST /auth/sign-in" && e["target"]["id"] == ada.id.as_str()).count();
        assert!(sign_ins >= 2, "the failure and the success: {}", log.body);
        let eve = app.user("Eve").await;
        let eves = app.get(&eve, "/v1/user/audit-events").await;
        assert!(!eves.body.to_string().contains(&ada.id), "{}", eves.body);

        // The bad link is recorded too (no person: the token named nobody).
        let mut conn = app.state.app.db.read().await.expect("a connection");
        let bad_links: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM audit_events WHERE action = 'POST /auth/links/inspect' AND payload LIKE '%refused%'",
        )
        .fetch_one(&mut *conn)
        .await
        .expect("count");
        assert_eq!(bad_links, 1);
    }

    async fn a_session_reaches_an_organization_enforcing_sso_only_through_it(app: TestApp) {
        let admin = app.user("Admin").await;
        let ada = app.user("Ada").await;
        let open = app.org(&admin, "Open").await;
        let strict = app.org(&admin, "Strict").await;
        app.add_member(&admin, &open, &ada, json!("edit")).await;
        app.add_member(&admin, &strict, &ada, json!("edit")).await;
        app.patch(&admin, &format!("/v1/orgs/{strict}"), json!({ "sso": true })).await.assert_status(200);
        set_password(&app, &ada.email, PASSWORD).await;
        let mut browser = Browser::new(&app.base_url);
        browser.sign_in(&ada.email, PASSWORD).await.expect(200);
        browser.get(&format!("/v1/orgs/{open}")).await.expect(200);
        let refused = browser.get(&format!("/v1/orgs/{strict}")).await.expect(403);
        assert!(refused.message().contains("single sign-on"), "{}", refused.message());
        // Her API token (made from a session that went through it) still works.
        app.get(&ada, &format!("/v1/orgs/{strict}")).await.assert_status(200);
    }

    async fn sign_in_refuses_bad_input_in_the_error_shape(app: TestApp) {
        let mut browser = Browser::new(&app.base_url);
        let answer = browser.post("/auth/sign-in", json!({ "email": "a@example.com" })).await.expect(400);
        assert_eq!(answer.body["error"]["code"], 400);
        browser.post("/auth/sign-in", json!({ "email": "a@example.com", "password": "x", "extra": 1 })).await.expect(400);
        let form = browser
            .http
            .post(format!("{}/auth/sign-in", app.base_url))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("email=a%40example.com&password=x")
            .send()
            .await
            .expect("a form post");
        assert_eq!(form.status(), 415, "a cross-site form cannot sign anyone in");
        browser.get("/auth/sessions").await.expect(401);
        let methods = browser.get("/auth/methods").await.expect(200);
        assert_eq!(methods.body["password"], true);
        assert!(methods.body["oidc"].is_null());
        let no_oidc = browser.get("/auth/oidc/start").await.expect(404);
        assert_eq!(no_oidc.body["error"]["code"], 404);
    }
}
