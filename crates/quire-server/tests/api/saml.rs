//! SAML single sign-on over HTTP against a real identity provider: pysaml2
//! signing with xmlsec1 (`support/saml_idp.py`). The provider API and its
//! checks; a login that provisions the person into the organization, its
//! team and role; the account page (tokens made, used and revoked, CSRF,
//! signing out); every tampered or out-of-place response refused with a
//! plain page; organizations that enforce single sign-on.

use std::process::Stdio;

use reqwest::header::{COOKIE, LOCATION, ORIGIN, SET_COOKIE};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::official_client::{client_dir, run_node};
use crate::support::{TestApp, TestUser, both_backends};

/// The identity provider, a child process killed when dropped.
pub(crate) struct Idp {
    _child: tokio::process::Child,
    pub(crate) entity_id: String,
    pub(crate) sso_url: String,
    pub(crate) certificate: String,
    expired_certificate: String,
}

pub(crate) async fn start_idp() -> Idp {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/support/saml_idp.py");
    let mut child = tokio::process::Command::new("python3")
        .arg(script)
        .env("PYTHONWARNINGS", "ignore")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3 runs the test identity provider");
    let stdout = child.stdout.take().expect("its stdout");
    let mut line = String::new();
    tokio::io::BufReader::new(stdout)
        .read_line(&mut line)
        .await
        .expect("the identity provider starts");
    let info: Value = serde_json::from_str(&line)
        .unwrap_or_else(|_| panic!("the identity provider did not start (pysaml2 and xmlsec1 installed?): {line:?}"));
    let text = |k: &str| info[k].as_str().expect(k).to_owned();
    Idp {
        entity_id: text("entityID"),
        sso_url: text("ssoURL"),
        certificate: text("certificate"),
        expired_certificate: text("expiredCertificate"),
        _child: child,
    }
}

/// A browser: follows no redirects, keeps Quire's session cookie and its
/// sign-in binding cookie.
struct Browser {
    client: reqwest::Client,
    session: Option<String>,
    request: Option<String>,
    /// The `Set-Cookie` headers of the last answer.
    set_cookies: Vec<String>,
}

impl Browser {
    fn new() -> Browser {
        Browser {
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client"),
            session: None,
            request: None,
            set_cookies: Vec::new(),
        }
    }

    fn cookies(&self) -> Option<String> {
        let pairs: Vec<String> = [("quire_session", &self.session), ("quire_saml_request", &self.request)]
            .into_iter()
            .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={v}")))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    fn keep_cookie(&mut self, res: &reqwest::Response) {
        self.set_cookies.clear();
        for value in res.headers().get_all(SET_COOKIE) {
            let value = value.to_str().expect("ASCII cookie");
            self.set_cookies.push(value.to_owned());
            let Some((name, rest)) = value.split_once('=') else {
                continue;
            };
            let token = rest.split(';').next().unwrap_or_default();
            let token = (!token.is_empty()).then(|| token.to_owned());
            match name {
                "quire_session" => self.session = token,
                "quire_saml_request" => self.request = token,
                _ => {}
            }
        }
    }

    async fn get(&mut self, url: &str) -> (u16, String, String) {
        let mut request = self.client.get(url);
        if let Some(cookies) = self.cookies() {
            request = request.header(COOKIE, cookies);
        }
        let res = request.send().await.expect("GET");
        self.answer(res).await
    }

    async fn post(&mut self, url: &str, form: &[(&str, &str)], origin: Option<&str>) -> (u16, String, String) {
        let mut request = form_post(&self.client, url, form);
        if let Some(cookies) = self.cookies() {
            request = request.header(COOKIE, cookies);
        }
        if let Some(origin) = origin {
            request = request.header(ORIGIN, origin);
        }
        let res = request.send().await.expect("POST");
        self.answer(res).await
    }

    /// Status, `Location`, body.
    async fn answer(&mut self, res: reqwest::Response) -> (u16, String, String) {
        self.keep_cookie(&res);
        let status = res.status().as_u16();
        let location = res
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        (status, location, res.text().await.unwrap_or_default())
    }
}

/// The value of a form field in an HTML page.
fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).unwrap_or_else(|| panic!("no {name} in {html}")) + marker.len();
    let end = html[start..].find('"').expect("closing quote") + start;
    html[start..end].to_owned()
}

