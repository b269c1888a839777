//! The one HTTP client for server-side fetches (files by URL, and later
//! website imports, OpenAPI sources, translation providers).
//!
//! A URL given by a user must not become a way into the operator's network,
//! so every fetch goes through [`Fetcher`], which:
//! - accepts only `http` and `https` URLs;
//! - resolves host names itself and refuses loopback, private, shared
//!   (CGNAT), link-local, unspecified, multicast and reserved addresses
//!   (and their IPv6 equivalents, including IPv4-mapped addresses), unless
//!   the operator allows private networks. The connection then goes to the
//!   vetted addresses: there is no second DNS lookup a rebinding attack
//!   could answer differently;
//! - checks IP-literal hosts the same way, and checks every redirect target
//!   again (redirects are limited in number);
//! - ignores proxy environment variables (a proxy would resolve names
//!   itself, past the guard);
//! - has a connect timeout and a total timeout covering the whole body;
//! - enforces a size cap while the body streams in, never buffering more
//!   than the cap.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// How the fetch client behaves.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Allow fetches from loopback, private and other non-public addresses
    /// (`quire serve --allow-private-fetch`). Off by default.
    pub allow_private_networks: bool,
    /// Time allowed to open the connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// Time allowed for the whole fetch, redirects and body included.
    pub timeout: Duration,
    /// Redirects followed before giving up.
    pub max_redirects: usize,
}

impl Default for FetchConfig {
    fn default() -> FetchConfig {
        FetchConfig {
            allow_private_networks: false,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_redirects: 5,
        }
    }
}

/// Why a fetch failed. Messages are meant for the user who gave the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("{0:?} is not a valid URL")]
    InvalidUrl(String),
    #[error("only http and https URLs can be fetched, not {0:?}")]
    Scheme(String),
    #[error(
        "{host} is at {ip}, a {kind} address: this server does not fetch from private networks \
         (the operator can allow it with --allow-private-fetch)"
    )]
    Refused {
        host: String,
        ip: IpAddr,
        kind: &'static str,
    },
    #[error("{host} could not be resolved: {message}")]
    Resolve { host: String, message: String },
    #[error("could not connect: {0}")]
    Connect(String),
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    #[error("more than {0} redirects")]
    TooManyRedirects(usize),
    #[error("the server answered HTTP {0}")]
    Status(u16),
    #[error("the body is larger than {0} bytes")]
    TooLarge(usize),
    #[error("the fetch failed: {0}")]
    Other(String),
}

/// A successful fetch.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The URL the body came from (after redirects).
    pub url: Url,
    /// The response's `Content-Type`, if any.
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// What a POST got back.
#[derive(Debug, Clone)]
pub struct Posted {
    pub status: u16,
    /// The start of the response body.
    pub bytes: Vec<u8>,
}

/// The guarded HTTP client; cheap to clone (one connection pool).
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: Arc<FetchConfig>,
    guard: Arc<Guard>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("config", &self.config).finish()
    }
}

impl Fetcher {
    pub fn new(config: FetchConfig) -> Result<Fetcher, FetchError> {
        let guard = Guard {
            allow_private: config.allow_private_networks,
            exceptions: Vec::new(),
        };
        Fetcher::with_guard(config, guard)
    }

