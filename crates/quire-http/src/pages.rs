//! Pages the server renders itself outside the web application and the
//! published sites (single sign-on screens, an MCP client's consent): a
//! document with no script, never cached, never framed.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// `html` as such a page, under the content security policy `csp`.
pub fn own_page(status: StatusCode, html: String, csp: &'static str) -> Response {
    let mut res = (status, html).into_response();
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    headers.insert("content-security-policy", HeaderValue::from_static(csp));
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    res
}
