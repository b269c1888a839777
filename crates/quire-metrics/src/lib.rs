//! The process's Prometheus metrics: one registry, every family named and
//! described once here, recorded by the crates that see the events
//! (requests in `quire-server`, rate limits and kept API reads in
//! `quire-http`, jobs in `quire-app`, kept published pages in
//! `quire-sites`), and written in Prometheus' text format by [`render`].
//! Gauges of the moment (job queue, database pool) are set by the one who
//! renders, just before; the caches' sizes and the process's memory are
//! asked for by [`render`] itself, from the reports their owners left
//! ([`watch_caches`], [`report_memory_with`]).
//!
//! The registry is the process's (a static): several servers in one process
//! (the tests) add to the same counters.

use std::collections::HashMap;
use std::sync::atomic::AtomicI64;
use std::sync::{OnceLock, PoisonError, RwLock};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// A request, by the route that answered it.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: &'static str,
    /// The route's template (`/v1/spaces/{spaceId}`), `site` for published
    /// sites, `unmatched` for addresses no route knows.
    pub route: &'static str,
    pub status: u16,
}

/// A request's route, for its latency.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub method: &'static str,
    pub route: &'static str,
}

/// A finished job attempt.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct JobLabels {
    pub kind: String,
    /// `done`, `retry` (failed, will run again) or `failed` (for good).
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    pub kind: String,
}

/// A lookup in one of the caches.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    /// `published` (published-site answers), `api_reads` (kept API reads),
    /// `tokens` (validated API tokens).
    pub cache: &'static str,
    /// `hit` or `miss`.
    pub result: &'static str,
}

/// One of the in-memory caches, for its size.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheNameLabels {
    pub cache: &'static str,
}

/// One measure of the process's memory.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct MemoryLabels {
    /// `resident` (the process's resident set, from the kernel), and what
    /// the allocator reports: `heap_allocated` (asked for by the program)
    /// and `heap_resident` (the allocator's pages in memory).
    pub kind: &'static str,
}

/// What a rate limit refused.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LimitLabels {
    /// `token`, `address`, `browser`, `site` or `sign_in`.
    pub client: &'static str,
}

/// Jobs in one state of the queue.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    pub state: String,
}

/// Every family of the process.
pub struct Metrics {
    registry: Registry,
    pub requests: Family<RequestLabels, Counter>,
    pub request_seconds: Family<RouteLabels, Histogram>,
    pub jobs: Family<JobLabels, Counter>,
    pub job_seconds: Family<KindLabels, Histogram>,
    pub jobs_in_queue: Family<StateLabels, Gauge<i64, AtomicI64>>,
    pub cache_lookups: Family<CacheLabels, Counter>,
    pub cache_entries: Family<CacheNameLabels, Gauge<i64, AtomicI64>>,
    pub cache_bytes: Family<CacheNameLabels, Gauge<i64, AtomicI64>>,
    pub memory_bytes: Family<MemoryLabels, Gauge<i64, AtomicI64>>,
    pub rate_limited: Family<LimitLabels, Counter>,
    pub db_connections: Gauge<i64, AtomicI64>,
    pub db_idle_connections: Gauge<i64, AtomicI64>,
    pub db_ping_seconds: Histogram,
}

/// Registers each family of `metrics` under its name (after the `quire_`
/// prefix) and description.
macro_rules! register {
    ($registry:ident, $metrics:ident; $($field:ident as $name:literal: $help:literal;)*) => {
        $( $registry.register($name, $help, $metrics.$field.clone()); )*
    };
}

