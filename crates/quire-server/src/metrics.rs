//! Prometheus metrics over HTTP: the layers that count and time every
//! request by its route template, and `GET /metrics`, served on the
//! operator's own address (`--metrics-listen`), never on the public one.
//! The families themselves are named in `quire-metrics`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use pin_project_lite::pin_project;
use quire_app::App;
use quire_metrics::{StateLabels, metrics};
use tower::{Layer, Service};

// Both layers are plain tower services with futures of their own (no
// boxing, no clone of the inner service per request, no allocated labels):
// recording runs on every request, answers from memory included.

/// A route layer: hands the matched route's template to [`RecordLayer`] on
/// the response (the template is known only once the request is routed).
#[derive(Clone, Copy)]
pub struct TagRouteLayer;

impl<S> Layer<S> for TagRouteLayer {
    type Service = TagRoute<S>;
    fn layer(&self, inner: S) -> TagRoute<S> {
        TagRoute { inner }
    }
}

#[derive(Clone)]
pub struct TagRoute<S> {
    inner: S,
}

impl<S: Service<Request, Response = Response>> Service<Request> for TagRoute<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Tagged<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let matched = request.extensions().get::<MatchedPath>().cloned();
        Tagged {
            inner: self.inner.call(request),
            matched,
        }
    }
}

pin_project! {
    pub struct Tagged<F> {
        #[pin]
        inner: F,
        matched: Option<MatchedPath>,
    }
}

impl<F: Future<Output = Result<Response, E>>, E> Future for Tagged<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut result = ready!(this.inner.poll(cx));
        if let (Ok(response), Some(matched)) = (&mut result, this.matched.take()) {
            response.extensions_mut().insert(matched);
        }
        Poll::Ready(result)
    }
}

/// The outer layer: counts every answer by method, route and status, and
/// times it by method and route.
#[derive(Clone, Copy)]
pub struct RecordLayer;

impl<S> Layer<S> for RecordLayer {
    type Service = Record<S>;
    fn layer(&self, inner: S) -> Record<S> {
        Record { inner }
    }
}

#[derive(Clone)]
pub struct Record<S> {
    inner: S,
}

impl<S: Service<Request, Response = Response>> Service<Request> for Record<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Recorded<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let started = Instant::now();
        let method = request.method().clone();
        let path = request.uri().path();
        let unrouted = if path == "/v1" || path.starts_with("/v1/") {
            "unmatched"
        } else {
            "site"
        };
        Recorded {
            inner: self.inner.call(request),
            started,
            method,
            unrouted,
        }
    }
}

pin_project! {
    pub struct Recorded<F> {
        #[pin]
        inner: F,
        started: Instant,
        method: axum::http::Method,
        // The route of an answer no route tagged.
        unrouted: &'static str,
    }
}

impl<F: Future<Output = Result<Response, E>>, E> Future for Recorded<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let result = ready!(this.inner.poll(cx));
        if let Ok(response) = &result {
            let route = response
                .extensions()
                .get::<MatchedPath>()
                .map_or(*this.unrouted, MatchedPath::as_str);
            quire_metrics::request(
                this.method.as_str(),
                route,
                response.status().as_u16(),
                this.started.elapsed().as_secs_f64(),
            );
        }
        Poll::Ready(result)
    }
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
