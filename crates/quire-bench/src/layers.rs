//! `layers`: what recording request metrics costs, in process. The same
//! router (an API route answering a space's JSON, and a fallback) is
//! driven request after request on one thread, with and without the
//! metrics layers `quire serve --metrics-listen` adds, in alternating
//! rounds; the difference of the medians is the cost per request, set
//! against the CPU Quire spends per answer served from memory
//! (`scripts/hot-paths.sh` prints it).

use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use axum::routing::get;
use quire_server::metrics::{RecordLayer, TagRouteLayer};
use tower::{Service, ServiceExt};

use crate::Args;

/// Requests per round and configuration.
const REQUESTS: u32 = 200_000;
const ROUNDS: usize = 7;

fn router(metered: bool) -> Router {
    let space = || async {
        (
            [(header::CONTENT_TYPE, "application/json")],
            "{\"object\":\"space\"}".repeat(40),
        )
    };
    let routes = Router::new()
        .route("/v1/spaces/{spaceId}", get(space))
        .route("/v1/orgs/{organizationId}", get(space));
    if metered {
        routes
            .route_layer(TagRouteLayer)
            .fallback(|| async { "a published page" })
            .layer(RecordLayer)
    } else {
        routes.fallback(|| async { "a published page" })
    }
}

/// Nanoseconds per request through `router`, half of them routed and half
/// falling back.
async fn nanos_per_request(router: Router) -> anyhow::Result<f64> {
    let mut service = router.into_service::<Body>();
    let started = Instant::now();
    for i in 0..REQUESTS {
        let uri = if i % 2 == 0 { "/v1/spaces/s1" } else { "/handbook/page" };
        let request = Request::get(uri).body(Body::empty())?;
        let response = service.ready().await?.call(request).await?;
        axum::body::to_bytes(response.into_body(), usize::MAX).await?;
    }
    Ok(started.elapsed().as_nanos() as f64 / f64::from(REQUESTS))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

pub async fn run(_args: &Args) -> anyhow::Result<()> {
    let (mut plain, mut metered) = (Vec::new(), Vec::new());
    // A warm-up round of each, not counted (the route templates get kept).
    nanos_per_request(router(false)).await?;
    nanos_per_request(router(true)).await?;
    for _ in 0..ROUNDS {
        plain.push(nanos_per_request(router(false)).await?);
        metered.push(nanos_per_request(router(true)).await?);
    }
    let (plain, metered) = (median(plain), median(metered));
    println!("layers: {REQUESTS} requests × {ROUNDS} rounds, medians");
    println!("  router alone          {plain:>8.0} ns/request");
    println!("  with metrics layers   {metered:>8.0} ns/request");
    println!("  metrics cost          {:>8.0} ns/request", metered - plain);
    Ok(())
}
