//! Roles: what a member may do in an organization, a collection or a space,
//! and the two roles inside a team.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A content role. The declaration order is the privilege order, lowest first,
/// so `Ord` answers "is this role at least that one".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Read,
    Comment,
    Edit,
    Review,
    Create,
    Admin,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Read,
        Role::Comment,
        Role::Edit,
        Role::Review,
        Role::Create,
        Role::Admin,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Comment => "comment",
            Role::Edit => "edit",
            Role::Review => "review",
            Role::Create => "create",
            Role::Admin => "admin",
        }
    }

    /// True when this role grants at least what `other` grants.
    pub fn at_least(self, other: Role) -> bool {
        self >= other
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown role {0:?}")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

/// A member's role inside a team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TeamRole {
    Owner,
    Member,
}

impl TeamRole {
    pub fn as_str(self) -> &'static str {
        match self {
            TeamRole::Owner => "owner",
            TeamRole::Member => "member",
        }
    }
}

impl FromStr for TeamRole {
    type Err = UnknownRole;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "owner" => Ok(TeamRole::Owner),
            "member" => Ok(TeamRole::Member),
            other => Err(UnknownRole(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn privilege_order_matches_the_documented_one() {
        // admin > create > review > edit > comment > read
        assert!(Role::Admin > Role::Create);
        assert!(Role::Create > Role::Review);
        assert!(Role::Review > Role::Edit);
        assert!(Role::Edit > Role::Comment);
        assert!(Role::Comment > Role::Read);
    }

    #[test]
    fn roles_round_trip_through_text() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
        }
        assert!("owner".parse::<Role>().is_err());
    }
}