fn latency() -> Histogram {
    // 0.25 ms to ~8 s.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

fn durations() -> Histogram {
    // 10 ms to ~80 min.
    Histogram::new(exponential_buckets(0.01, 2.0, 19))
}

impl Metrics {
    fn new() -> Metrics {
        let mut registry = Registry::with_prefix("quire");
        let metrics = Metrics {
            requests: Family::default(),
            request_seconds: Family::new_with_constructor(latency as fn() -> Histogram),
            jobs: Family::default(),
            job_seconds: Family::new_with_constructor(durations as fn() -> Histogram),
            jobs_in_queue: Family::default(),
            cache_lookups: Family::default(),
            cache_entries: Family::default(),
            cache_bytes: Family::default(),
            memory_bytes: Family::default(),
            rate_limited: Family::default(),
            db_connections: Gauge::default(),
            db_idle_connections: Gauge::default(),
            db_ping_seconds: latency(),
            registry: Registry::default(),
        };
        register! { registry, metrics;
            requests as "http_requests": "HTTP requests answered, by method, route template and status";
            request_seconds as "http_request_duration_seconds": "Time to answer an HTTP request, by method and route template";
            jobs as "jobs": "Background job attempts finished, by kind and outcome";
            job_seconds as "job_duration_seconds": "Time a background job attempt ran (Git imports and exports, PDFs, translations, ...), by kind";
            jobs_in_queue as "jobs_in_queue": "Background jobs in the shared queue, by state (queued, running), when scraped";
            cache_lookups as "cache_lookups": "Lookups in the in-memory caches, by cache and result";
            cache_entries as "cache_entries": "Entries in each in-memory cache, when scraped";
            cache_bytes as "cache_bytes": "Bytes each in-memory cache counts against its share of --cache-memory (keys, values and the cache's bookkeeping), when scraped";
            memory_bytes as "memory_bytes": "The process's memory, by kind (resident set; the allocator's allocated and resident bytes), when scraped";
            rate_limited as "rate_limited": "Requests refused by a rate limit, by kind of client";
            db_connections as "db_connections": "Connections of this node's database pool, when scraped";
            db_idle_connections as "db_idle_connections": "Idle connections of this node's database pool, when scraped";
            db_ping_seconds as "db_ping_duration_seconds": "Round trip of a trivial query to the database, measured at each scrape";
        }
        Metrics { registry, ..metrics }
    }
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(Metrics::new)
}

/// The methods requests are counted by; any other is `other`.
const METHODS: [&str; 10] = [
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE", "other",
];

/// One route template's handles into the request families, so that
/// recording a request is one lookup by its template (it runs on every
/// request, answers from memory included) and allocates nothing.
struct RouteMetrics {
    route: &'static str,
    by_method: [OnceLock<MethodMetrics>; METHODS.len()],
}

/// A route's handles for one method: its latency, and its answers by
/// status (a handful of statuses each).
struct MethodMetrics {
    seconds: Histogram,
    answers: RwLock<Vec<(u16, Counter)>>,
}

/// Counts an answered request by method, route template and status, and
/// times it by method and route.
pub fn request(method: &str, route: &str, status: u16, seconds: f64) {
    let route = route_metrics(route);
    let index = METHODS[..METHODS.len() - 1]
        .iter()
        .position(|m| *m == method)
        .unwrap_or(METHODS.len() - 1);
    let family = metrics();
    let of_method = route.by_method[index].get_or_init(|| MethodMetrics {
        seconds: family.request_seconds.get_or_create_owned(&RouteLabels {
            method: METHODS[index],
            route: route.route,
        }),
        answers: RwLock::default(),
    });
    of_method.seconds.observe(seconds);
    let counted = of_method
        .answers
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .find(|(s, _)| *s == status)
        .map(|(_, answers)| answers.inc())
        .is_some();
    if !counted {
        let mut answers = of_method.answers.write().unwrap_or_else(PoisonError::into_inner);
        match answers.iter().find(|(s, _)| *s == status) {
            Some((_, counter)) => {
                counter.inc();
            }
            None => {
                let counter = family.requests.get_or_create_owned(&RequestLabels {
                    method: METHODS[index],
                    route: route.route,
                    status,
                });
                counter.inc();
                answers.push((status, counter));
            }
        };
    }
}

/// The handles of a route template, each template's made and kept once.
/// Templates are the server's own (`site` and `unmatched` stand for every
/// other address), so there are as many as the server has routes.
fn route_metrics(route: &str) -> &'static RouteMetrics {
    static ROUTES: OnceLock<RwLock<HashMap<&'static str, &'static RouteMetrics>>> = OnceLock::new();
    let routes = ROUTES.get_or_init(RwLock::default);
    if let Some(known) = routes.read().unwrap_or_else(PoisonError::into_inner).get(route) {
        return known;
    }
    let mut routes = routes.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = routes.get(route) {
        return known;
    }
    let kept: &'static RouteMetrics = Box::leak(Box::new(RouteMetrics {
        route: Box::leak(route.into()),
        by_method: std::array::from_fn(|_| OnceLock::new()),
    }));
    routes.insert(kept.route, kept);
    kept
}

/// Counts a cache lookup.
pub fn cache_lookup(cache: &'static str, hit: bool) {
    metrics()
        .cache_lookups
        .get_or_create(&CacheLabels {
            cache,
            result: if hit { "hit" } else { "miss" },
        })
        .inc();
}

/// One cache's name, entries and bytes.
pub type CacheSize = (&'static str, u64, u64);

/// A report of some caches' sizes; `None` once their owner is gone.
type CacheReport = Box<dyn Fn() -> Option<Vec<CacheSize>> + Send + Sync>;

fn cache_reports() -> &'static RwLock<Vec<CacheReport>> {
    static REPORTS: OnceLock<RwLock<Vec<CacheReport>>> = OnceLock::new();
    REPORTS.get_or_init(RwLock::default)
}

