//! `layers`: what recording request metrics costs, in process. The same
//! router (an API route answering a space's JSON, and a fallback) is
//! driven request after request on one thread, with and without the
//! metrics layers `quire serve --metrics-listen` adds, in alternating
//! rounds. As in the server, the router always has a stack of route layers
//! and a stack of outer layers (here a layer doing nothing stands for the
//! audit, rate-limit and tracing layers), and the metrics layers join
//! those stacks; the difference of the fastest rounds (and the median of
//! the paired differences) is the cost per request, set
//! against the CPU Quire spends per answer served from memory
//! (`scripts/hot-paths.sh` prints it).

use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use axum::routing::get;
use quire_server::metrics::{RecordLayer, TagRouteLayer};
use tower::util::MapRequestLayer;
use tower::{Service, ServiceBuilder, ServiceExt};

use crate::Args;

/// Requests per round and configuration.
const REQUESTS: u32 = 200_000;
const ROUNDS: usize = 15;

fn router(metered: bool) -> Router {
    let space = || async {
        (
            [(header::CONTENT_TYPE, "application/json")],
            "{\"object\":\"space\"}".repeat(40),
        )
    };
    // Stands for the layers the server has anyway.
    let others = || MapRequestLayer::new(|request: Request<Body>| request);
    Router::new()
        .route("/v1/spaces/{spaceId}", get(space))
        .route("/v1/orgs/{organizationId}", get(space))
        .route_layer(
            ServiceBuilder::new()
                .option_layer(metered.then_some(TagRouteLayer))
                .layer(others()),
        )
        .fallback(|| async { "a published page" })
        .layer(
            ServiceBuilder::new()
                .option_layer(metered.then_some(RecordLayer))
                .layer(others()),
        )
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
    let (mut plain, mut metered, mut differences) = (Vec::new(), Vec::new(), Vec::new());
    // A warm-up round of each, not counted (the route templates get kept).
    nanos_per_request(router(false)).await?;
    nanos_per_request(router(true)).await?;
    for _ in 0..ROUNDS {
        let without = nanos_per_request(router(false)).await?;
        let with = nanos_per_request(router(true)).await?;
        plain.push(without);
        metered.push(with);
        differences.push(with - without);
    }
    // Other work on the machine only adds time: the fastest round of each
    // is the least disturbed.
    let fastest = |values: &[f64]| values.iter().copied().fold(f64::INFINITY, f64::min);
    let (least_plain, least_metered) = (fastest(&plain), fastest(&metered));
    println!("layers: {REQUESTS} requests × {ROUNDS} rounds");
    println!(
        "  router alone          {least_plain:>8.0} ns/request (fastest round; median {:.0})",
        median(plain)
    );
    println!(
        "  with metrics layers   {least_metered:>8.0} ns/request (fastest round; median {:.0})",
        median(metered)
    );
    println!(
        "  metrics cost          {:>8.0} ns/request (fastest rounds; median of the paired differences {:.0})",
        least_metered - least_plain,
        median(differences)
    );
    Ok(())
}
