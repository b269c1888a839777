//! Settings of spaces and collections: who sees them and how they are edited.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Role;

/// Who can reach a space's published content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    Public,
    Unlisted,
    ShareLink,
    VisitorAuth,
    /// Anyone who can access the parent collection; only for spaces in one.
    InCollection,
    Private,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Unlisted => "unlisted",
            Visibility::ShareLink => "share-link",
            Visibility::VisitorAuth => "visitor-auth",
            Visibility::InCollection => "in-collection",
            Visibility::Private => "private",
        }
    }

    pub fn parse(text: &str) -> Option<Visibility> {
        [
            Visibility::Public,
            Visibility::Unlisted,
            Visibility::ShareLink,
            Visibility::VisitorAuth,
            Visibility::InCollection,
            Visibility::Private,
        ]
        .into_iter()
        .find(|v| v.as_str() == text)
    }
}

/// Whether a space accepts edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    Live,
    Locked,
}

impl EditMode {
    pub fn as_str(self) -> &'static str {
        match self {
            EditMode::Live => "live",
            EditMode::Locked => "locked",
        }
    }

    pub fn parse(text: &str) -> Option<EditMode> {
        match text {
            "live" => Some(EditMode::Live),
            "locked" => Some(EditMode::Locked),
            _ => None,
        }
    }
}

/// The role every organization member gets on a space or collection:
/// `"inherit"` (what the parent gives), a role, or `null` (nothing extra).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultLevel {
    Inherit,
    Role(Role),
    None,
}

impl DefaultLevel {
    /// The stored form: `inherit`, a role name, or NULL.
    pub fn to_column(self) -> Option<&'static str> {
        match self {
            DefaultLevel::Inherit => Some("inherit"),
            DefaultLevel::Role(role) => Some(role.as_str()),
            DefaultLevel::None => None,
        }
    }

    pub fn from_column(text: Option<&str>) -> Option<DefaultLevel> {
        match text {
            None => Some(DefaultLevel::None),
            Some("inherit") => Some(DefaultLevel::Inherit),
            Some(role) => role.parse().ok().map(DefaultLevel::Role),
        }
    }

    /// The role this level grants by itself, if any.
    pub fn role(self) -> Option<Role> {
        match self {
            DefaultLevel::Role(role) => Some(role),
            _ => None,
        }
    }
}

impl Serialize for DefaultLevel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.to_column() {
            Some(text) => s.serialize_str(text),
            None => s.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for DefaultLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        DefaultLevel::from_column(text.as_deref()).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown default level {:?}: expected \"inherit\", a role (admin, create, review, edit, comment, read) or null",
                text.unwrap_or_default()
            ))
        })
    }
}

/// Where a change request is in its life: drafts and open ones take edits,
/// updates and merges; archived and merged ones do not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeRequestStatus {
    Draft,
    #[default]
    Open,
    Archived,
    Merged,
}

impl ChangeRequestStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeRequestStatus::Draft => "draft",
            ChangeRequestStatus::Open => "open",
            ChangeRequestStatus::Archived => "archived",
            ChangeRequestStatus::Merged => "merged",
        }
    }

    pub fn parse(text: &str) -> Option<ChangeRequestStatus> {
        [
            ChangeRequestStatus::Draft,
            ChangeRequestStatus::Open,
            ChangeRequestStatus::Archived,
            ChangeRequestStatus::Merged,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// Draft and open change requests still take edits, updates and merges.
    pub fn is_active(self) -> bool {
        matches!(self, ChangeRequestStatus::Draft | ChangeRequestStatus::Open)
    }
}

impl std::fmt::Display for ChangeRequestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who may read a published site (its audience).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SiteVisibility {
    /// Anyone; search engines may index it.
    Public,
    /// Anyone with the address; not indexed.
    Unlisted,
    /// Anyone with an active share link.
    ShareLink,
    /// Visitors signed in by the site's authentication (a signed token).
    VisitorAuth,
}

impl SiteVisibility {
    pub const ALL: [SiteVisibility; 4] = [
        SiteVisibility::Public,
        SiteVisibility::Unlisted,
        SiteVisibility::ShareLink,
        SiteVisibility::VisitorAuth,
    ];

    /// The official name (`"share-link"`…), also the stored one.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteVisibility::Public => "public",
            SiteVisibility::Unlisted => "unlisted",
            SiteVisibility::ShareLink => "share-link",
            SiteVisibility::VisitorAuth => "visitor-auth",
        }
    }

    pub fn parse(text: &str) -> Option<SiteVisibility> {
        SiteVisibility::ALL.into_iter().find(|v| v.as_str() == text)
    }
}

/// Who may read an OpenAPI spec's published reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecVisibility {
    Private,
    /// Anyone with the public link.
    Public,
}

impl SpecVisibility {
    pub fn as_str(self) -> &'static str {
        match self {
            SpecVisibility::Private => "private",
            SpecVisibility::Public => "public",
        }
    }

    pub fn parse(text: &str) -> Option<SpecVisibility> {
        [SpecVisibility::Private, SpecVisibility::Public]
            .into_iter()
            .find(|v| v.as_str() == text)
    }
}

/// Where an OpenAPI spec's processing is: queued, running, or done (with
/// or without errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcessingState {
    Pending,
    Progress,
    Complete,
}

impl ProcessingState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessingState::Pending => "pending",
            ProcessingState::Progress => "progress",
            ProcessingState::Complete => "complete",
        }
    }

    pub fn parse(text: &str) -> Option<ProcessingState> {
        [
            ProcessingState::Pending,
            ProcessingState::Progress,
            ProcessingState::Complete,
        ]
        .into_iter()
        .find(|v| v.as_str() == text)
    }
}

/// How a Git Sync operation stands (the official `GitSyncOperationState`;
/// Quire stops a run at its time limit as a failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyncState {
    Running,
    Success,
    Failure,
}

impl SyncState {
    pub fn as_str(self) -> &'static str {
        match self {
            SyncState::Running => "running",
            SyncState::Success => "success",
            SyncState::Failure => "failure",
        }
    }

    pub fn parse(text: &str) -> Option<SyncState> {
        [SyncState::Running, SyncState::Success, SyncState::Failure]
            .into_iter()
            .find(|v| v.as_str() == text)
    }
}

/// Which way a Git Sync operation goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyncDirection {
    Import,
    Export,
}

impl SyncDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            SyncDirection::Import => "import",
            SyncDirection::Export => "export",
        }
    }

    pub fn parse(text: &str) -> Option<SyncDirection> {
        [SyncDirection::Import, SyncDirection::Export]
            .into_iter()
            .find(|v| v.as_str() == text)
    }
}

/// Where a space's translation is (the official `TranslationStatus`): never
/// run or failed before any result, running, or with a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TranslationStatus {
    Pending,
    Running,
    Completed,
}

impl TranslationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TranslationStatus::Pending => "pending",
            TranslationStatus::Running => "running",
            TranslationStatus::Completed => "completed",
        }
    }

    pub fn parse(text: &str) -> Option<TranslationStatus> {
        [
            TranslationStatus::Pending,
            TranslationStatus::Running,
            TranslationStatus::Completed,
        ]
        .into_iter()
        .find(|v| v.as_str() == text)
    }
}
