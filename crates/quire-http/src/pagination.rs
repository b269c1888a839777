//! List pages: the `page`/`limit` parameters, opaque cursors and the
//! `{items, count, next: {page}}` envelope of every list operation.
//!
//! A cursor is the position of the last row of the previous page in the
//! list's total order `(sort column, id)`, plus the sort and direction it was
//! made for; it is base64url so clients treat it as opaque. A cursor used
//! with another sort or direction is refused with 400 rather than misread.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use quire_store::page::PageRequest;
use quire_store::{Keyset, Page, SortKey};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::extract::Query;

pub const MAX_LIMIT: u32 = 1000;

/// `page` and `limit` from the query string.
#[derive(Debug, Default, Deserialize)]
pub struct PageParams {
    pub page: Option<String>,
    pub limit: Option<f64>,
}

impl<S: Send + Sync> FromRequestParts<S> for PageParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<PageParams>::from_request_parts(parts, state).await.map(|q| q.0)
    }
}

/// The total order of a list, as named in its cursors.
#[derive(Debug, Clone, Copy)]
pub struct ListOrder {
    /// Name of the sort (e.g. `joinedAt`).
    pub sort: &'static str,
    /// Whether the sort column holds text (else an integer).
    pub text_key: bool,
    pub descending: bool,
}

impl ListOrder {
    pub const fn ascending_by(sort: &'static str) -> ListOrder {
        ListOrder::by_int(sort, false)
    }

    /// An order by an integer column (times, positions).
    pub const fn by_int(sort: &'static str, descending: bool) -> ListOrder {
        ListOrder {
            sort,
            text_key: false,
            descending,
        }
    }

    /// An order by a text column (names).
    pub const fn by_text(sort: &'static str, descending: bool) -> ListOrder {
        ListOrder {
            sort,
            text_key: true,
            descending,
        }
    }
}

/// Spaces and collections list in the order of the organization's tree.
pub const TREE_ORDER: ListOrder = ListOrder::ascending_by("position");

/// The `order` query parameter of lists that take one (descending unless
/// asked otherwise).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Asc,
    #[default]
    Desc,
}

impl Order {
    pub fn is_descending(self) -> bool {
        matches!(self, Order::Desc)
    }
}

impl PageParams {
    /// Validates the parameters into a store page request for `order`.
    pub fn request(&self, order: ListOrder) -> Result<PageRequest, ApiError> {
        self.request_or(order, MAX_LIMIT)
    }

    /// As [`PageParams::request`], with `default_limit` items when the
    /// caller gives no `limit` (lists whose items are costly to build).
    pub fn request_or(&self, order: ListOrder, default_limit: u32) -> Result<PageRequest, ApiError> {
        let limit = match self.limit {
            None => default_limit,
            Some(l) if l.is_finite() && l.fract() == 0.0 && (0.0..=f64::from(MAX_LIMIT)).contains(&l) => l as u32,
            Some(l) => {
                return Err(ApiError::bad_request(format!(
                    "limit must be a whole number from 0 to {MAX_LIMIT}, got {l}"
                )));
            }
        };
        let after = self
            .page
            .as_deref()
            .map(|cursor| decode_cursor(cursor, order))
            .transpose()?;
        Ok(PageRequest {
            after,
            limit,
            descending: order.descending,
        })
    }
}

fn direction(order: ListOrder) -> &'static str {
    if order.descending { "d" } else { "a" }
}

fn encode_cursor(keyset: &Keyset, order: ListOrder) -> String {
    let key = match &keyset.key {
        SortKey::Int(v) => v.to_string(),
        SortKey::Text(v) => v.clone(),
    };
    let raw = format!("{}\n{}\n{}\n{}", order.sort, direction(order), keyset.id, key);
    URL_SAFE_NO_PAD.encode(raw)
}

fn decode_cursor(cursor: &str, order: ListOrder) -> Result<Keyset, ApiError> {
    let invalid = || ApiError::bad_request("invalid page cursor: pass the `next.page` value of the previous page");
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let raw = String::from_utf8(bytes).map_err(|_| invalid())?;
    let mut parts = raw.splitn(4, '\n');
    let (Some(sort), Some(dir), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(invalid());
    };
    if sort != order.sort || dir != direction(order) {
        return Err(ApiError::bad_request(
            "page cursor was made for another sort or order: keep the same parameters while paging",
        ));
    }
    let key = if order.text_key {
        SortKey::Text(key.to_owned())
    } else {
        SortKey::Int(key.parse().map_err(|_| invalid())?)
    };
    Ok(Keyset { key, id: id.to_owned() })
}

/// The list envelope.
#[derive(Debug, Serialize)]
pub struct List<T> {
    pub items: Vec<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<NextPage>,
}

#[derive(Debug, Serialize)]
pub struct NextPage {
    pub page: String,
}

impl<T> List<T> {
    /// A page of views already rendered from the rows of a store page.
    pub fn new(items: Vec<T>, total: Option<i64>, next: Option<&Keyset>, order: ListOrder) -> List<T> {
        List {
            items,
            count: total,
            next: next.map(|k| NextPage {
                page: encode_cursor(k, order),
            }),
        }
    }

    /// Shapes a store page, mapping each row with `view`.
    pub fn from_page<R>(page: Page<R>, order: ListOrder, view: impl FnMut(R) -> T) -> List<T> {
        List {
            next: page.next.as_ref().map(|k| NextPage {
                page: encode_cursor(k, order),
            }),
            count: page.total,
            items: page.items.into_iter().map(view).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BY_NAME: ListOrder = ListOrder {
        sort: "name",
        text_key: true,
        descending: false,
    };

    #[test]
    fn cursors_round_trip_and_refuse_other_orders() {
        let keyset = Keyset {
            key: SortKey::Text("Ada\nLovelace".into()),
            id: "abc".into(),
        };
        let cursor = encode_cursor(&keyset, BY_NAME);
        assert_eq!(decode_cursor(&cursor, BY_NAME).unwrap(), keyset);
        let by_join = ListOrder {
            sort: "joinedAt",
            text_key: false,
            descending: true,
        };
        assert!(decode_cursor(&cursor, by_join).is_err());
        assert!(decode_cursor("not a cursor!", BY_NAME).is_err());
    }

    #[test]
    fn limit_is_bounded() {
        let params = |limit| PageParams {
            page: None,
            limit: Some(limit),
        };
        assert_eq!(params(5.0).request(BY_NAME).unwrap().limit, 5);
        assert!(params(1001.0).request(BY_NAME).is_err());
        assert!(params(-1.0).request(BY_NAME).is_err());
        assert!(params(2.5).request(BY_NAME).is_err());
        assert_eq!(PageParams::default().request(BY_NAME).unwrap().limit, MAX_LIMIT);
    }
}
