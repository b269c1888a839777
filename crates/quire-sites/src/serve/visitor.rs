//! What a visitor brings: cookies (their token, the claims they set),
//! share keys, query values, and the sign-in redirect.

use super::*;

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

pub(super) fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(&v.replace('+', " ")))
    })
}
