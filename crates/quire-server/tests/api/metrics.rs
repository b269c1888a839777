//! Prometheus metrics: served on an address of their own (never on the
//! public one), with requests counted by route template and status, jobs by
//! kind and outcome, the queue, the database pool and the caches moving as
//! the server works. The registry is the process's, shared by the tests
//! running beside: values are compared before and after, never absolutely.

use serde_json::json;

use crate::support::both_backends;

/// The value of the sample `name{labels}` (labels as written, in order), 0
/// when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn scrape(url: &str) -> String {
    let res = reqwest::get(url).await.expect("scrape");
    assert_eq!(res.status(), 200);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    res.text().await.unwrap()
}

both_backends! {
    async fn metrics_move_as_the_server_works(app: TestApp) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/metrics", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(quire_server::metrics::serve(listener, app.state.app.clone(), async move {
            let _ = stopped.await;
        }));

        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let ok = r#"quire_http_requests_total{method="GET",route="/v1/spaces/{spaceId}",status="200"}"#;
        let missing = r#"quire_http_requests_total{method="GET",route="/v1/spaces/{spaceId}",status="404"}"#;
        let unmatched = r#"quire_http_requests_total{method="GET",route="unmatched",status="404"}"#;
        let timed = r#"quire_http_request_duration_seconds_count{method="GET",route="/v1/spaces/{spaceId}"}"#;
        let purged = r#"quire_jobs_total{kind="purge_space",outcome="done"}"#;
        let hits = r#"quire_cache_lookups_total{cache="api_reads",result="hit"}"#;
        let before = scrape(&url).await;

        for _ in 0..3 {
            app.get(&ada, &format!("/v1/spaces/{space}")).await.assert_status(200);
        }
        app.get(&ada, "/v1/spaces/nope").await.assert_status(404);
        let unknown = reqwest::get(format!("{}/v1/no/such/route", app.base_url)).await.unwrap();
        assert_eq!(unknown.status(), 404);
        app.delete(&ada, &format!("/v1/spaces/{space}")).await.assert_status(204);
        app.clock.advance_days(8);
        assert_eq!(app.run_due_jobs().await, 1);
        app.post(&ada, "/v1/orgs", json!({ "title": "Another" })).await.assert_status(201);

        let after = scrape(&url).await;
        assert!(sample(&after, ok) >= sample(&before, ok) + 3.0, "{after}");
        assert!(sample(&after, timed) >= sample(&before, timed) + 3.0, "{after}");
        assert!(sample(&after, missing) >= sample(&before, missing) + 1.0, "{after}");
        assert!(sample(&after, unmatched) >= sample(&before, unmatched) + 1.0, "{after}");
        assert!(sample(&after, purged) >= sample(&before, purged) + 1.0, "{after}");
        assert!(sample(&after, hits) >= sample(&before, hits) + 1.0, "the second read came from memory: {after}");
        assert!(sample(&after, "quire_db_connections") >= 1.0, "{after}");
        assert!(after.contains(r#"quire_jobs_in_queue{state="queued"}"#), "{after}");
        assert!(after.contains("quire_db_ping_duration_seconds_count"), "{after}");
        assert!(!after.contains(&ada.token), "no secret in the metrics");

        // The public address has no metrics.
        let public = reqwest::get(format!("{}/metrics", app.base_url)).await.unwrap();
        assert_eq!(public.status(), 404);
        assert!(!public.text().await.unwrap().contains("quire_http_requests_total"));
        let _ = stop.send(());
        server.await.unwrap().unwrap();
    }
}
