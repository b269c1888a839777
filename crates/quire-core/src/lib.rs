//! The vocabulary every Quire crate shares: roles, identifiers, time and the
//! small value types that parse their input instead of passing strings around.

pub mod content;
pub mod cookies;
pub mod digest;
pub mod events;
pub mod expression;
pub mod id;
pub mod memory;
pub mod percent;
pub mod role;
pub mod secrets;
pub mod serde_util;
pub mod time;
pub mod yaml;

pub use content::{
    ChangeRequestStatus, DefaultLevel, EditMode, ProcessingState, SiteVisibility, SpecVisibility, SyncDirection,
    SyncState, TranslationStatus, Visibility,
};
pub use role::{Role, TeamRole};
pub use time::{Clock, ManualClock, SystemClock, Timestamp};
