//! The baseline of the API reads benchmark: the least a Rust server on
//! axum can do to answer, every request given the same JSON bytes (those of
//! the read being measured), with no database, no authentication and no
//! layers.

use std::sync::Arc;

use anyhow::Context as _;
use axum::body::Bytes;
use axum::http::header;

use crate::Args;

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let file = args.body_file.as_ref().context("bare needs --body-file")?;
    let body: Arc<Bytes> = Arc::new(
        std::fs::read(file)
            .with_context(|| format!("read {}", file.display()))?
            .into(),
    );
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        async move { ([(header::CONTENT_TYPE, "application/json")], (*body).clone()) }
    });
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("listen on {}", args.listen))?;
    println!("bare: answering on {}", args.listen);
    axum::serve(listener, app).await.context("serve")
}