    fn with_guard(config: FetchConfig, guard: Guard) -> Result<Fetcher, FetchError> {
        let guard = Arc::new(guard);
        let max_redirects = config.max_redirects;
        let policy_guard = guard.clone();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > max_redirects {
                return attempt.error(FetchError::TooManyRedirects(max_redirects));
            }
            match policy_guard.check_url(attempt.url()) {
                Ok(()) => attempt.follow(),
                Err(err) => attempt.error(err),
            }
        });
        let client = reqwest::Client::builder()
            .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .redirect(redirects)
            .no_proxy()
            .dns_resolver(GuardedResolver { guard: guard.clone() })
            .build()
            .map_err(|e| FetchError::Other(format!("the HTTP client could not start: {e}")))?;
        Ok(Fetcher {
            client,
            config: Arc::new(config),
            guard,
        })
    }

    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// GETs `url` and returns its body, refusing any body over `max_bytes`
    /// and any answer other than 2xx.
    pub async fn get(&self, url: &str, max_bytes: usize) -> Result<Fetched, FetchError> {
        let url = Url::parse(url.trim()).map_err(|_| FetchError::InvalidUrl(url.to_owned()))?;
        self.guard.check_url(&url)?;
        let timeout = self.config.timeout;
        // reqwest's timeout covers the body too; this outer one makes the
        // promise independent of that detail.
        match tokio::time::timeout(timeout, self.get_checked(url, max_bytes)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout(timeout)),
        }
    }

    async fn get_checked(&self, url: Url, max_bytes: usize) -> Result<Fetched, FetchError> {
        let mut response = self.client.get(url).send().await.map_err(|e| self.error(e))?;
        let status = response.status();
        if status.is_redirection() {
            // A redirect the client did not follow: its target is not one to
            // fetch (`file:`, `ftp:`...), or it has no usable Location.
            let target = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|location| response.url().join(location).ok());
            if let Some(target) = target {
                self.guard.check_url(&target)?;
            }
        }
        if !status.is_success() {
            return Err(FetchError::Status(status.as_u16()));
        }
        if response.content_length().is_some_and(|n| n > max_bytes as u64) {
            return Err(FetchError::TooLarge(max_bytes));
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty());
        let final_url = response.url().clone();
        let capacity = response.content_length().unwrap_or(0).min(max_bytes as u64) as usize;
        let mut bytes = Vec::with_capacity(capacity);
        while let Some(chunk) = response.chunk().await.map_err(|e| self.error(e))? {
            if bytes.len() + chunk.len() > max_bytes {
                return Err(FetchError::TooLarge(max_bytes));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Fetched {
            url: final_url,
            content_type,
            bytes,
        })
    }

    /// Checks that `url` is one fetches may reach (scheme, and every address
    /// its host resolves to), without fetching it: for URLs kept to be
    /// called later (webhook endpoints), refused when they are given.
    pub async fn check(&self, url: &str) -> Result<Url, FetchError> {
        let url = Url::parse(url.trim()).map_err(|_| FetchError::InvalidUrl(url.to_owned()))?;
        self.guard.check_url(&url)?;
        if let Some(url::Host::Domain(host)) = url.host() {
            let port = url.port_or_known_default().unwrap_or(443);
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
                .await
                .map_err(|e| FetchError::Resolve {
                    host: host.to_owned(),
                    message: e.to_string(),
                })?
                .collect();
            self.guard.vet(host, resolved)?;
        }
        Ok(url)
    }

    /// POSTs `body` to `url` with `headers` and answers the status and the
    /// start of the response (at most `max_bytes`), whatever the status:
    /// the caller decides what counts as delivered. The same guard applies;
    /// redirects are followed as for fetches (307 and 308 keep the body).
    pub async fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: Vec<u8>,
        max_bytes: usize,
    ) -> Result<Posted, FetchError> {
        let url = Url::parse(url.trim()).map_err(|_| FetchError::InvalidUrl(url.to_owned()))?;
        self.guard.check_url(&url)?;
        let mut request = self.client.post(url).body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let timeout = self.config.timeout;
        let exchange = async {
            let mut response = request.send().await.map_err(|e| self.error(e))?;
            let status = response.status().as_u16();
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| self.error(e))? {
                let room = max_bytes.saturating_sub(bytes.len());
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if room < chunk.len() {
                    break;
                }
            }
            Ok(Posted { status, bytes })
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout(timeout)),
        }
    }

    /// A reqwest error as a [`FetchError`]: the guard's own refusals (from
    /// the resolver or the redirect policy) come back as they were raised.
    fn error(&self, err: reqwest::Error) -> FetchError {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&err);
        while let Some(current) = source {
            if let Some(fetch) = current.downcast_ref::<FetchError>() {
                return fetch.clone();
            }
            source = current.source();
        }
        if err.is_timeout() {
            FetchError::Timeout(self.config.timeout)
        } else if err.is_connect() {
            FetchError::Connect(chain(&err))
        } else {
            FetchError::Other(chain(&err))
        }
    }
}

