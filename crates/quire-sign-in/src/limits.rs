//! Sign-in attempt limits: attempts are counted per account and per client
//! address over a sliding window in the database, so they hold across
//! nodes. An attempt is counted *before* its password or link is checked
//! ([`begin`]: one committed insert per subject, then a count that includes
//! it), so concurrent guesses cannot all pass a count read before any of
//! them was written: the attempt that makes a count exceed its limit, and
//! every one after it, is refused with 429 and `Retry-After` unchecked,
//! right or wrong, and taken back. A failed attempt stays counted and is
//! recorded in the audit log (the person it concerns when there is one,
//! the address, the reason; never the email or password typed); a
//! successful one is taken back and clears the account's count.

use quire_app::error::{AppError, AppResult};
use quire_app::{App, accounts};
use quire_core::Timestamp;
use quire_store::{Conn, audit, sign_in};

/// How long failures are remembered.
pub const WINDOW_MS: i64 = 15 * 60 * 1000;
/// Failures of one account within the window before its sign-ins stop.
pub const PER_ACCOUNT: i64 = 10;
/// Failures from one address within the window before its sign-ins stop
/// (higher: many people may share an address).
pub const PER_ADDRESS: i64 = 100;

/// What attempts are counted against.
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

/// An attempt, counted while it is checked.
#[derive(Debug)]
#[must_use = "an attempt is counted as failed unless it succeeded"]
pub struct Attempt {
    id: String,
    subjects: Subjects,
}

/// Counts an attempt against every subject, then refuses it with 429 when a
/// subject is over its limit (taking it back: it was not checked).
pub async fn begin(app: &App, subjects: &Subjects) -> AppResult<Attempt> {
    let now = app.now();
    let since = Timestamp(now.0 - WINDOW_MS);
    let attempt = Attempt {
        id: accounts::hash_token(&quire_core::id::random_alphanumeric(20)),
        subjects: subjects.clone(),
    };
    let each: Vec<&str> = subjects.each().map(|(s, _)| s).collect();
    let mut tx = app.db.write().await?;
    sign_in::record_attempt(&mut tx, &attempt.id, &each, now, since).await?;
    tx.commit_unaudited().await?;
    let mut refusal = None;
    {
        let mut conn = app.db.read().await?;
        for (subject, limit) in subjects.each() {
            let (count, first) = sign_in::failures_since(&mut conn, subject, since).await?;
            if count > limit {
                refusal = Some(too_many(now, first));
                break;
            }
        }
    }
    match refusal {
        Some(refusal) => {
            let mut tx = app.db.write().await?;
            sign_in::take_back_attempt(&mut tx, &attempt.id).await?;
            tx.commit_unaudited().await?;
            Err(refusal)
        }
        None => Ok(attempt),
    }
}

/// The 429 of a subject whose oldest counted attempt was at `first`.
fn too_many(now: Timestamp, first: Option<Timestamp>) -> AppError {
    let free_at = first.map_or(now.0 + WINDOW_MS, |f| f.0 + WINDOW_MS);
    let secs = ((free_at - now.0).max(1000) + 999) / 1000;
    AppError::TooManyAttempts {
        message: format!(
            "too many failed sign-in attempts; try again in {} minute(s)",
            (secs + 59) / 60
        ),
        retry_after_secs: secs as u64,
    }
}

impl Attempt {
    /// The attempt failed: it stays counted (its rows were written before
    /// it was checked), and the audit log records it, concerning `person`
    /// when the attempt named an account, with `reason`.
    pub async fn failed(self, app: &App, person: Option<&str>, reason: &str) -> AppResult<()> {
        audit::refused(reason);
        if let Some(person) = person {
            audit::subject(person);
            audit::concerning(audit::Target::new("user", person));
        }
        let tx = app.db.write().await?;
        tx.commit().await?;
        Ok(())
    }

    /// The attempt succeeded, in the caller's transaction: it is taken
    /// back, and the account's failures are forgotten.
    pub async fn succeeded(self, conn: &mut Conn) -> AppResult<()> {
        sign_in::take_back_attempt(conn, &self.id).await?;
        if let Some(account) = &self.subjects.account {
            sign_in::clear_failures(conn, account).await?;
        }
        Ok(())
    }
}
