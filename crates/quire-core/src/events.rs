//! What happened, as integrations hear it: the kinds of event a webhook
//! endpoint subscribes to, named as GitBook names its integration events
//! (`space_content_updated`, `space_gitsync_completed`) and in that style
//! for the rest.

/// A kind of event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    /// A space's own content has a new revision (an edit, a merge, an import).
    SpaceContentUpdated,
    ChangeRequestOpened,
    /// A change request's subject, description or content changed.
    ChangeRequestUpdated,
    ChangeRequestMerged,
    /// Archived without merging.
    ChangeRequestClosed,
    CommentCreated,
    SitePublished,
    SiteUnpublished,
    MemberJoined,
    MemberLeft,
    /// A Git Sync import or export ended (`state`: `success` or `failure`).
    SpaceGitSyncCompleted,
}

impl EventType {
    pub const ALL: [EventType; 11] = [
        EventType::SpaceContentUpdated,
        EventType::ChangeRequestOpened,
        EventType::ChangeRequestUpdated,
        EventType::ChangeRequestMerged,
        EventType::ChangeRequestClosed,
        EventType::CommentCreated,
        EventType::SitePublished,
        EventType::SiteUnpublished,
        EventType::MemberJoined,
        EventType::MemberLeft,
        EventType::SpaceGitSyncCompleted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::SpaceContentUpdated => "space_content_updated",
            EventType::ChangeRequestOpened => "change_request_opened",
            EventType::ChangeRequestUpdated => "change_request_updated",
            EventType::ChangeRequestMerged => "change_request_merged",
            EventType::ChangeRequestClosed => "change_request_closed",
            EventType::CommentCreated => "comment_created",
            EventType::SitePublished => "site_published",
            EventType::SiteUnpublished => "site_unpublished",
            EventType::MemberJoined => "member_joined",
            EventType::MemberLeft => "member_left",
            EventType::SpaceGitSyncCompleted => "space_gitsync_completed",
        }
    }

    pub fn parse(name: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::EventType;

    #[test]
    fn names_read_back() {
        for kind in EventType::ALL {
            assert_eq!(EventType::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(EventType::parse("space_deleted"), None);
    }
}

/// Where a webhook delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryState {
    /// Not sent yet, or failed with attempts left.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Every attempt failed.
    Failed,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<DeliveryState> {
        [DeliveryState::Pending, DeliveryState::Delivered, DeliveryState::Failed]
            .into_iter()
            .find(|state| state.as_str() == text)
    }
}
