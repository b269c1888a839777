//! The connection layer below routing.
//!
//! hyper refuses some requests before any handler runs: a request line
//! longer than it accepts (414), headers too large (431), an unparsable
//! request (400). It answers those with a bare status line and no body.
//! [`Listener`] wraps each accepted connection so such an answer carries the
//! official error body like every other error: a head-only 400/414/431 that
//! hyper writes is replaced, in flight, by the same head with a JSON body.
//! Responses from handlers always have a body, so nothing else matches.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// A TCP listener whose connections give hyper's own error answers the
/// official error body.
pub struct Listener(pub TcpListener);

impl axum::serve::Listener for Listener {
    type Io = ErrorBodies<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, addr) = axum::serve::Listener::accept(&mut self.0).await;
        (ErrorBodies::new(stream), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// A connection that rewrites hyper's body-less error answers.
pub struct ErrorBodies<T> {
    inner: T,
    /// A replacement being written: its bytes, how many are written, and
    /// the length of what hyper asked to write (reported once done).
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl<T> ErrorBodies<T> {
    fn new(inner: T) -> Self {
        ErrorBodies { inner, pending: None }
    }
}

/// The message for an error hyper answers on its own.
fn message(status: StatusCode) -> Option<&'static str> {
    match status {
        StatusCode::BAD_REQUEST => Some("the request is not valid HTTP"),
        StatusCode::URI_TOO_LONG => Some("the request URI is too long"),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => Some("the request headers are too large"),
        _ => None,
    }
}

/// The response to write instead of `head`, when `head` is one of hyper's
/// body-less error answers.
fn with_error_body(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let rest = text
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| text.strip_prefix("HTTP/1.0 "))?;
    if !text.ends_with("\r\n\r\n") || text.matches("\r\n\r\n").count() != 1 {
        return None;
    }
    let status = StatusCode::from_bytes(rest.get(..3)?.as_bytes()).ok()?;
    let message = message(status)?;
    let empty = "\r\ncontent-length: 0\r\n";
    let at = text.to_ascii_lowercase().find(empty)?;
    let body = crate::error::error_json(status, message).to_string();
    let mut out = String::with_capacity(text.len() + body.len() + 64);
    out.push_str(&text[..at]);
    out.push_str("\r\ncontent-type: application/json\r\ncontent-length: ");
    out.push_str(&body.len().to_string());
    out.push_str("\r\n");
    out.push_str(&text[at + empty.len()..]);
    out.push_str(&body);
    Some(out.into_bytes())
}

impl<T: AsyncWrite + Unpin> ErrorBodies<T> {
    /// Writes the pending replacement; ready with the length hyper asked
    /// to write once all of it is out.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        while let Some((bytes, written, reported)) = &mut self.pending {
            if *written == bytes.len() {
                let reported = *reported;
                self.pending = None;
                return Poll::Ready(Ok(reported));
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(0))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ErrorBodies<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ErrorBodies<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.pending.is_none() {
            match with_error_body(buf) {
                Some(replacement) => self.pending = Some((replacement, 0, buf.len())),
                None => return Pin::new(&mut self.inner).poll_write(cx, buf),
            }
        }
        self.poll_pending(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.pending.is_none() {
            let mut filled = bufs.iter().filter(|b| !b.is_empty());
            match (filled.next(), filled.next()) {
                (Some(only), None) if with_error_body(only).is_some() => return self.poll_write(cx, only),
                _ => return Pin::new(&mut self.inner).poll_write_vectored(cx, bufs),
            }
        }
        self.poll_pending(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_error_heads_get_the_official_body() {
        let head = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: Mon, 23 Nov 2026 07:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(with_error_body(head).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"));
        assert!(head.contains("content-type: application/json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("date: "));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["error"]["code"], 414);
    }

    #[test]
    fn other_responses_pass_unchanged() {
        assert!(with_error_body(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(with_error_body(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n").is_none());
        assert!(with_error_body(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}").is_none());
        assert!(with_error_body(b"{\"items\":[]}").is_none());
    }
}