/// An error and its causes, on one line.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Which addresses fetches may reach.
#[derive(Debug)]
struct Guard {
    allow_private: bool,
    /// Non-public addresses allowed anyway (tests use it to let one
    /// loopback address through and see the guard refuse the others).
    exceptions: Vec<IpAddr>,
}

impl Guard {
    /// The kind of `ip` when fetches may not reach it.
    fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        if self.allow_private || self.exceptions.contains(&ip) {
            return None;
        }
        classify(ip)
    }

    /// Checks what can be checked on the URL alone: the scheme, and the
    /// host when it is an IP literal (names are checked as they resolve).
    fn check_url(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme(url.scheme().to_owned()));
        }
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(url::Host::Domain(_)) => return Ok(()),
            None => return Err(FetchError::InvalidUrl(url.to_string())),
        };
        match self.refusal(ip) {
            Some(kind) => Err(FetchError::Refused {
                host: ip.to_string(),
                ip,
                kind,
            }),
            None => Ok(()),
        }
    }

    /// The addresses a fetch may connect to. When any address of a name is
    /// refused the whole name is refused: a name that mixes public and
    /// private addresses is not one to trust with a connection.
    fn vet(&self, host: &str, resolved: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, FetchError> {
        if resolved.is_empty() {
            return Err(FetchError::Resolve {
                host: host.to_owned(),
                message: "no addresses".into(),
            });
        }
        for addr in &resolved {
            if let Some(kind) = self.refusal(addr.ip()) {
                return Err(FetchError::Refused {
                    host: host.to_owned(),
                    ip: addr.ip(),
                    kind,
                });
            }
        }
        Ok(resolved)
    }
}

/// Resolves names with the system resolver and hands the connector only
/// the addresses the guard accepts.
struct GuardedResolver {
    guard: Arc<Guard>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| FetchError::Resolve {
                    host: host.clone(),
                    message: e.to_string(),
                })?
                .collect();
            let vetted = guard.vet(&host, resolved)?;
            let addrs: Addrs = Box::new(vetted.into_iter());
            Ok(addrs)
        })
    }
}

