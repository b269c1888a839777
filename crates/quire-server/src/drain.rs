//! Request bodies read to their end even when the answer did not need them.
//!
//! An answer given before its request's body was read (a 401 from the
//! `Auth` extractor, a 404 for an unknown route, a 413) drops the body.
//! hyper then reads what has already arrived and, when the body is not
//! complete yet, closes the connection after the answer without saying
//! `Connection: close`: a client that sent its body a moment after its
//! headers finds its next request on that connection failing, and cannot
//! tell whether a POST was applied. [`DrainOnDrop`] keeps reading a dropped
//! body in the background, up to the body limit and for a bounded time, so
//! the connection stays usable; past either bound it is dropped and hyper
//! closes the connection as before.

use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::Request;
use http_body::{Frame, SizeHint};

use crate::http::MAX_BODY_BYTES;

/// How long a dropped body is read for at most.
const DRAIN_TIME: Duration = Duration::from_secs(30);

/// Wraps a request's body in [`DrainOnDrop`].
pub fn drain_unread_body(request: Request<Body>) -> Request<Body> {
    request.map(|body| Body::new(DrainOnDrop::new(body)))
}

/// A body that, dropped before its end, is read to its end in the background.
pub struct DrainOnDrop {
    inner: Option<Body>,
    /// Bytes read so far, by the handler or the drain.
    read: usize,
    ended: bool,
}

impl DrainOnDrop {
    fn new(body: Body) -> Self {
        DrainOnDrop {
            inner: Some(body),
            read: 0,
            ended: false,
        }
    }
}

impl HttpBody for DrainOnDrop {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                this.read += frame.data_ref().map_or(0, Bytes::len);
            }
            Poll::Ready(None | Some(Err(_))) => this.ended = true,
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.as_ref().is_none_or(HttpBody::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), HttpBody::size_hint)
    }
}

impl Drop for DrainOnDrop {
    fn drop(&mut self) {
        let Some(body) = self.inner.take() else { return };
        if self.ended || body.is_end_stream() || self.read >= MAX_BODY_BYTES {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let budget = MAX_BODY_BYTES - self.read;
            runtime.spawn(async move {
                let _ = tokio::time::timeout(DRAIN_TIME, drain(body, budget)).await;
            });
        }
    }
}

/// Reads and discards `body` until its end, an error, or `budget` bytes.
async fn drain(mut body: Body, mut budget: usize) {
    while let Some(Ok(frame)) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let len = frame.data_ref().map_or(0, Bytes::len);
        if len >= budget {
            return;
        }
        budget -= len;
    }
}
