//! The visit step: which published site a request reaches and what its
//! visitor may see there. Every rule of what a visitor sees is decided
//! here, with `crate::published` (the site's audience and adaptive
//! content): admission ([`admit`]: the site is published, its audience
//! lets this visitor in, by share key, token or claims, or they are sent to
//! sign in), then, on the [`Visit`], the pages withheld from them
//! ([`Visit::withheld`]) and the conditional blocks they do not see
//! ([`Visit::shows`], [`Visit::markdown`]). Answers ask the visit, never the
//! site's settings.
//!
//! What a visitor brings: a token (`?jwt_token=`, then kept in a cookie),
//! claims they set themselves (`?visitor.<name>=`, kept likewise), a share
//! key in the path.
//!
//! A site with a custom hostname lives there: asked for at its basename on
//! an instance whose public URL is https, it answers a 308 to the same
//! path on `https://{hostname}` (see [`at_hostname`]).

use super::*;

/// A visitor admitted to a site.
pub(super) struct Visit {
    pub(super) site: PublishedSite,
    /// Absolute path prefix of the site (`/docs`, `/docs/{key}`, or ``).
    pub(super) base: String,
    /// Scheme and host the site's absolute URLs start with.
    pub(super) origin: String,
}

impl Visit {
    /// The pages of a revision this visitor may not see.
    pub(super) fn withheld(&self, order: &ReadingOrder) -> Withheld {
        order.withheld(&self.site)
    }

    /// Whether a block under `condition` shows to this visitor.
    pub(super) fn shows(&self, condition: &str) -> bool {
        self.site.shows(Some(condition))
    }

    /// A page's markdown as this visitor may read it: conditional blocks
    /// whose condition does not hold for them left out (the markdown is as
    /// stored when it has none).
    pub(super) fn markdown<'b>(&self, body: &'b str) -> std::borrow::Cow<'b, str> {
        if !body.contains("{% if ") {
            return std::borrow::Cow::Borrowed(body);
        }
        let mut document = Document::from_markdown(body);
        document.retain_conditions(&|condition| self.shows(condition));
        std::borrow::Cow::Owned(document.to_markdown())
    }

    /// Whether search engines may index what this visitor is shown.
    pub(super) fn indexable(&self) -> bool {
        self.site.indexable()
    }
}

/// What admission gives: a visit with the rest of the path, or an answer
/// already (not found, sign in, or a redirect that settles the URL).
pub(super) enum Admitted {
    Visit(Box<Visit>, Vec<String>),
    Answer(Response),
}

/// Finds the site of the first candidate place that has one and admits the
/// visitor; a token or claims given in the URL move into cookies scoped to
/// the site, and the visitor lands on the same URL without them.
pub(super) async fn admit(
    state: &SiteState,
    headers: &HeaderMap,
    uri: &Uri,
    candidates: Vec<route::Candidate>,
) -> quire_app::AppResult<Admitted> {
    admit_as(state, headers, uri, candidates, Client::Browser).await
}

/// Who visits: a browser (a token or claims in the URL move into cookies
/// by a redirect; a site's root gets its trailing slash), or an agent
/// (the site's MCP server: the token may also come as `Authorization:
/// Bearer`, and nothing is redirected, since an agent posts to one URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Client {
    Browser,
    Agent,
}

/// [`admit`] for either kind of client.
pub(super) async fn admit_as(
    state: &SiteState,
    headers: &HeaderMap,
    uri: &Uri,
    candidates: Vec<route::Candidate>,
    client: Client,
) -> quire_app::AppResult<Admitted> {
    let query = uri.query().unwrap_or_default();
    let query_token = route::query_value(query, "jwt_token");
    let bearer = (client == Client::Agent)
        .then(|| {
            headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, token)| token.trim().to_owned())
        })
        .flatten();
    let query_token = query_token.or(bearer);
    let cookie_token = cookie(headers, TOKEN_COOKIE);
    let mut unsigned = cookie(headers, CLAIMS_COOKIE)
        .and_then(|c| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&percent_decode(&c)).ok())
        .unwrap_or_default();
    let mut claims_changed = false;
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if let Some(name) = k.strip_prefix("visitor.").filter(|n| !n.is_empty() && n.len() <= 64) {
            unsigned.insert(percent_decode(name), claim_value(&percent_decode(&v.replace('+', " "))));
            claims_changed = true;
        }
    }
    let token = query_token.as_deref().or(cookie_token.as_deref());
    let mut found = None;
    for candidate in &candidates {
        let mut visitor = Visitor {
            share_key: None,
            token,
            unsigned: unsigned.clone(),
        };
        let mut outcome = published::open(&state.app, candidate.address(), &visitor).await?;
        let (mut rest, mut base) = (&candidate.rest[..], candidate.base.clone());
        if matches!(outcome, Admission::Absent)
            && let Some(key) = rest.first()
        {
            visitor.share_key = Some(key);
            outcome = published::open(&state.app, candidate.address(), &visitor).await?;
            if !matches!(outcome, Admission::Absent) {
                base = format!("{base}/{key}");
                rest = &rest[1..];
            }
        }
        if client == Client::Browser
            && matches!(candidate.address(), published::Address::Basename(_))
            && state.public_url.starts_with("https://")
            && let Some(host) = outcome.hostname()
        {
            return Ok(Admitted::Answer(at_hostname(host, uri)));
        }
        match outcome {
            Admission::Absent => continue,
            Admission::SignIn { fallback_url, .. } => {
                return Ok(Admitted::Answer(sign_in(fallback_url, &candidate.origin, uri)));
            }
            Admission::Admitted(site) => {
                // On a site open to everyone, a share link's URL still works.
                if visitor.share_key.is_none()
                    && let Some(key) = rest.first().filter(|k| looks_like_share_key(k))
                    && published::is_share_key(&state.app, &site, key).await?
                {
                    found = Some((*site, &rest[1..], format!("{base}/{key}"), candidate.origin.clone()));
                    break;
                }
                found = Some((*site, rest, base, candidate.origin.clone()));
                break;
            }
        }
    }
    let Some((site, rest, base, origin)) = found else {
        return Ok(Admitted::Answer(not_found(None)));
    };
    if client == Client::Agent {
        let rest = rest.to_vec();
        return Ok(Admitted::Visit(Box::new(Visit { site, base, origin }), rest));
    }
    if query_token.is_some() || claims_changed {
        let secure = state.public_url.starts_with("https:") || origin.starts_with("https:") && base.is_empty();
        let token = query_token.as_deref().zip(site.token_expires);
        let claims = claims_changed.then_some(unsigned);
        return Ok(Admitted::Answer(keep_in_cookies(
            state, uri, &base, secure, token, claims,
        )));
    }
    if rest.is_empty() && !base.is_empty() && !uri.path().ends_with('/') {
        let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
        if let Ok(location) = HeaderValue::from_str(&format!("{base}/")) {
            res.headers_mut().insert(header::LOCATION, location);
        }
        return Ok(Admitted::Answer(res));
    }
    let rest = rest.to_vec();
    Ok(Admitted::Visit(Box::new(Visit { site, base, origin }), rest))
}