/// What kind of non-public address `ip` is, or `None` for a public one.
pub fn classify(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => classify_v4(ip),
        IpAddr::V6(ip) => classify_v6(ip),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => "unspecified",
        (127, _, _) => "loopback",
        (10, _, _) => "private",
        (172, 16..=31, _) => "private",
        (192, 168, _) => "private",
        (100, 64..=127, _) => "shared (carrier-grade NAT)",
        (169, 254, _) => "link-local",
        (192, 0, 0) => "reserved (IETF protocol assignments)",
        (198, 18..=19, _) => "reserved (benchmarking)",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    // Addresses that carry an IPv4 address reach that address: IPv4-mapped
    // (::ffff:a.b.c.d), the NAT64 well-known prefix (64:ff9b::/96) and
    // 6to4 (2002:aabb:ccdd::/48).
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let s = ip.segments();
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return classify_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    if s[0] == 0x2002 {
        return classify_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    Some(match s[0] {
        0xfc00..=0xfdff => "private (unique local)",
        0xfe80..=0xfebf => "link-local",
        0xfec0..=0xfeff => "site-local",
        0xff00..=0xffff => "multicast",
        // ::/96 (IPv4-compatible, deprecated) and the rest of ::/8.
        0x0000 => "reserved",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn kind(ip: &str) -> Option<&'static str> {
        classify(ip.parse().expect("test address parses"))
    }

    #[test]
    fn classifies_ipv4() {
        for (ip, expected) in [
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("127.0.0.1", "loopback"),
            ("127.255.255.254", "loopback"),
            ("10.0.0.1", "private"),
            ("10.255.255.255", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.0.1", "private"),
            ("192.168.255.255", "private"),
            ("100.64.0.1", "shared (carrier-grade NAT)"),
            ("100.127.255.255", "shared (carrier-grade NAT)"),
            ("169.254.169.254", "link-local"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("255.255.255.255", "reserved"),
            ("240.0.0.1", "reserved"),
            ("192.0.0.8", "reserved (IETF protocol assignments)"),
            ("198.18.0.1", "reserved (benchmarking)"),
        ] {
            assert_eq!(kind(ip), Some(expected), "{ip}");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "169.253.0.1",
            "223.255.255.255",
            "93.184.216.34",
        ] {
            assert_eq!(kind(ip), None, "{ip} is public");
        }
    }

    #[test]
    fn classifies_ipv6() {
        for (ip, expected) in [
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("fc00::1", "private (unique local)"),
            ("fd12:3456:789a::1", "private (unique local)"),
            ("fe80::1", "link-local"),
            ("febf:ffff::1", "link-local"),
            ("fec0::1", "site-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.1.2.3", "private"),
            ("::ffff:192.168.1.1", "private"),
            ("::ffff:169.254.169.254", "link-local"),
            ("::ffff:0.0.0.0", "unspecified"),
            ("64:ff9b::7f00:1", "loopback"),
            ("64:ff9b::a00:1", "private"),
            ("2002:c0a8:0101::1", "private"),
            ("2002:7f00:0001::1", "loopback"),
            ("::127.0.0.1", "reserved"),
        ] {
            assert_eq!(kind(ip), Some(expected), "{ip}");
        }
        for ip in [
            "2001:4860:4860::8888",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
            "fbff::1",
            "fe7f::1",
        ] {
            assert_eq!(kind(ip), None, "{ip} is public");
        }
    }

    #[test]
    fn a_name_with_any_refused_address_is_refused() {
        let public: SocketAddr = "93.184.216.34:0".parse().expect("address");
        let private: SocketAddr = "10.0.0.1:0".parse().expect("address");
        let guard = |allow_private| Guard {
            allow_private,
            exceptions: Vec::new(),
        };
        assert_eq!(
            guard(false).vet("example.com", vec![public]).expect("public is fine"),
            vec![public]
        );
        let refused = guard(false)
            .vet("rebind.example", vec![public, private])
            .expect_err("refused");
        assert!(
            matches!(refused, FetchError::Refused { kind: "private", .. }),
            "{refused:?}"
        );
        assert_eq!(
            guard(true)
                .vet("rebind.example", vec![public, private])
                .expect("allowed"),
            vec![public, private]
        );
        assert!(matches!(
            guard(true).vet("nothing.example", vec![]),
            Err(FetchError::Resolve { .. })
        ));
    }

    /// A tiny HTTP server on `ip` answering every request with
    /// `respond(path)` (raw response bytes; `None` never answers).
    async fn serve(ip: &str, respond: fn(&str, u16) -> Option<Vec<u8>>) -> u16 {
        let listener = tokio::net::TcpListener::bind((ip, 0)).await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&head);
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    match respond(&path, port) {
                        Some(answer) => {
                            let _ = socket.write_all(&answer).await;
                            let _ = socket.shutdown().await;
                        }
                        None => tokio::time::sleep(Duration::from_secs(60)).await,
                    }
                });
            }
        });
        port
    }

    fn answer(path: &str, port: u16) -> Option<Vec<u8>> {
        let ok = |body: &[u8], extra: &str| {
            let mut out =
                format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n{extra}Connection: close\r\n\r\n").into_bytes();
            out.extend_from_slice(body);
            Some(out)
        };
        let redirect = |to: String| {
            Some(
                format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .into_bytes(),
            )
        };
        match path {
            "/hello" => ok(b"hello", "Content-Length: 5\r\n"),
            // No Content-Length: the body ends when the connection closes.
            "/stream" => ok(&[b'x'; 100], ""),
            "/to-hello" => redirect(format!("http://localhost:{port}/hello")),
            "/to-127.0.0.1" => redirect(format!("http://127.0.0.1:{port}/hello")),
            "/loop" => redirect("/loop".into()),
            "/to-file" => redirect("file:///etc/passwd".into()),
            "/silent" => None,
            _ => Some(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()),
        }
    }

    fn fetcher(allow: bool) -> Fetcher {
        Fetcher::new(FetchConfig {
            allow_private_networks: allow,
            timeout: Duration::from_secs(2),
            max_redirects: 3,
            ..FetchConfig::default()
        })
        .expect("client")
    }

    #[tokio::test]
    async fn fetches_when_allowed_and_reports_every_failure() {
        let port = serve("127.0.0.1", answer).await;
        let base = format!("http://127.0.0.1:{port}");
        let open = fetcher(true);
        let hello = open.get(&format!("{base}/hello"), 5).await.expect("hello");
        assert_eq!(hello.bytes, b"hello");
        assert_eq!(hello.content_type.as_deref(), Some("text/plain"));
        let followed = open.get(&format!("{base}/to-hello"), 100).await.expect("redirect");
        assert_eq!(followed.bytes, b"hello");
        assert_eq!(followed.url.path(), "/hello");
        assert_eq!(
            open.get(&format!("{base}/stream"), 100)
                .await
                .expect("stream")
                .bytes
                .len(),
            100
        );

        let err = |r: Result<Fetched, FetchError>| r.expect_err("fails");
        assert_eq!(
            err(open.get(&format!("{base}/hello"), 4).await),
            FetchError::TooLarge(4)
        );
        assert_eq!(
            err(open.get(&format!("{base}/stream"), 99).await),
            FetchError::TooLarge(99)
        );
        assert_eq!(
            err(open.get(&format!("{base}/missing"), 9).await),
            FetchError::Status(404)
        );
        assert_eq!(
            err(open.get(&format!("{base}/loop"), 9).await),
            FetchError::TooManyRedirects(3)
        );
        assert_eq!(
            err(open.get(&format!("{base}/to-file"), 9).await),
            FetchError::Scheme("file".into())
        );
        assert_eq!(
            err(open.get(&format!("{base}/silent"), 9).await),
            FetchError::Timeout(Duration::from_secs(2))
        );
        assert_eq!(
            err(open.get("ftp://example.com/x", 9).await),
            FetchError::Scheme("ftp".into())
        );
        assert!(matches!(err(open.get("not a url", 9).await), FetchError::InvalidUrl(_)));
    }

    #[tokio::test]
    async fn refuses_private_addresses_by_literal_by_name_and_after_redirects() {
        let port = serve("127.0.0.1", answer).await;
        let guarded = fetcher(false);
        let refused = |r: Result<Fetched, FetchError>| match r {
            Err(FetchError::Refused { kind, .. }) => kind,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert_eq!(
            refused(guarded.get(&format!("http://127.0.0.1:{port}/hello"), 9).await),
            "loopback"
        );
        assert_eq!(
            refused(guarded.get(&format!("http://[::1]:{port}/hello"), 9).await),
            "loopback"
        );
        assert_eq!(
            refused(guarded.get(&format!("http://[::ffff:127.0.0.1]:{port}/"), 9).await),
            "loopback"
        );
        assert_eq!(
            refused(guarded.get("http://169.254.169.254/latest/meta-data/", 9).await),
            "link-local"
        );
        assert_eq!(refused(guarded.get("http://0x7f.1/", 9).await), "loopback");
        // A name is resolved once, by the guard; `localhost` is loopback.
        assert_eq!(
            refused(guarded.get(&format!("http://localhost:{port}/hello"), 9).await),
            "loopback"
        );
        let message = guarded
            .get(&format!("http://localhost:{port}/hello"), 9)
            .await
            .expect_err("refused")
            .to_string();
        assert!(message.contains("--allow-private-fetch"), "{message}");

        // Every redirect target is checked again. This fetcher may reach
        // 127.0.0.2 only (where a second server listens): a redirect to
        // 127.0.0.1 (a literal, checked by the redirect policy) or to
        // `localhost` (a name, checked as it resolves) is refused.
        let port = serve("127.0.0.2", answer).await;
        let one_address = Fetcher::with_guard(
            FetchConfig::default(),
            Guard {
                allow_private: false,
                exceptions: vec![IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))],
            },
        )
        .expect("client");
        let base = format!("http://127.0.0.2:{port}");
        assert_eq!(
            one_address
                .get(&format!("{base}/hello"), 9)
                .await
                .expect("allowed")
                .bytes,
            b"hello"
        );
        assert_eq!(
            refused(one_address.get(&format!("{base}/to-127.0.0.1"), 9).await),
            "loopback"
        );
        let by_name = one_address.get(&format!("{base}/to-hello"), 9).await;
        assert!(
            matches!(&by_name, Err(FetchError::Refused { host, .. }) if host == "localhost"),
            "{by_name:?}"
        );
    }
}