/// Has [`render`] ask `sizes` for the sizes of `owner`'s caches, for as
/// long as `owner` lives (only a weak reference is kept). Owners of caches
/// with the same name (several servers in one process) are added up.
pub fn watch_caches<T: Send + Sync + 'static>(owner: &std::sync::Arc<T>, sizes: fn(&T) -> Vec<CacheSize>) {
    let owner = std::sync::Arc::downgrade(owner);
    let report: CacheReport = Box::new(move || owner.upgrade().map(|owner| sizes(&owner)));
    cache_reports()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .push(report);
}

/// The allocator's `(heap_allocated, heap_resident)` bytes, if the binary's
/// allocator can say.
type MemoryReport = fn() -> Option<(u64, u64)>;

static MEMORY_REPORT: OnceLock<MemoryReport> = OnceLock::new();

/// Has [`render`] ask the allocator for its figures (the binary sets it,
/// once: it owns the allocator).
pub fn report_memory_with(report: MemoryReport) {
    let _ = MEMORY_REPORT.set(report);
}

/// The process's resident set in bytes, from `/proc/self/status` (Linux).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line
        .trim_start_matches("VmRSS:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

fn gauge_value(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Sets the cache and memory gauges to what their reports say now.
fn refresh_sizes() {
    let family = metrics();
    let mut sizes: HashMap<&'static str, (u64, u64)> = HashMap::new();
    cache_reports()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|report| match report() {
            Some(caches) => {
                for (cache, entries, bytes) in caches {
                    let sum = sizes.entry(cache).or_default();
                    *sum = (sum.0 + entries, sum.1 + bytes);
                }
                true
            }
            None => false,
        });
    family.cache_entries.clear();
    family.cache_bytes.clear();
    for (cache, (entries, bytes)) in sizes {
        let labels = CacheNameLabels { cache };
        family.cache_entries.get_or_create(&labels).set(gauge_value(entries));
        family.cache_bytes.get_or_create(&labels).set(gauge_value(bytes));
    }
    let memory = |kind: &'static str, bytes: Option<u64>| {
        if let Some(bytes) = bytes {
            family
                .memory_bytes
                .get_or_create(&MemoryLabels { kind })
                .set(gauge_value(bytes));
        }
    };
    memory("resident", resident_bytes());
    let heap = MEMORY_REPORT.get().and_then(|report| report());
    memory("heap_allocated", heap.map(|(allocated, _)| allocated));
    memory("heap_resident", heap.map(|(_, resident)| resident));
}

/// Every metric in Prometheus' text format (version 0.0.4 and
/// OpenMetrics' `# EOF` end).
pub fn render() -> String {
    // One render at a time: refreshing clears the size gauges before
    // setting them again.
    static RENDERING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = RENDERING.lock().unwrap_or_else(PoisonError::into_inner);
    refresh_sizes();
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &metrics().registry);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_written_with_their_labels() {
        request("GET", &String::from("/v1/spaces/{spaceId}"), 200, 0.002);
        request("BREW", "site", 418, 0.002);
        cache_lookup("published", true);
        let text = render();
        assert!(
            text.contains(r#"quire_http_requests_total{method="GET",route="/v1/spaces/{spaceId}",status="200"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"quire_http_requests_total{method="other",route="site",status="418"} 1"#),
            "{text}"
        );
        assert!(
            std::ptr::eq(route_metrics(&String::from("/v1/x")), route_metrics("/v1/x")),
            "a template is kept once"
        );
        assert!(
            text.contains(r#"quire_cache_lookups_total{cache="published",result="hit"} 1"#),
            "{text}"
        );
        assert!(
            text.contains("# TYPE quire_http_request_duration_seconds histogram"),
            "{text}"
        );
    }

    #[test]
    fn cache_sizes_are_added_up_while_their_owners_live() {
        let owner = std::sync::Arc::new(());
        for _ in 0..2 {
            watch_caches(&owner, |_| vec![("test_pages", 3, 4096)]);
        }
        let text = render();
        assert!(text.contains(r#"quire_cache_entries{cache="test_pages"} 6"#), "{text}");
        assert!(text.contains(r#"quire_cache_bytes{cache="test_pages"} 8192"#), "{text}");
        assert!(text.contains(r#"quire_memory_bytes{kind="resident"} "#), "{text}");
        drop(owner);
        let text = render();
        assert!(!text.contains(r#"cache="test_pages""#), "{text}");
    }
}