/// The answer to a request for a site at its basename when the site has a
/// custom hostname: a 308 to the same path (share key included) and query
/// at `https://{hostname}`, where the site's URLs lead (`urls.published`).
/// Only on an instance served over https: one whose public URL is http (a
/// laptop, a test) has no certificate for the hostname, whose name often
/// does not even resolve there, so the basename keeps answering.
fn at_hostname(host: &str, uri: &Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let inside = path.find('/').map_or("/", |i| &path[i..]);
    let location = match uri.query() {
        Some(query) => format!("https://{host}{inside}?{query}"),
        None => format!("https://{host}{inside}"),
    };
    let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        res.headers_mut().insert(header::LOCATION, value);
    }
    res
}

/// The redirect that moves a token (with its expiry, in seconds since the
/// epoch) and the visitor's claims from the URL into cookies of the site.
fn keep_in_cookies(
    state: &SiteState,
    uri: &Uri,
    base: &str,
    secure: bool,
    token: Option<(&str, i64)>,
    claims: Option<serde_json::Map<String, serde_json::Value>>,
) -> Response {
    let path = format!("{base}/");
    let query = uri.query().unwrap_or_default();
    let clean: Vec<&str> = query
        .split('&')
        .filter(|p| !p.starts_with("jwt_token=") && !p.starts_with("visitor.") && !p.is_empty())
        .collect();
    let location = if clean.is_empty() {
        uri.path().to_owned()
    } else {
        format!("{}?{}", uri.path(), clean.join("&"))
    };
    let mut res = StatusCode::SEE_OTHER.into_response();
    let h = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&location) {
        h.insert(header::LOCATION, v);
    }
    let secure = if secure { "; Secure" } else { "" };
    if let Some((token, expires)) = token {
        let max_age = (expires - state.app.now().0 / 1000).max(0);
        let cookie = format!("{TOKEN_COOKIE}={token}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}");
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            h.append(header::SET_COOKIE, v);
        }
    }
    if let Some(claims) = claims {
        let value = encode_component(&serde_json::Value::Object(claims).to_string());
        let cookie = format!("{CLAIMS_COOKIE}={value}; Path={path}; HttpOnly; SameSite=Lax{secure}");
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            h.append(header::SET_COOKIE, v);
        }
    }
    res
}

/// Share keys are 32 letters and digits; only such a segment is looked up.
pub(super) fn looks_like_share_key(segment: &str) -> bool {
    segment.len() == 32 && segment.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The cookie holding a visitor's token, scoped to the site's path.
pub(super) const TOKEN_COOKIE: &str = "quire_visitor";
/// The cookie holding the claims a visitor set themselves.
pub(super) const CLAIMS_COOKIE: &str = "quire_claims";

/// Cookies a site reads at most (a browser keeps 4 KB a cookie).
pub(super) const MAX_COOKIE_BYTES: usize = 4096;

pub(super) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    let values = headers
        .get_all(header::COOKIE)
        .into_iter()
        .filter_map(|v| v.to_str().ok());
    quire_core::cookies::value(values, name, MAX_COOKIE_BYTES).map(str::to_owned)
}

/// An unsigned claim's value: booleans and numbers as such, else text.
pub(super) fn claim_value(text: &str) -> serde_json::Value {
    match text {
        "true" => serde_json::Value::Bool(true),
        "false" => serde_json::Value::Bool(false),
        _ => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| serde_json::Value::String(text.to_owned()), serde_json::Value::Number),
    }
}

/// A visitor of a `visitor-auth` site without a valid token: sent to the
/// site's sign-in URL with where they were going, or told to sign in.
pub(super) fn sign_in(fallback_url: Option<String>, origin: &str, uri: &Uri) -> Response {
    let Some(url) = fallback_url else {
        let body = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"robots\" content=\"noindex, nofollow\"><title>Sign in required</title></head><body><h1>Sign in required</h1><p>This documentation is only available to signed-in visitors.</p></body></html>\n";
        return html(StatusCode::UNAUTHORIZED, body.to_owned(), false);
    };
    let path: String = uri.path().to_owned();
    let location = format!("{origin}{path}");
    let separator = if url.contains('?') { '&' } else { '?' };
    let target = format!("{url}{separator}location={}", encode_component(&location));
    let mut res = StatusCode::FOUND.into_response();
    if let Ok(v) = HeaderValue::from_str(&target) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res
}
