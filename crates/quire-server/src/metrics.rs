//! Prometheus metrics over HTTP: the layers that count and time every
//! request by its route template, and `GET /metrics`, served on the
//! operator's own address (`--metrics-listen`), never on the public one.
//! The families themselves are named in `quire-metrics`.

use std::future::Future;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use quire_app::App;
use quire_metrics::{RequestLabels, RouteLabels, StateLabels, metrics};

/// A route layer: hands the matched route's template to [`record`] on the
/// response (the template is known only once the request is routed).
pub async fn tag_route(request: Request, next: Next) -> Response {
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if let Some(matched) = matched {
        response.extensions_mut().insert(matched);
    }
    response
}

/// The outer layer: counts every answer by method, route and status, and
/// times it by method and route.
pub async fn record(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_owned();
    let api = request.uri().path() == "/v1" || request.uri().path().starts_with("/v1/");
    let response = next.run(request).await;
    let route = match response.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str().to_owned(),
        None if api => "unmatched".to_owned(),
        None => "site".to_owned(),
    };
    let family = metrics();
    family
        .requests
        .get_or_create(&RequestLabels {
            method: method.clone(),
            route: route.clone(),
            status: response.status().as_u16(),
        })
        .inc();
    family
        .request_seconds
        .get_or_create(&RouteLabels { method, route })
        .observe(started.elapsed().as_secs_f64());
    response
}

/// `GET /metrics`.
pub fn router(app: App) -> Router {
    Router::new().route("/metrics", get(scrape)).with_state(app)
}

/// Serves [`router`] on its own listener until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: App,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(app))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Sets the gauges of the moment (database pool, job queue, a ping's round
/// trip), then writes every family.
async fn scrape(State(app): State<App>) -> Response {
    let family = metrics();
    let (connections, idle) = app.db.connections();
    family.db_connections.set(i64::from(connections));
    family.db_idle_connections.set(i64::try_from(idle).unwrap_or(i64::MAX));
    let pinged = Instant::now();
    if app.db.ping().await {
        family.db_ping_seconds.observe(pinged.elapsed().as_secs_f64());
    }
    let waiting = match app.db.read().await {
        Ok(mut conn) => quire_store::jobs::waiting_by_state(&mut conn).await.ok(),
        Err(_) => None,
    };
    if let Some(waiting) = waiting {
        for state in ["queued", "running"] {
            let jobs = waiting.iter().find(|(s, _)| s == state).map_or(0, |(_, n)| *n);
            family
                .jobs_in_queue
                .get_or_create(&StateLabels {
                    state: state.to_owned(),
                })
                .set(jobs);
        }
    }
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        quire_metrics::render(),
    )
        .into_response()
}
