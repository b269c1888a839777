//! Time: stored as Unix milliseconds, shown as RFC 3339 UTC, read from an
//! injectable clock so tests can move time forward without waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, SecondsFormat, Utc};

/// A point in time, in milliseconds since the Unix epoch (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn millis(self) -> i64 {
        self.0
    }

    /// RFC 3339 with millisecond precision and a `Z` suffix.
    pub fn to_rfc3339(self) -> String {
        DateTime::<Utc>::from_timestamp_millis(self.0)
            .unwrap_or_default()
            .to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// RFC 2822 (`Tue, 24 Nov 2026 05:00:00 +0000`), as feeds date items.
    pub fn to_rfc2822(self) -> String {
        DateTime::<Utc>::from_timestamp_millis(self.0)
            .unwrap_or_default()
            .to_rfc2822()
    }

    /// Reads an RFC 3339 date-time (`2026-11-24T10:00:00Z`, any offset).
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| Timestamp(t.timestamp_millis()))
    }

    pub fn plus_days(self, days: i64) -> Timestamp {
        Timestamp(self.0 + days * 86_400_000)
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

/// Where "now" comes from.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// The real wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp(Utc::now().timestamp_millis())
    }
}

/// A clock that starts at the real time and moves only when told to.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<AtomicI64>);

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock(Arc::new(AtomicI64::new(SystemClock.now().0)))
    }
}

impl ManualClock {
    pub fn advance_millis(&self, millis: i64) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }

    pub fn advance_days(&self, days: i64) {
        self.advance_millis(days * 86_400_000);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        // Every reading advances by one millisecond so that two events read in
        // sequence never share a timestamp.
        Timestamp(self.0.fetch_add(1, Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_rfc3339_utc_millis() {
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(Timestamp(1_700_000_000_123).to_rfc3339(), "2023-11-14T22:13:20.123Z");
    }

    #[test]
    fn manual_clock_moves_only_forward_when_told() {
        let clock = ManualClock::default();
        let a = clock.now();
        clock.advance_days(8);
        assert!(clock.now().0 - a.0 >= 8 * 86_400_000);
    }
}