fn form_action(html: &str) -> String {
    field(
        &html.replace("<form method=\"post\" action=\"", "name=\"action\" value=\""),
        "action",
    )
}

/// A provider for `idp` in the organization, with a default team and role.
async fn provider(app: &TestApp, admin: &TestUser, org: &str, idp: &Idp, extra: Value) -> Value {
    let mut body = json!({
        "label": "Test IdP",
        "entityID": idp.entity_id,
        "ssoURL": idp.sso_url,
        "certificate": idp.certificate,
    });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let res = app.post(admin, &format!("/v1/orgs/{org}/saml"), body).await;
    res.assert_status(201);
    res.body.clone()
}

/// Starts a login and lets the IdP answer as `email`: the ACS URL, the
/// response and the relay state it posts.
async fn idp_answer(browser: &mut Browser, provider: &Value, email: &str, variant: &str) -> (String, String, String) {
    let start = provider["service"]["startURL"].as_str().expect("startURL");
    let (status, location, _) = browser.get(start).await;
    assert_eq!(status, 303, "start redirects to the IdP");
    assert!(location.contains("SAMLRequest="), "{location}");
    let url = format!(
        "{location}&email={}&name=Grace%20Hopper&variant={variant}",
        urlencode(email)
    );
    let (status, _, form) = browser.get(&url).await;
    assert_eq!(status, 200, "the IdP answered: {form}");
    (
        form_action(&form),
        field(&form, "SAMLResponse"),
        field(&form, "RelayState"),
    )
}

/// A form posted as browsers post it (`application/x-www-form-urlencoded`).
fn form_post(client: &reqwest::Client, url: &str, form: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let body: Vec<String> = form
        .iter()
        .map(|(name, value)| format!("{}={}", urlencode(name), urlencode(value)))
        .collect();
    client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body.join("&"))
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn member(app: &TestApp, admin: &TestUser, org: &str, email: &str) -> Option<Value> {
    let res = app.get(admin, &format!("/v1/orgs/{org}/members?limit=100")).await;
    res.assert_status(200);
    res.items().iter().find(|m| m["user"]["email"] == email).cloned()
}

