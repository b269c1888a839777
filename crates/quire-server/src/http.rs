//! The HTTP application: routes, cross-cutting layers and the server loop.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderName, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use tower::ServiceBuilder;
use tower::util::MapRequestLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use tracing::Span;

use crate::api;
use crate::error::{ApiError, error_body};
use crate::state::AppState;

pub use quire_http::extract::MAX_BODY_BYTES;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

#[derive(Clone, Copy, Default)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, _request: &Request<B>) -> Option<RequestId> {
        quire_core::id::new_id().parse().ok().map(RequestId::new)
    }
}

/// The whole application with its state.
pub fn router(state: AppState) -> Router {
    let api = api::v1()
        .fallback(no_such_route)
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        // Writes that change published sites tell every node's cache.
        .layer(axum::middleware::from_fn_with_state(
            state.app.clone(),
            quire_sites::serve::announce_published_writes,
        ));
    // Everything else is a published site, served by quire-sites.
    let sites = quire_sites::serve::router(state.app.clone(), &state.public_url);
    let routes = Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .merge(quire_pdf_export::downloads())
        .merge(quire_sso::pages())
        .merge(quire_sign_in::router())
        .merge(quire_agents::router())
        .merge(quire_web::router(&state.public_url, sites.clone()))
        .nest("/v1", api)
        // `/v1/` is not matched by the nested router; it is an API address
        // all the same, never a published site's.
        .route("/v1/", any(no_such_route))
        // Whatever a request that may change something commits carries its
        // audit entry; counted requests are tagged with their route.
        .route_layer(
            ServiceBuilder::new()
                .option_layer(state.metrics.then_some(crate::metrics::TagRouteLayer))
                .layer(axum::middleware::from_fn_with_state(
                    state.clone(),
                    quire_http::audit::layer,
                )),
        );
    let limited = state.limiter.limits() != quire_http::limits::RateLimits::OFF;
    // Every layer below wraps the whole application. They are one stack,
    // given to the router once: each `Router::layer` boxes every route's
    // service and each request's future again.
    let layers = ServiceBuilder::new()
        .layer(SetRequestIdLayer::new(REQUEST_ID, NewRequestId))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(
            // Spans carry the method, the path (never the query string, which
            // may hold share keys; of a site, only its first segment, since a
            // share key may follow) and the request id; headers, and so
            // tokens, are never recorded. A request's line is written at
            // `info` for writes and at `debug` for reads (`GET`, `HEAD`:
            // published pages and API reads come by the tens of thousands a
            // second, and writing each line costs a fifth of that), and at
            // `error` for any 5xx.
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<_>| {
                    let id = request
                        .extensions()
                        .get::<RequestId>()
                        .and_then(|id| id.header_value().to_str().ok())
                        .unwrap_or("-");
                    let path = loggable_path(request.uri().path());
                    let method = request.method();
                    if method == Method::GET || method == Method::HEAD {
                        tracing::debug_span!("request", id, %method, path)
                    } else {
                        tracing::info_span!("request", id, %method, path)
                    }
                })
                .on_request(())
                .on_response(|response: &axum::http::Response<_>, latency: Duration, span: &Span| {
                    let status = response.status().as_u16();
                    let latency_ms = millis(latency);
                    if response.status().is_server_error() {
                        tracing::error!(status, latency_ms, "failed");
                    } else if span.is_disabled() {
                        tracing::debug!(status, latency_ms, "done");
                    } else {
                        tracing::info!(status, latency_ms, "done");
                    }
                }),
        )
        .layer(CatchPanicLayer::custom(|_| {
            error_body(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }))
        .layer(MapRequestLayer::new(crate::drain::drain_unread_body))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        // Every answer counted and timed, refusals included, when the
        // metrics are served.
        .option_layer(state.metrics.then_some(crate::metrics::RecordLayer))
        // Rate limits, before any work (cached reads included), when the
        // operator set any.
        .option_layer(limited.then(|| axum::middleware::from_fn_with_state(state.clone(), quire_http::limits::layer)))
        // The hottest reads from memory; every write announced.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            quire_http::reads::layer,
        ));
    routes.fallback_service(sites).layer(layers).with_state(state)
}

/// The path as logged: API paths whole, site paths cut after the first
/// segment (`/docs/…`), so a share key that follows is never written.
fn loggable_path(path: &str) -> String {
    if path == "/health" || path == "/ready" || path == "/v1" || path.starts_with("/v1/") {
        return path.to_owned();
    }
    match path.trim_start_matches('/').split_once('/') {
        Some((first, _)) => format!("/{first}/…"),
        None => path.to_owned(),
    }
}

/// A duration as a number of milliseconds to the microsecond (`1.234`).
fn millis(duration: Duration) -> f64 {
    duration.as_micros() as f64 / 1000.0
}

async fn no_such_route() -> ApiError {
    ApiError::NotFound("no such route".into())
}

/// Liveness: the process answers. No database work, so a load balancer
/// may ask as often as it likes.
async fn health() -> Response {
    (StatusCode::OK, axum::Json(serde_json::json!({ "status": "ok" }))).into_response()
}

/// How long readiness waits for the database.
const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// Readiness: the database answers within [`READY_TIMEOUT`], so this node
/// can serve requests.
async fn ready(State(state): State<AppState>) -> Response {
    match tokio::time::timeout(READY_TIMEOUT, state.app.db.ping()).await {
        Ok(true) => (StatusCode::OK, axum::Json(serde_json::json!({ "status": "ready" }))).into_response(),
        Ok(false) => error_body(StatusCode::SERVICE_UNAVAILABLE, "database unreachable"),
        Err(_) => error_body(StatusCode::SERVICE_UNAVAILABLE, "database did not answer in time"),
    }
}

/// Serves the application on an already-bound listener until `shutdown`
/// completes, then finishes in-flight requests.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    // `tap_io` (doing nothing) gives the listener axum's peer-address
    // `ConnectInfo`, which sessions and sign-in limits read.
    axum::serve(
        crate::connection::Listener(listener).tap_io(|_| ()),
        router(state).into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
