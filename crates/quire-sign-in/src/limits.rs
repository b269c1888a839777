//! Sign-in attempt limits: failures are counted per account and per client
//! address over a sliding window in the database, so they hold across
//! nodes. While either count is at its limit, every attempt for that
//! subject is refused with 429 and `Retry-After`, right or wrong, so
//! guessing cannot go on; a successful sign-in clears the account's count.

use quire_app::error::{AppError, AppResult};
use quire_core::Timestamp;
use quire_store::{Conn, sign_in};

/// How long failures are remembered.
pub const WINDOW_MS: i64 = 15 * 60 * 1000;
/// Failures of one account within the window before its sign-ins stop.
pub const PER_ACCOUNT: i64 = 10;
/// Failures from one address within the window before its sign-ins stop
/// (higher: many people may share an address).
pub const PER_ADDRESS: i64 = 100;

/// What failures are counted against.
#[derive(Debug, Clone)]
pub struct Subjects {
    account: Option<String>,
    address: Option<String>,
}

impl Subjects {
    /// The account named by `email` (folded to lower case) and the client's
    /// address, when known.
    pub fn new(email: Option<&str>, address: Option<&str>) -> Subjects {
        Subjects {
            account: email.map(|e| format!("account:{}", e.trim().to_lowercase())),
            address: address.map(|a| format!("address:{a}")),
        }
    }

    fn each(&self) -> impl Iterator<Item = (&str, i64)> {
        self.account
            .iter()
            .map(|s| (s.as_str(), PER_ACCOUNT))
            .chain(self.address.iter().map(|s| (s.as_str(), PER_ADDRESS)))
    }
}

/// Refuses with 429 while any subject is at its limit.
pub async fn check(conn: &mut Conn, subjects: &Subjects, now: Timestamp) -> AppResult<()> {
    for (subject, limit) in subjects.each() {
        let (count, first) = sign_in::failures_since(conn, subject, Timestamp(now.0 - WINDOW_MS)).await?;
        if count >= limit {
            let free_at = first.map_or(now.0 + WINDOW_MS, |f| f.0 + WINDOW_MS);
            let secs = ((free_at - now.0).max(1000) + 999) / 1000;
            return Err(AppError::TooManyAttempts {
                message: format!(
                    "too many failed sign-in attempts; try again in {} minute(s)",
                    (secs + 59) / 60
                ),
                retry_after_secs: secs as u64,
            });
        }
    }
    Ok(())
}

/// Counts a failure against every subject.
pub async fn record_failure(conn: &mut Conn, subjects: &Subjects, now: Timestamp) -> AppResult<()> {
    let each: Vec<&str> = subjects.each().map(|(s, _)| s).collect();
    sign_in::record_failure(conn, &each, now, Timestamp(now.0 - WINDOW_MS)).await?;
    Ok(())
}

/// Forgets the account's failures after it signed in.
pub async fn clear_account(conn: &mut Conn, subjects: &Subjects) -> AppResult<()> {
    if let Some(account) = &subjects.account {
        sign_in::clear_failures(conn, account).await?;
    }
    Ok(())
}