both_backends! {
    /// The whole story with the official client: an admin registers the
    /// identity provider, a person signs in, makes a token on the account
    /// page and uses it with the client.
    async fn the_official_client_registers_a_provider_and_uses_an_account_token(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let org = app.org(&admin, "Acme").await;
        let team = app.put(&admin, &format!("/v1/orgs/{org}/teams"), json!({ "title": "Docs" })).await.id();
        let mut node = std::process::Command::new("node");
        node.arg(client_dir().join("saml.mjs"))
            .env("QUIRE_PART", "register")
            .env("QUIRE_URL", &app.base_url)
            .env("QUIRE_TOKEN", &admin.token)
            .env("QUIRE_ORG_ID", &org)
            .env("QUIRE_TEAM_ID", &team)
            .env("QUIRE_IDP_ENTITY_ID", &idp.entity_id)
            .env("QUIRE_IDP_SSO_URL", &idp.sso_url)
            .env("QUIRE_IDP_CERTIFICATE", &idp.certificate);
        let out = run_node(node, "saml.mjs register").await;
        let id = out
            .lines()
            .find_map(|l| l.strip_prefix("provider "))
            .expect("the provider id")
            .to_owned();
        let provider = app.get(&admin, &format!("/v1/orgs/{org}/saml/{id}")).await.body.clone();

        let mut browser = Browser::new();
        let (acs, response, relay) = idp_answer(&mut browser, &provider, "grace@example.com", "good").await;
        let (status, location, page) = browser.post(&acs, &[("SAMLResponse", &response), ("RelayState", &relay)], None).await;
        assert_eq!((status, location.as_str()), (303, "/account"), "{page}");
        let account = format!("{}/account", app.base_url);
        let (_, _, page) = browser.get(&account).await;
        let csrf = field(&page, "csrf");
        let (status, _, page) = browser.post(&format!("{account}/tokens"), &[("csrf", &csrf), ("label", "client")], None).await;
        assert_eq!(status, 200, "{page}");
        let start = page.find("id=\"new-token\">").expect("the new token") + "id=\"new-token\">".len();
        let token = page[start..start + page[start..].find('<').expect("end")].to_owned();

        let mut node = std::process::Command::new("node");
        node.arg(client_dir().join("saml.mjs"))
            .env("QUIRE_PART", "use")
            .env("QUIRE_URL", &app.base_url)
            .env("QUIRE_TOKEN", &token)
            .env("QUIRE_EMAIL", "grace@example.com");
        run_node(node, "saml.mjs use").await;
    }

    async fn providers_are_managed_and_checked(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let editor = app.user("editor").await;
        let org = app.org(&admin, "Acme").await;
        app.add_member(&admin, &org, &editor, json!("edit")).await;
        let team = app.put(&admin, &format!("/v1/orgs/{org}/teams"), json!({ "title": "Docs" })).await.id();
        let other_org = app.org(&admin, "Other").await;
        let other_team = app.put(&admin, &format!("/v1/orgs/{other_org}/teams"), json!({ "title": "Elsewhere" })).await.id();
        let base = format!("/v1/orgs/{org}/saml");

        // A label alone begins a provider (Quire's URLs name its id, for
        // the identity provider's side); it cannot sign anyone in yet.
        let res = app.post(&admin, &base, json!({ "label": "Pending" })).await;
        res.assert_status(201);
        assert_eq!(res.body["status"], "pending");
        assert!(
            res.body["problem"].as_str().is_some_and(|p| p.contains("missing: entityID, ssoURL, certificate")),
            "{}",
            res.body
        );
        assert!(res.body["service"]["acsURL"].as_str().is_some_and(|u| u.ends_with("/acs")));
        let pending = res.id();
        let start = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client")
            .get(format!("{}/saml/{pending}/start", app.base_url))
            .send()
            .await
            .expect("GET start");
        assert!(start.status().is_client_error(), "{}", start.status());
        app.delete(&admin, &format!("{base}/{pending}")).await.assert_status(204);

        // Configured: active, with Quire's service URLs.
        let created = app
            .post(&admin, &base, json!({
                "label": "Okta", "entityID": idp.entity_id, "ssoURL": idp.sso_url,
                "certificate": idp.certificate,
            }))
            .await;
        created.assert_status(201);
        assert_eq!(created.body["object"], "saml-provider");
        assert_eq!(created.body["status"], "active");
        assert!(created.body.get("problem").is_none(), "{}", created.body);
        assert_eq!(created.body["defaultRole"], Value::Null);
        let id = created.id();
        let service = &created.body["service"];
        assert_eq!(service["acsURL"], format!("{}/saml/{id}/acs", app.base_url));
        assert_eq!(service["startURL"], format!("{}/saml/{id}/start", app.base_url));
        assert_eq!(service["entityID"], format!("{}/saml/{id}/metadata", app.base_url));
        assert_eq!(created.body["urls"]["location"], format!("{}/v1/orgs/{org}/saml/{id}", app.base_url));

        // Team and role.
        let res = app
            .patch(&admin, &format!("{base}/{id}"), json!({ "defaultTeam": team, "defaultRole": "edit" }))
            .await;
        res.assert_status(200);
        assert_eq!(res.body["defaultTeam"]["id"], team);
        assert_eq!(res.body["defaultRole"], "edit");
        assert_eq!(res.body["allowIdPInitiated"], false);

        // Bad input: 400, nothing changed.
        for (body, words) in [
            (json!({ "ssoURL": "/sso" }), "ssoURL"),
            (json!({ "entityID": "idp" }), "entityID"),
            (json!({ "certificate": "MIIBogus" }), "certificate"),
            (json!({ "certificate": idp.expired_certificate }), "expired"),
            (json!({ "defaultTeam": other_team }), "defaultTeam"),
            (json!({ "defaultRole": "owner" }), ""),
            (json!({ "label": "" }), "label"),
            (json!({ "label": "x".repeat(31) }), "label"),
        ] {
            let res = app.patch(&admin, &format!("{base}/{id}"), body.clone()).await;
            res.assert_status(400);
            assert!(res.message().contains(words), "{body}: {}", res.message());
        }
        app.post(&admin, &base, json!({ "ssoURL": idp.sso_url })).await.assert_status(400);
        let unchanged = app.get(&admin, &format!("{base}/{id}")).await;
        unchanged.assert_status(200);
        assert_eq!(unchanged.body["ssoURL"], idp.sso_url);
        assert_eq!(unchanged.body["label"], "Okta");

        // Admins only; members list the logins.
        app.post(&editor, &base, json!({ "label": "Mine" })).await.assert_status(403);
        app.get(&editor, &base).await.assert_status(403);
        app.get(&editor, &format!("{base}/{id}")).await.assert_status(403);
        let second = app
            .post(&admin, &base, json!({
                "label": "Second", "entityID": "urn:example:idp", "ssoURL": "https://idp.example/sso",
                "certificate": idp.certificate,
            }))
            .await
            .id();
        let list = app.get(&admin, &base).await;
        list.assert_status(200);
        assert_eq!(list.items().len(), 2);
        let logins = app.get(&editor, &format!("/v1/orgs/{org}/sso")).await;
        logins.assert_status(200);
        assert_eq!(logins.items().len(), 2);
        assert_eq!(
            logins.items()[0],
            json!({ "id": id, "label": "Okta", "startURL": format!("{}/saml/{id}/start", app.base_url) })
        );

        // The SP metadata, public.
        let metadata = reqwest::get(format!("{}/saml/{id}/metadata", app.base_url)).await.expect("metadata");
        assert_eq!(metadata.status().as_u16(), 200);
        let xml = metadata.text().await.expect("XML");
        assert!(xml.contains(&format!("entityID=\"{}/saml/{id}/metadata\"", app.base_url)), "{xml}");
        assert!(xml.contains(&format!("Location=\"{}/saml/{id}/acs\"", app.base_url)), "{xml}");
        // A provider that does not exist cannot start a login.
        let (status, _, page) = Browser::new().get(&format!("{}/saml/nope/start", app.base_url)).await;
        assert_eq!(status, 404, "{page}");
        assert!(page.contains("<!doctype html>"), "{page}");

        // Deleting: 204, also when already gone.
        app.delete(&admin, &format!("{base}/{second}")).await.assert_status(204);
        app.delete(&admin, &format!("{base}/{second}")).await.assert_status(204);
        app.get(&admin, &format!("{base}/{second}")).await.assert_status(404);
        app.delete(&editor, &format!("{base}/{id}")).await.assert_status(403);

        // Marking a member as an SSO member.
        let res = app.post(&admin, &format!("/v1/orgs/{org}/members/{}/sso", editor.id), json!(null)).await;
        res.assert_status(200);
        assert_eq!(res.body["sso"], true);
    }

    async fn a_login_provisions_and_leads_to_the_account_page(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let org = app.org(&admin, "Acme").await;
        let team = app.put(&admin, &format!("/v1/orgs/{org}/teams"), json!({ "title": "Docs" })).await.id();
        let provider = provider(&app, &admin, &org, &idp, json!({ "defaultTeam": team, "defaultRole": "edit" })).await;
        let id = provider["id"].as_str().expect("id").to_owned();

        let mut browser = Browser::new();
        let (acs, response, relay) = idp_answer(&mut browser, &provider, "grace@example.com", "good").await;
        assert_eq!(acs, format!("{}/saml/{id}/acs", app.base_url));
        let res = form_post(
            &browser.client,
            &acs,
            &[("SAMLResponse", response.as_str()), ("RelayState", relay.as_str())],
        )
        .send()
            .await
            .expect("ACS");
        if res.status().as_u16() != 303 {
            panic!("the login was refused: {}", res.text().await.unwrap_or_default());
        }
        assert_eq!(res.headers()[LOCATION], "/account");
        let cookie = res.headers()[SET_COOKIE].to_str().expect("cookie").to_owned();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
        browser.keep_cookie(&res);

        // Provisioned: a user, an SSO member with the default role, in the team.
        let grace = member(&app, &admin, &org, "grace@example.com").await.expect("Grace is a member");
        assert_eq!(grace["role"], "edit");
        assert_eq!(grace["sso"], true);
        assert_eq!(grace["user"]["displayName"], "Grace Hopper");
        let grace_id = grace["id"].as_str().expect("id").to_owned();
        let team_members = app.get(&admin, &format!("/v1/orgs/{org}/teams/{team}/members")).await;
        assert!(team_members.items().iter().any(|m| m["organization"]["id"] == grace_id), "{}", team_members.body);

        // The account page.
        let account = format!("{}/account", app.base_url);
        let (status, _, page) = browser.get(&account).await;
        assert_eq!(status, 200);
        assert!(page.contains("Grace Hopper") && page.contains("Acme"), "{page}");
        assert!(page.contains("No tokens yet"), "{page}");
        let csrf = field(&page, "csrf");

        // A token: made, shown once, used with the API.
        let tokens = format!("{account}/tokens");
        let (status, _, page) = browser.post(&tokens, &[("csrf", &csrf), ("label", "laptop")], Some(&app.base_url)).await;
        assert_eq!(status, 200, "{page}");
        let start = page.find("id=\"new-token\">").expect("the new token") + "id=\"new-token\">".len();
        let token = page[start..start + page[start..].find('<').expect("end")].to_owned();
        let me = app.request(reqwest::Method::GET, "/v1/user").token(&token).send().await;
        me.assert_status(200);
        assert_eq!(me.body["id"], grace_id);
        let (_, _, page) = browser.get(&account).await;
        assert!(page.contains("laptop") && !page.contains(&token), "the token is shown once: {page}");

        // CSRF: a wrong token, or another origin, changes nothing.
        let (status, _, _) = browser.post(&tokens, &[("csrf", "forged"), ("label", "evil")], None).await;
        assert_eq!(status, 403);
        let (status, _, _) = browser
            .post(&tokens, &[("csrf", &csrf), ("label", "evil")], Some("https://evil.example"))
            .await;
        assert_eq!(status, 403);
        let (_, _, page) = browser.get(&account).await;
        // The label as a cell: a random token id may hold the letters "evil".
        assert!(!page.contains("<td>evil</td>"), "{page}");
        let mut stranger = Browser::new();
        let (status, _, _) = stranger.post(&tokens, &[("csrf", &csrf), ("label", "evil")], None).await;
        assert_eq!(status, 403);

        // Revoked: the API refuses it at once.
        let token_id = field(&page.replace("<tr class=\"token\" data-id=\"", "name=\"token\" value=\""), "token");
        let (status, location, _) = browser
            .post(&format!("{tokens}/{token_id}/revoke"), &[("csrf", &csrf)], None)
            .await;
        assert_eq!((status, location.as_str()), (303, "/account"));
        app.request(reqwest::Method::GET, "/v1/user").token(&token).send().await.assert_status(401);

        // Signing out ends the session.
        let (status, _, _) = browser.post(&format!("{account}/sign-out"), &[("csrf", &csrf)], None).await;
        assert_eq!(status, 303);
        assert!(browser.session.is_none());
        let (_, _, page) = browser.get(&account).await;
        assert!(page.contains("not signed in"), "{page}");

        // Signing in again: the same member, once.
        let (acs, response, relay) = idp_answer(&mut browser, &provider, "grace@example.com", "assertion-signed").await;
        let (status, _, page) = browser.post(&acs, &[("SAMLResponse", &response), ("RelayState", &relay)], None).await;
        assert_eq!(status, 303, "{page}");
        let members = app.get(&admin, &format!("/v1/orgs/{org}/members?limit=100")).await;
        assert_eq!(members.items().iter().filter(|m| m["user"]["email"] == "grace@example.com").count(), 1);
    }

    async fn tampered_and_out_of_place_responses_are_refused(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let org = app.org(&admin, "Acme").await;
        let provider = provider(&app, &admin, &org, &idp, json!({ "defaultRole": "edit" })).await;
        let id = provider["id"].as_str().expect("id").to_owned();
        let acs = format!("{}/saml/{id}/acs", app.base_url);

        async fn refused(browser: &mut Browser, acs: &str, response: &str, words: &str) {
            let (status, _, page) = browser.post(acs, &[("SAMLResponse", response)], None).await;
            assert_eq!(status, 403, "expected a refusal ({words}): {page}");
            assert!(page.contains("<!doctype html>") && page.contains("refused"), "{page}");
            assert!(page.contains(words), "expected {words:?} in {page}");
            assert!(browser.session.is_none());
        }

        let mut browser = Browser::new();
        for (variant, words) in [
            ("unsigned", "verification"),
            ("other-key", "verification"),
            ("sha1", "verification"),
            ("wrong-audience", "Audience"),
            ("expired", "expired at"),
            ("xsw-sibling", "verification"),
            ("xsw-nested", "verification"),
        ] {
            let (_, response, _) = idp_answer(&mut browser, &provider, "grace@example.com", variant).await;
            refused(&mut browser, &acs, &response, words).await;
        }
        assert!(member(&app, &admin, &org, "mallory@evil.example").await.is_none());
        assert!(member(&app, &admin, &org, "grace@example.com").await.is_none());

        // Expired: the clock moved on before it was posted.
        let (_, response, _) = idp_answer(&mut browser, &provider, "grace@example.com", "good").await;
        app.clock.advance_millis(20 * 60 * 1000);
        refused(&mut browser, &acs, &response, "sign-in request").await;
        app.clock.advance_millis(-20 * 60 * 1000);
        let (_, response, _) = idp_answer(&mut browser, &provider, "grace@example.com", "good").await;
        app.clock.advance_millis(9 * 60 * 1000);
        refused(&mut browser, &acs, &response, "too long ago").await;
        app.clock.advance_millis(-9 * 60 * 1000);

        // Replayed: the same response twice.
        let (_, response, _) = idp_answer(&mut browser, &provider, "grace@example.com", "good").await;
        let (status, _, _) = browser.post(&acs, &[("SAMLResponse", &response)], None).await;
        assert_eq!(status, 303);
        browser.session = None;
        refused(&mut browser, &acs, &response, "sign-in request").await;

        // Unsolicited (IdP-initiated): refused while the option is off ...
        let audience = format!("{}/saml/{id}/metadata", app.base_url);
        let unsolicited_url = format!(
            "{}/unsolicited?acs={}&audience={}&email=ada%40example.com",
            idp.sso_url.trim_end_matches("/sso"),
            urlencode(&acs),
            urlencode(&audience)
        );
        let (_, _, form) = browser.get(&unsolicited_url).await;
        let unsolicited = field(&form, "SAMLResponse");
        refused(&mut browser, &acs, &unsolicited, "IdP-initiated").await;
        // ... taken once it is on, and only once.
        app.patch(&admin, &format!("/v1/orgs/{org}/saml/{id}"), json!({ "allowIdPInitiated": true }))
            .await
            .assert_status(200);
        let (status, _, page) = browser.post(&acs, &[("SAMLResponse", &unsolicited)], None).await;
        assert_eq!(status, 303, "{page}");
        browser.session = None;
        refused(&mut browser, &acs, &unsolicited, "already used").await;

        // Not a SAML response at all.
        let (status, _, page) = browser.post(&acs, &[("SAMLResponse", "bm90IFhNTA==")], None).await;
        assert_eq!(status, 403, "{page}");
        let (status, _, page) = browser.post(&acs, &[("RelayState", "/account")], None).await;
        assert_eq!(status, 400, "{page}");
        let (status, _, _) = browser
            .post(&format!("{}/saml/nope/acs", app.base_url), &[("SAMLResponse", &unsolicited)], None)
            .await;
        assert_eq!(status, 403);
    }

    /// A server without the `xmlsec1` command says so on every provider, and
    /// sends nobody to the identity provider: no response could be verified.
    #[app(without_xmlsec1)]
    async fn without_xmlsec1_a_provider_says_why_it_cannot_sign_in(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let org = app.org(&admin, "Acme").await;
        let provider = provider(&app, &admin, &org, &idp, json!({})).await;
        assert_eq!(provider["status"], "pending", "{provider}");
        let problem = provider["problem"].as_str().expect("a problem");
        assert!(problem.contains("cannot verify SAML signatures") && problem.contains("xmlsec1"), "{problem}");
        let mut browser = Browser::new();
        let start = provider["service"]["startURL"].as_str().expect("startURL");
        let (status, location, page) = browser.get(start).await;
        assert_eq!(status, 400, "{location} {page}");
        assert!(page.contains("xmlsec1"), "{page}");
        assert!(browser.session.is_none());
    }

    /// Behind https, a response is taken only from the browser that started
    /// its sign-in: nobody can sign someone else in as themselves.
    #[app(behind_https)]
    async fn behind_https_a_sign_in_belongs_to_the_browser_that_started_it(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let org = app.org(&admin, "Acme").await;
        let provider = provider(&app, &admin, &org, &idp, json!({})).await;
        let id = provider["id"].as_str().expect("id").to_owned();
        assert_eq!(provider["service"]["acsURL"], format!("https://docs.quire.test/saml/{id}/acs"));
        let acs = format!("{}/saml/{id}/acs", app.base_url);
        let metadata = format!("{}/saml/{id}/metadata", app.base_url);

        // Mallory starts a sign-in and completes it at the IdP as herself.
        let mut mallory = Browser::new();
        let (status, location, _) = mallory.get(&format!("{}/saml/{id}/start", app.base_url)).await;
        assert_eq!(status, 303);
        let binding = mallory.set_cookies.join("\n");
        assert!(
            binding.contains("quire_saml_request=")
                && binding.contains("Secure")
                && binding.contains("SameSite=None")
                && binding.contains(&format!("Path=/saml/{id}/acs")),
            "{binding}"
        );
        let url = format!("{location}&email=mallory%40example.com&metadata={}", urlencode(&metadata));
        let (status, _, form) = mallory.get(&url).await;
        assert_eq!(status, 200, "{form}");
        let response = field(&form, "SAMLResponse");

        // Her response, posted from someone else's browser: refused.
        let mut victim = Browser::new();
        let (status, _, page) = victim.post(&acs, &[("SAMLResponse", &response)], None).await;
        assert_eq!(status, 403, "{page}");
        assert!(page.contains("started in another browser"), "{page}");
        assert!(victim.session.is_none());
        // From her own browser: taken, and the binding cleared.
        let (status, _, page) = mallory.post(&acs, &[("SAMLResponse", &response)], None).await;
        assert_eq!(status, 303, "{page}");
        assert!(mallory.session.is_some() && mallory.request.is_none());
        let cookies = mallory.set_cookies.join("\n");
        assert!(cookies.contains("Secure"), "the session cookie is Secure behind https: {cookies}");
    }

    async fn organizations_enforcing_sso_give_tokens_only_through_it(app: TestApp) {
        let idp = start_idp().await;
        let admin = app.user("admin").await;
        let open = app.org(&admin, "Open").await;
        let strict = app.org(&admin, "Strict").await;
        app.patch(&admin, &format!("/v1/orgs/{strict}"), json!({ "sso": true })).await.assert_status(200);
        let open_provider = provider(&app, &admin, &open, &idp, json!({ "defaultRole": "read" })).await;
        let strict_provider = provider(&app, &admin, &strict, &idp, json!({ "defaultRole": "read" })).await;

        // Invites to an organization that enforces SSO make SSO members.
        let res = app
            .post(&admin, &format!("/v1/orgs/{strict}/invites"), json!({ "emails": ["grace@example.com"], "role": "read" }))
            .await;
        res.assert_status(200);

        // Signed in through Open only: Strict blocks new tokens.
        let mut browser = Browser::new();
        let (acs, response, _) = idp_answer(&mut browser, &open_provider, "grace@example.com", "good").await;
        let (status, _, _) = browser.post(&acs, &[("SAMLResponse", &response)], None).await;
        assert_eq!(status, 303);
        let strict_member = member(&app, &admin, &strict, "grace@example.com").await.expect("invited member");
        assert_eq!(strict_member["sso"], true);
        let account = format!("{}/account", app.base_url);
        let (_, _, page) = browser.get(&account).await;
        assert!(page.contains("Strict requires signing in through its single sign-on"), "{page}");
        let csrf = field(&page, "csrf");
        let (status, _, page) = browser
            .post(&format!("{account}/tokens"), &[("csrf", &csrf), ("label", "cli")], None)
            .await;
        assert_eq!(status, 403, "{page}");

        // Through Strict's SSO too, in the same session: allowed.
        let (acs, response, _) = idp_answer(&mut browser, &strict_provider, "grace@example.com", "good").await;
        let (status, _, _) = browser.post(&acs, &[("SAMLResponse", &response)], None).await;
        assert_eq!(status, 303);
        let (_, _, page) = browser.get(&account).await;
        assert_eq!(field(&page, "csrf"), csrf, "the same session");
        let (status, _, page) = browser
            .post(&format!("{account}/tokens"), &[("csrf", &csrf), ("label", "cli")], None)
            .await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("new-token"), "{page}");
    }
}
