//! Serde helpers for request bodies.

use serde::{Deserialize, Deserializer};

/// Deserializes a field that distinguishes "absent" (`None`) from "null"
/// (`Some(None)`), as update bodies need:
/// `#[serde(default, deserialize_with = "nullable")]`.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}
