//! Site redirects (the official `site-redirects` operations): a path of a
//! site sent to a section, site space or page of the same site, or to any
//! other URL.
//!
//! - **Sources** follow the official `SiteRedirectSourcePath`: `/` then
//!   segments of letters, digits, `-._~+` and `%XX` escapes, at most 512
//!   characters, optionally ending in `/*` (the path and every path below
//!   it) or `*` (every path starting so: `/v1*` takes `/v1-beta/x`). A
//!   source is unique per site among the live redirects and among the
//!   drafts: a draft may be prepared beside the live redirect it will
//!   replace (`bulkUpsertSiteRedirects`' `publish`).
//! - **Destinations** are the official `SiteRedirectDestination`: a section,
//!   site space or page of the site (checked to exist when written), or an
//!   external http(s) URL. On input, a page may also be named by its space
//!   and path (`kind: "path"`), resolved when written.
//! - **Input** is read field by field so every refusal names its field
//!   (`redirects[2].destination.pageId: ...`), and nothing is written
//!   unless everything is valid: the bulk upsert runs in one transaction.
//! - **Matching** ([`Rules`]): an exact source first, then the wildcard
//!   source with the longest prefix; what the wildcard matched is appended
//!   to the destination when `captureWildcard` is set ([`append`]).
//!
//! Who: members who see the site read its redirects, its admins change
//! them (`access::site`, as the site's other settings).

use std::collections::HashMap;
use std::sync::Arc;

use quire_core::percent::{decode as percent_decode, encode_component};
use quire_engine::Snapshot;
use quire_store::page::PageRequest;
use quire_store::site_redirects::{self, RedirectFilter, RedirectOrder, RedirectRow};
use quire_store::sites::{self, SiteRow, SiteSpaceRow, Structure};
use quire_store::{Conn, Page, spaces};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use quire_app::access;
use quire_app::error::{AppError, AppResult, NotFoundExt};
use quire_app::{App, Caller, input};

/// The longest source (the official `maxLength`).
pub const MAX_SOURCE_LENGTH: usize = 512;
/// Redirects one bulk upsert may carry (the official `maxItems`).
pub const MAX_BULK: usize = 500;

// ---------------------------------------------------------------------------
// Sources and matching
// ---------------------------------------------------------------------------

/// What a source takes besides its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// `/old/page`: that path only.
    Exact,
    /// `/old/*`: the path and every path below it.
    Below,
    /// `/old*`: every path starting with it.
    Prefix,
}

/// A source read: its prefix (decoded, without the leading slash) and its
/// tail; `None` when it is not a source the official pattern allows.
pub fn parse_source(value: &str) -> Option<(String, Tail)> {
    if value.len() > MAX_SOURCE_LENGTH {
        return None;
    }
    let (body, tail) = if let Some(body) = value.strip_suffix("/*") {
        (body, Tail::Below)
    } else if let Some(body) = value.strip_suffix('*') {
        (body, Tail::Prefix)
    } else {
        (value, Tail::Exact)
    };
    let segments = body.strip_prefix('/').filter(|s| !s.is_empty())?;
    let valid_segment = |segment: &str| {
        let bytes = segment.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b if b.is_ascii_alphanumeric() || b"-._~+".contains(&b) => i += 1,
                b'%' if bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                {
                    i += 3
                }
                _ => return false,
            }
        }
        !segment.is_empty()
    };
    segments
        .split('/')
        .all(valid_segment)
        .then(|| (percent_decode(segments), tail))
}

/// A source as given, or the refusal naming `field`.
fn source(field: &str, value: &str) -> AppResult<String> {
    match parse_source(value) {
        Some(_) => Ok(value.to_owned()),
        None => Err(AppError::invalid(format!(
            "{field} must be a path of the site such as /old/page: segments of letters, digits, '-', '.', '_', \
             '~', '+' and %XX escapes, optionally ending in /* or *, at most {MAX_SOURCE_LENGTH} characters \
             (got {value:?})"
        ))),
    }
}

/// Where a redirect sends its visitors (the official
/// `SiteRedirectDestination`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Destination {
    #[serde(rename = "site-section", rename_all = "camelCase")]
    Section { site_section_id: String },
    #[serde(rename = "site-space", rename_all = "camelCase")]
    SiteSpace { site_space_id: String },
    #[serde(rename = "site-page", rename_all = "camelCase")]
    Page { site_space_id: String, page_id: String },
    #[serde(rename = "external")]
    External { url: String },
}

impl Destination {
    /// The stored destination of a row (`None` if it does not read, which
    /// only a corrupt row could cause).
    pub fn of(row: &RedirectRow) -> Option<Destination> {
        serde_json::from_str(&row.destination).ok()
    }
}

/// A live redirect ready for matching.
#[derive(Debug, Clone)]
pub struct Rule {
    pub source: String,
    prefix: String,
    tail: Tail,
    pub capture_wildcard: bool,
    pub permanent: bool,
    pub destination: Destination,
}

impl Rule {
    /// The rule of a row, if its source and destination read.
    fn of(row: &RedirectRow) -> Option<Rule> {
        let (prefix, tail) = parse_source(&row.source)?;
        Some(Rule {
            source: row.source.clone(),
            prefix,
            tail,
            capture_wildcard: row.capture_wildcard,
            permanent: row.permanent,
            destination: Destination::of(row)?,
        })
    }

    /// What of `path` (decoded, no leading slash) the rule's wildcard
    /// matched, when it matches.
    fn matches<'p>(&self, path: &'p str) -> Option<&'p str> {
        match self.tail {
            Tail::Exact => (path == self.prefix).then_some(""),
            Tail::Below => match path.strip_prefix(&self.prefix)? {
                "" => Some(""),
                rest => rest.strip_prefix('/'),
            },
            Tail::Prefix => path.strip_prefix(&self.prefix),
        }
    }

    /// `url` (a path of the site or an absolute URL) with what the
    /// wildcard matched appended when the rule captures it: below a `/*`
    /// source as a path segment, after a `*` source as it stands.
    pub fn target(&self, url: &str, matched: &str) -> String {
        if !self.capture_wildcard || matched.is_empty() {
            return url.to_owned();
        }
        append(url, matched, self.tail == Tail::Below)
    }
}

/// `url` with the decoded `suffix` appended to its path (before any query
/// or fragment), each of its segments percent-encoded; `as_segment` puts a
/// `/` between them.
pub fn append(url: &str, suffix: &str, as_segment: bool) -> String {
    let split = url.find(['?', '#']).unwrap_or(url.len());
    let (path, tail) = url.split_at(split);
    let encoded: Vec<String> = suffix.split('/').map(encode_component).collect();
    let encoded = encoded.join("/");
    let joined = match (path.ends_with('/'), encoded.starts_with('/')) {
        (true, true) => format!("{path}{}", &encoded[1..]),
        (false, false) if as_segment => format!("{path}/{encoded}"),
        _ => format!("{path}{encoded}"),
    };
    format!("{joined}{tail}")
}

/// The live redirects of a site, ready to match request paths: exact
/// sources by path, wildcard ones longest prefix first.
#[derive(Debug, Default)]
pub struct Rules {
    exact: HashMap<String, Rule>,
    wildcards: Vec<Rule>,
    /// Bytes the rules hold, for the cache keeping them.
    bytes: usize,
}

impl Rules {
    pub fn new(rows: &[RedirectRow]) -> Rules {
        let mut rules = Rules::default();
        for row in rows.iter().filter(|r| !r.draft) {
            let Some(rule) = Rule::of(row) else {
                tracing::warn!(redirect = %row.id, "a site redirect that does not read was left out");
                continue;
            };
            rules.bytes += std::mem::size_of::<Rule>() + 2 * rule.source.len() + row.destination.len() + 64;
            match rule.tail {
                Tail::Exact => {
                    rules.exact.insert(rule.prefix.clone(), rule);
                }
                Tail::Below | Tail::Prefix => rules.wildcards.push(rule),
            }
        }
        rules.wildcards.sort_by(|a, b| {
            b.prefix
                .len()
                .cmp(&a.prefix.len())
                .then_with(|| a.source.cmp(&b.source))
        });
        rules
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.wildcards.is_empty()
    }

    /// The rule `path` (decoded, without its leading slash) follows, with
    /// what its wildcard matched.
    pub fn find<'p>(&self, path: &'p str) -> Option<(&Rule, &'p str)> {
        if let Some(rule) = self.exact.get(path) {
            return Some((rule, ""));
        }
        self.wildcards
            .iter()
            .find_map(|rule| rule.matches(path).map(|matched| (rule, matched)))
    }

    /// What the rules take in memory (their strings and records).
    pub fn weight(&self) -> usize {
        std::mem::size_of::<Rules>() + self.bytes
    }
}

// ---------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------

/// The fields of a JSON object, read so every refusal names its field.
struct Fields<'a> {
    /// Where the object is (`""` for the body, `redirects[2]`).
    at: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn of(at: &'a str, value: &'a Value) -> AppResult<Fields<'a>> {
        match value.as_object() {
            Some(map) => Ok(Fields { at, map }),
            None if at.is_empty() => Err(AppError::invalid("the body must be a JSON object")),
            None => Err(AppError::invalid(format!("{at} must be an object"))),
        }
    }

    fn name(&self, key: &str) -> String {
        if self.at.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.at)
        }
    }

    /// Refuses any field but `known`.
    fn only(&self, known: &[&str]) -> AppResult<()> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(unknown) => Err(AppError::invalid(format!(
                "{}: unknown field (known: {})",
                self.name(unknown),
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    fn boolean(&self, key: &str) -> AppResult<Option<bool>> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(AppError::invalid(format!("{} must be true or false", self.name(key)))),
        }
    }

    fn text(&self, key: &str) -> AppResult<Option<&'a str>> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(AppError::invalid(format!("{} must be a string", self.name(key)))),
        }
    }

    fn required_text(&self, key: &str) -> AppResult<&'a str> {
        self.text(key)?
            .ok_or_else(|| AppError::invalid(format!("{} is required", self.name(key))))
    }

    /// A required id: a non-empty string.
    fn id(&self, key: &str) -> AppResult<String> {
        match self.required_text(key)? {
            "" => Err(AppError::invalid(format!("{} must not be empty", self.name(key)))),
            id => Ok(id.to_owned()),
        }
    }

    fn required(&self, key: &str) -> AppResult<&'a Value> {
        self.map
            .get(key)
            .ok_or_else(|| AppError::invalid(format!("{} is required", self.name(key))))
    }
}

/// A destination as given: one of the site's, or a page named by its
/// space and path (input only).
#[derive(Debug, Clone)]
enum Wanted {
    Is(Destination),
    Path { space_id: String, path: String },
}

const KINDS: [&str; 4] = ["site-section", "site-space", "site-page", "external"];

/// Reads a destination at `at`; `paths` allows `kind: "path"` (creation
/// and bulk upsert take it, the update does not).
fn destination(at: &str, value: &Value, paths: bool) -> AppResult<Wanted> {
    let fields = Fields::of(at, value)?;
    let kind = fields.required_text("kind")?;
    let wanted = match kind {
        "site-section" => {
            fields.only(&["kind", "siteSectionId"])?;
            Destination::Section {
                site_section_id: fields.id("siteSectionId")?,
            }
        }
        "site-space" => {
            fields.only(&["kind", "siteSpaceId"])?;
            Destination::SiteSpace {
                site_space_id: fields.id("siteSpaceId")?,
            }
        }
        "site-page" => {
            fields.only(&["kind", "siteSpaceId", "pageId"])?;
            Destination::Page {
                site_space_id: fields.id("siteSpaceId")?,
                page_id: fields.id("pageId")?,
            }
        }
        "external" => {
            fields.only(&["kind", "url"])?;
            let name = fields.name("url");
            let url = input::http_url(&name, fields.required_text("url")?)?;
            // A URI is ASCII (the official `format: uri`), and a Location
            // header carries it as it is.
            if !url.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(AppError::invalid(format!(
                    "{name} must be ASCII, with other characters percent-encoded"
                )));
            }
            Destination::External { url }
        }
        "path" if paths => {
            fields.only(&["kind", "spaceId", "path"])?;
            return Ok(Wanted::Path {
                space_id: fields.id("spaceId")?,
                path: fields.required_text("path")?.to_owned(),
            });
        }
        _ => {
            let mut kinds = KINDS.to_vec();
            if paths {
                kinds.push("path");
            }
            return Err(AppError::invalid(format!(
                "{} must be one of {} (got {kind:?})",
                fields.name("kind"),
                kinds.join(", ")
            )));
        }
    };
    Ok(Wanted::Is(wanted))
}

/// The site's structure and the spaces' content, to check what
/// destinations name.
struct Places<'s> {
    site: &'s SiteRow,
    structure: Structure,
    snapshots: HashMap<String, Arc<Snapshot>>,
}

impl<'s> Places<'s> {
    async fn load(conn: &mut Conn, site: &'s SiteRow) -> AppResult<Places<'s>> {
        Ok(Places {
            structure: sites::structure(conn, &site.id).await?,
            site,
            snapshots: HashMap::new(),
        })
    }

    fn site_space(&self, id: &str) -> Option<&SiteSpaceRow> {
        self.structure.site_spaces.iter().find(|s| s.id == id)
    }

    /// The current content of a site space's space.
    async fn snapshot(&mut self, app: &App, conn: &mut Conn, site_space_id: &str) -> AppResult<Option<Arc<Snapshot>>> {
        let Some(space_id) = self.site_space(site_space_id).map(|s| s.space_id.clone()) else {
            return Ok(None);
        };
        if let Some(snapshot) = self.snapshots.get(&space_id) {
            return Ok(Some(snapshot.clone()));
        }
        let rows = spaces::get_many(conn, std::slice::from_ref(&space_id)).await?;
        let Some(space) = rows.into_iter().find(|s| s.deleted_at.is_none()) else {
            return Ok(None);
        };
        let snapshot = app.engine.revisions.snapshot(&space.id, &space.revision_id).await?;
        self.snapshots.insert(space_id, snapshot.clone());
        Ok(Some(snapshot))
    }

    /// The destination `wanted` names, checked to be in the site; the
    /// refusal names the field at `at`.
    async fn check(&mut self, app: &App, conn: &mut Conn, at: &str, wanted: Wanted) -> AppResult<Destination> {
        match wanted {
            Wanted::Is(Destination::Section { site_section_id }) => {
                if !self.structure.sections.iter().any(|s| s.id == site_section_id) {
                    return Err(AppError::invalid(format!(
                        "{at}.siteSectionId: section {site_section_id:?} is not in this site"
                    )));
                }
                Ok(Destination::Section { site_section_id })
            }
            Wanted::Is(Destination::SiteSpace { site_space_id }) => {
                if self.site_space(&site_space_id).is_none() {
                    return Err(AppError::invalid(format!(
                        "{at}.siteSpaceId: site space {site_space_id:?} is not in this site"
                    )));
                }
                Ok(Destination::SiteSpace { site_space_id })
            }
            Wanted::Is(Destination::Page { site_space_id, page_id }) => {
                let Some(snapshot) = self.snapshot(app, conn, &site_space_id).await? else {
                    return Err(AppError::invalid(format!(
                        "{at}.siteSpaceId: site space {site_space_id:?} is not in this site"
                    )));
                };
                if !snapshot.tree.pages.contains_key(&page_id) {
                    return Err(AppError::invalid(format!(
                        "{at}.pageId: page {page_id:?} is not in the space of site space {site_space_id:?}"
                    )));
                }
                Ok(Destination::Page { site_space_id, page_id })
            }
            Wanted::Is(external @ Destination::External { .. }) => Ok(external),
            Wanted::Path { space_id, path } => {
                let Some(site_space_id) = self
                    .structure
                    .site_spaces
                    .iter()
                    .find(|s| s.space_id == space_id)
                    .map(|s| s.id.clone())
                else {
                    return Err(AppError::invalid(format!(
                        "{at}.spaceId: space {space_id:?} is not shown by this site"
                    )));
                };
                let page = match self.snapshot(app, conn, &site_space_id).await? {
                    Some(snapshot) => snapshot.page_by_path(&path),
                    None => None,
                };
                let Some(page_id) = page.filter(|_| !path.trim_matches('/').is_empty()) else {
                    return Err(AppError::invalid(format!(
                        "{at}.path: the space has no page at {path:?}"
                    )));
                };
                Ok(Destination::Page { site_space_id, page_id })
            }
        }
    }

    /// The path of a destination under the site's URL (`/`, `/guide/`,
    /// `/guide/setup`), as published; `None` when it names nothing of the
    /// site any more.
    async fn path_of(&mut self, app: &App, conn: &mut Conn, destination: &Destination) -> AppResult<Option<String>> {
        let structure = &self.structure;
        let site = self.site;
        let section_segment = |section_id: Option<&str>| -> Option<String> {
            let Some(id) = section_id else {
                return Some(String::new());
            };
            let section = structure.sections.iter().find(|s| s.id == id)?;
            let default = match &site.default_section_id {
                Some(default) => default == id,
                None => crate::structure::sections_in_order(structure)
                    .first()
                    .is_some_and(|s| s.id == id),
            };
            Some(if default {
                String::new()
            } else {
                format!("/{}", section.path)
            })
        };
        let space_path = |row: &SiteSpaceRow| -> Option<String> {
            let section = section_segment(row.section_id.as_deref())?;
            let default_id = match &row.section_id {
                Some(id) => structure
                    .sections
                    .iter()
                    .find(|s| &s.id == id)
                    .and_then(|s| s.default_site_space_id.clone()),
                None => site.default_site_space_id.clone(),
            };
            let default = match default_id {
                Some(default) => default == row.id,
                None => structure
                    .site_spaces
                    .iter()
                    .find(|s| s.section_id == row.section_id)
                    .is_some_and(|s| s.id == row.id),
            };
            Some(if default {
                format!("{section}/")
            } else {
                format!("{section}/{}/", row.path)
            })
        };
        Ok(match destination {
            Destination::Section { site_section_id } => section_segment(Some(site_section_id)).map(|s| format!("{s}/")),
            Destination::SiteSpace { site_space_id } => self.site_space(site_space_id).and_then(space_path),
            Destination::Page { site_space_id, page_id } => {
                let Some(base) = self.site_space(site_space_id).and_then(space_path) else {
                    return Ok(None);
                };
                match self.snapshot(app, conn, site_space_id).await? {
                    Some(snapshot) if snapshot.tree.pages.contains_key(page_id) => {
                        Some(format!("{base}{}", snapshot.path_of(page_id)))
                    }
                    _ => None,
                }
            }
            Destination::External { .. } => None,
        })
    }
}

/// The common fields of a redirect's input.
struct Settings {
    capture_wildcard: Option<bool>,
    draft: Option<bool>,
    permanent: Option<bool>,
}

fn settings(fields: &Fields<'_>) -> AppResult<Settings> {
    Ok(Settings {
        capture_wildcard: fields.boolean("captureWildcard")?,
        draft: fields.boolean("draft")?,
        permanent: fields.boolean("permanent")?,
    })
}

fn kind(draft: bool) -> &'static str {
    if draft { "draft" } else { "live" }
}

fn taken(source: &str, draft: bool) -> AppError {
    AppError::conflict(format!("the site already has a {} redirect from {source}", kind(draft)))
}

/// Opens the site for a change of its redirects (its admins').
async fn for_change(conn: &mut Conn, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<SiteRow> {
    let (site, access) = access::site(conn, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    Ok(site)
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

/// What the list shows: the live redirects unless `draft`, those whose
/// source contains `search`.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub draft: Option<bool>,
    pub search: Option<String>,
}

/// The list's order from `orderBy` (`createdAt` unless given).
pub fn order(order_by: Option<&str>) -> AppResult<RedirectOrder> {
    match order_by {
        None | Some("createdAt") => Ok(RedirectOrder::CreatedAt),
        Some("updatedAt") => Ok(RedirectOrder::UpdatedAt),
        Some("source") => Ok(RedirectOrder::Source),
        Some(other) => Err(AppError::invalid(format!(
            "orderBy must be one of createdAt, updatedAt, source (got {other:?})"
        ))),
    }
}

pub async fn list(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    query: &ListQuery,
    order: RedirectOrder,
    request: &PageRequest,
) -> AppResult<Page<RedirectRow>> {
    let mut conn = app.db.read().await?;
    let (site, _) = access::site(&mut conn, caller, org_id, site_id).await?;
    let filter = RedirectFilter {
        draft: query.draft.unwrap_or(false),
        search: query.search.clone(),
    };
    Ok(site_redirects::list(&mut conn, &site.id, &filter, order, request).await?)
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, site_id: &str, body: Value) -> AppResult<RedirectRow> {
    let fields = Fields::of("", &body)?;
    fields.only(&["source", "captureWildcard", "draft", "permanent", "destination"])?;
    let source = source("source", fields.required_text("source")?)?;
    let settings = settings(&fields)?;
    let wanted = destination("destination", fields.required("destination")?, true)?;
    let draft = settings.draft.unwrap_or(false);
    let mut tx = app.db.write().await?;
    let site = for_change(&mut tx, caller, org_id, site_id).await?;
    let mut places = Places::load(&mut tx, &site).await?;
    let destination = places.check(app, &mut tx, "destination", wanted).await?;
    if site_redirects::by_source(&mut tx, &site.id, &source, draft)
        .await?
        .is_some()
    {
        return Err(taken(&source, draft));
    }
    let row = RedirectRow {
        id: quire_core::id::new_id(),
        site_id: site.id.clone(),
        source,
        draft,
        capture_wildcard: settings.capture_wildcard.unwrap_or(false),
        permanent: settings.permanent.unwrap_or(false),
        destination: stored(&destination),
        created_at: app.now(),
        updated_at: None,
    };
    quire_store::audit::created("site-redirect", &row.id);
    site_redirects::put(&mut tx, &row).await?;
    tx.commit().await?;
    Ok(row)
}

fn stored(destination: &Destination) -> String {
    serde_json::to_string(destination).unwrap_or_default()
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    redirect_id: &str,
    body: Value,
) -> AppResult<RedirectRow> {
    let fields = Fields::of("", &body)?;
    fields.only(&["source", "captureWildcard", "draft", "permanent", "destination"])?;
    let source = fields.text("source")?.map(|s| source("source", s)).transpose()?;
    let settings = settings(&fields)?;
    let wanted = fields
        .map
        .get("destination")
        .map(|d| destination("destination", d, false))
        .transpose()?;
    let mut tx = app.db.write().await?;
    let site = for_change(&mut tx, caller, org_id, site_id).await?;
    let mut row = site_redirects::get(&mut tx, &site.id, redirect_id)
        .await
        .or_not_found("site redirect", redirect_id)?;
    if fields.map.is_empty() {
        return Ok(row);
    }
    if let Some(wanted) = wanted {
        let mut places = Places::load(&mut tx, &site).await?;
        row.destination = stored(&places.check(app, &mut tx, "destination", wanted).await?);
    }
    let moved = source.as_ref().is_some_and(|s| *s != row.source) || settings.draft.is_some_and(|d| d != row.draft);
    if let Some(source) = source {
        row.source = source;
    }
    if let Some(draft) = settings.draft {
        row.draft = draft;
    }
    if moved
        && site_redirects::by_source(&mut tx, &site.id, &row.source, row.draft)
            .await?
            .is_some_and(|other| other.id != row.id)
    {
        return Err(taken(&row.source, row.draft));
    }
    if let Some(capture) = settings.capture_wildcard {
        row.capture_wildcard = capture;
    }
    if let Some(permanent) = settings.permanent {
        row.permanent = permanent;
    }
    row.updated_at = Some(app.now());
    site_redirects::put(&mut tx, &row).await?;
    tx.commit().await?;
    Ok(row)
}

/// Deletes a redirect of the site; false when it had none with that id.
pub async fn delete(app: &App, caller: &Caller, org_id: &str, site_id: &str, redirect_id: &str) -> AppResult<bool> {
    let mut tx = app.db.write().await?;
    let site = for_change(&mut tx, caller, org_id, site_id).await?;
    let deleted = site_redirects::delete(&mut tx, &site.id, redirect_id).await?;
    tx.commit().await?;
    Ok(deleted)
}

/// What one redirect of a bulk upsert did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BulkStatus {
    Created,
    Updated,
    Deleted,
    Published,
    /// Nothing to do: no redirect to delete or draft to publish.
    Error(String),
}

#[derive(Debug, Clone)]
pub struct BulkResult {
    pub status: BulkStatus,
    pub source: String,
    pub draft: bool,
    /// The redirect created, updated or published.
    pub id: Option<String>,
}

/// One redirect of a bulk upsert, read.
enum BulkItem {
    Publish {
        source: String,
    },
    Upsert {
        source: String,
        draft: bool,
        capture_wildcard: bool,
        permanent: Option<bool>,
        /// `None`: delete.
        destination: Option<Wanted>,
    },
}

fn bulk_item(at: &str, value: &Value) -> AppResult<BulkItem> {
    let fields = Fields::of(at, value)?;
    let source = source(&fields.name("source"), fields.required_text("source")?)?;
    match fields.text("intent")? {
        Some("publish") => {
            fields.only(&["source", "intent"])?;
            Ok(BulkItem::Publish { source })
        }
        intent @ (None | Some("live" | "draft")) => {
            fields.only(&["source", "intent", "captureWildcard", "permanent", "destination"])?;
            let destination = match fields.required("destination")? {
                Value::Null => None,
                value => Some(destination(&fields.name("destination"), value, true)?),
            };
            Ok(BulkItem::Upsert {
                source,
                draft: intent == Some("draft"),
                capture_wildcard: fields.boolean("captureWildcard")?.unwrap_or(false),
                permanent: fields.boolean("permanent")?,
                destination,
            })
        }
        Some(other) => Err(AppError::invalid(format!(
            "{} must be one of live, draft, publish (got {other:?})",
            fields.name("intent")
        ))),
    }
}

/// Creates, updates, deletes and publishes redirects in one transaction:
/// any invalid redirect refuses them all. A redirect to delete or a draft
/// to publish that does not exist is reported (`error`) and changes
/// nothing.
pub async fn bulk(app: &App, caller: &Caller, org_id: &str, site_id: &str, body: Value) -> AppResult<Vec<BulkResult>> {
    let fields = Fields::of("", &body)?;
    fields.only(&["redirects"])?;
    let Value::Array(values) = fields.required("redirects")? else {
        return Err(AppError::invalid("redirects must be an array"));
    };
    if values.is_empty() || values.len() > MAX_BULK {
        return Err(AppError::invalid(format!(
            "redirects must hold 1 to {MAX_BULK} redirects (got {})",
            values.len()
        )));
    }
    let mut items = Vec::with_capacity(values.len());
    let mut seen: HashMap<(String, bool), usize> = HashMap::new();
    for (i, value) in values.iter().enumerate() {
        let at = format!("redirects[{i}]");
        let item = bulk_item(&at, value)?;
        let targets: &[bool] = match &item {
            BulkItem::Publish { .. } => &[false, true],
            BulkItem::Upsert { draft: true, .. } => &[true],
            BulkItem::Upsert { draft: false, .. } => &[false],
        };
        let source = match &item {
            BulkItem::Publish { source } | BulkItem::Upsert { source, .. } => source.clone(),
        };
        for draft in targets {
            if let Some(first) = seen.insert((source.clone(), *draft), i) {
                return Err(AppError::invalid(format!(
                    "{at}.source: redirects[{first}] already changes the {} redirect from {source}",
                    kind(*draft)
                )));
            }
        }
        items.push(item);
    }
    let now = app.now();
    let mut tx = app.db.write().await?;
    let site = for_change(&mut tx, caller, org_id, site_id).await?;
    let mut places = Places::load(&mut tx, &site).await?;
    // Every destination is checked before anything is written.
    let mut checked = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let destination = match item {
            BulkItem::Upsert {
                destination: Some(wanted),
                ..
            } => {
                let at = format!("redirects[{i}].destination");
                Some(places.check(app, &mut tx, &at, wanted.clone()).await?)
            }
            _ => None,
        };
        checked.push(destination);
    }
    let mut results = Vec::with_capacity(items.len());
    for (item, destination) in items.into_iter().zip(checked) {
        let result = match item {
            BulkItem::Upsert {
                source,
                draft,
                capture_wildcard,
                permanent,
                ..
            } => {
                let existing = site_redirects::by_source(&mut tx, &site.id, &source, draft).await?;
                match (destination, existing) {
                    (Some(destination), Some(mut row)) => {
                        row.capture_wildcard = capture_wildcard;
                        if let Some(permanent) = permanent {
                            row.permanent = permanent;
                        }
                        row.destination = stored(&destination);
                        row.updated_at = Some(now);
                        site_redirects::put(&mut tx, &row).await?;
                        BulkResult {
                            status: BulkStatus::Updated,
                            source,
                            draft,
                            id: Some(row.id),
                        }
                    }
                    (Some(destination), None) => {
                        let row = RedirectRow {
                            id: quire_core::id::new_id(),
                            site_id: site.id.clone(),
                            source: source.clone(),
                            draft,
                            capture_wildcard,
                            permanent: permanent.unwrap_or(false),
                            destination: stored(&destination),
                            created_at: now,
                            updated_at: None,
                        };
                        site_redirects::put(&mut tx, &row).await?;
                        BulkResult {
                            status: BulkStatus::Created,
                            source,
                            draft,
                            id: Some(row.id),
                        }
                    }
                    (None, Some(row)) => {
                        site_redirects::delete(&mut tx, &site.id, &row.id).await?;
                        BulkResult {
                            status: BulkStatus::Deleted,
                            source,
                            draft,
                            id: None,
                        }
                    }
                    (None, None) => BulkResult {
                        status: BulkStatus::Error(format!("the site has no {} redirect from {source}", kind(draft))),
                        source,
                        draft,
                        id: None,
                    },
                }
            }
            BulkItem::Publish { source } => {
                let Some(prepared) = site_redirects::by_source(&mut tx, &site.id, &source, true).await? else {
                    results.push(BulkResult {
                        status: BulkStatus::Error(format!("the site has no draft redirect from {source} to publish")),
                        source,
                        draft: true,
                        id: None,
                    });
                    continue;
                };
                // The draft replaces the live redirect of its source (which
                // keeps its id), or becomes it.
                let live = match site_redirects::by_source(&mut tx, &site.id, &source, false).await? {
                    Some(mut live) => {
                        site_redirects::delete(&mut tx, &site.id, &prepared.id).await?;
                        live.capture_wildcard = prepared.capture_wildcard;
                        live.permanent = prepared.permanent;
                        live.destination = prepared.destination;
                        live
                    }
                    None => RedirectRow {
                        draft: false,
                        ..prepared
                    },
                };
                let live = RedirectRow {
                    updated_at: Some(now),
                    ..live
                };
                site_redirects::put(&mut tx, &live).await?;
                BulkResult {
                    status: BulkStatus::Published,
                    source,
                    draft: false,
                    id: Some(live.id),
                }
            }
        };
        results.push(result);
    }
    tx.commit().await?;
    Ok(results)
}

/// Where a redirect leads, for `getSiteRedirectBySource`.
#[derive(Debug, Clone)]
pub enum Target {
    /// A path under the site's URL (with the share key's segment when one
    /// was given): `/`, `/guide/`, `/guide/setup`.
    Site(String),
    /// Another URL.
    External(String),
}

#[derive(Debug, Clone)]
pub struct Resolved {
    pub site: SiteRow,
    pub redirect: RedirectRow,
    pub target: Target,
}

/// The redirect of `source`: the one with exactly that source (the live
/// one, else the draft), or else the live redirect a visitor of that path
/// follows; with where it leads.
pub async fn by_source(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    source_path: Option<&str>,
    share_key: Option<&str>,
) -> AppResult<Resolved> {
    let Some(source_path) = source_path else {
        return Err(AppError::invalid("source is required"));
    };
    let source_path = source("source", source_path)?;
    let mut conn = app.db.read().await?;
    let (site, _) = access::site(&mut conn, caller, org_id, site_id).await?;
    if let Some(key) = share_key
        && sites::active_share_link(&mut conn, &site.id, key).await?.is_none()
    {
        return Err(AppError::invalid(
            "shareKey is not the key of an active share link of this site",
        ));
    }
    let mut found = None;
    for draft in [false, true] {
        if let Some(row) = site_redirects::by_source(&mut conn, &site.id, &source_path, draft).await? {
            found = Some((row, String::new()));
            break;
        }
    }
    if found.is_none() {
        let prefix = parse_source(&source_path).map(|(prefix, _)| prefix).unwrap_or_default();
        let rows = site_redirects::live(&mut conn, &site.id).await?;
        let rules = Rules::new(&rows);
        if let Some((rule, matched)) = rules.find(&prefix) {
            let matched = matched.to_owned();
            found = rows
                .into_iter()
                .find(|r| r.source == rule.source)
                .map(|row| (row, matched));
        }
    }
    let Some((redirect, matched)) = found else {
        return Err(AppError::not_found("site redirect from", &source_path));
    };
    let rule = Rule::of(&redirect)
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("redirect {} is corrupt", redirect.id)))?;
    let target = match &rule.destination {
        Destination::External { url } => Target::External(rule.target(url, &matched)),
        destination => {
            let mut places = Places::load(&mut conn, &site).await?;
            let Some(path) = places.path_of(app, &mut conn, destination).await? else {
                return Err(AppError::NotFound(format!(
                    "the destination of the redirect from {} is no longer in the site",
                    redirect.source
                )));
            };
            let path = match share_key {
                Some(key) => format!("/{key}{path}"),
                None => path,
            };
            Target::Site(rule.target(&quire_core::percent::encode_uri(&path), &matched))
        }
    };
    Ok(Resolved { site, redirect, target })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(source: &str, destination: Value, capture: bool) -> RedirectRow {
        RedirectRow {
            id: source.to_owned(),
            site_id: "s".into(),
            source: source.into(),
            draft: false,
            capture_wildcard: capture,
            permanent: true,
            destination: destination.to_string(),
            created_at: quire_core::Timestamp(0),
            updated_at: None,
        }
    }

    #[test]
    fn sources_follow_the_official_pattern() {
        for good in [
            "/a",
            "/old/page",
            "/v1.2/x~y+z",
            "/caf%C3%A9",
            "/docs/*",
            "/docs*",
            "/a/b*",
        ] {
            assert!(parse_source(good).is_some(), "{good}");
        }
        for bad in [
            "", "/", "/*", "*", "a", "/a/", "//a", "/a//b", "/a b", "/a*b", "/a/**", "/a?b", "/%zz", "/a%2", "/é",
        ] {
            assert!(parse_source(bad).is_none(), "{bad}");
        }
        assert!(parse_source(&format!("/{}", "a".repeat(511))).is_some());
        assert!(parse_source(&format!("/{}", "a".repeat(512))).is_none());
        assert_eq!(parse_source("/caf%C3%A9/*"), Some(("café".into(), Tail::Below)));
    }

    #[test]
    fn exact_sources_win_then_the_longest_wildcard() {
        let to = |url: &str| serde_json::json!({ "kind": "external", "url": url });
        let rows = [
            row("/docs/*", to("https://a.example/"), true),
            row("/docs/guide/*", to("https://b.example/new"), true),
            row("/docs/guide/setup", to("https://c.example/"), false),
            row("/v1*", to("https://d.example/v2"), true),
        ];
        let rules = Rules::new(&rows);
        let found = |path: &str| {
            rules.find(path).map(|(rule, matched)| match &rule.destination {
                Destination::External { url } => rule.target(url, matched),
                _ => unreachable!(),
            })
        };
        assert_eq!(found("docs/guide/setup").as_deref(), Some("https://c.example/"));
        assert_eq!(
            found("docs/guide/a b/c").as_deref(),
            Some("https://b.example/new/a%20b/c")
        );
        assert_eq!(found("docs/guide").as_deref(), Some("https://b.example/new"));
        assert_eq!(found("docs/x").as_deref(), Some("https://a.example/x"));
        assert_eq!(found("docs").as_deref(), Some("https://a.example/"));
        assert_eq!(found("docsy"), None);
        assert_eq!(found("v1-beta/x").as_deref(), Some("https://d.example/v2-beta/x"));
        assert_eq!(found("other"), None);
        assert_eq!(
            append("https://x.example/a?q=1#f", "b/c", true),
            "https://x.example/a/b/c?q=1#f"
        );
        assert_eq!(append("/docs/", "/x", false), "/docs/x");
    }

    #[test]
    fn destinations_are_read_with_their_field_named() {
        let read = |v: Value, paths| {
            destination("destination", &v, paths)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert!(
            read(serde_json::json!({ "kind": "site-page", "siteSpaceId": "x" }), true).contains("destination.pageId")
        );
        assert!(read(serde_json::json!({ "kind": "external", "url": "ftp://x" }), true).contains("destination.url"));
        assert!(
            read(
                serde_json::json!({ "kind": "path", "spaceId": "x", "path": "a" }),
                false
            )
            .contains("destination.kind")
        );
        assert!(
            read(
                serde_json::json!({ "kind": "site-space", "siteSpaceId": "x", "extra": 1 }),
                true
            )
            .contains("destination.extra")
        );
        assert!(read(serde_json::json!("x"), true).contains("destination must be an object"));
        let section = Destination::Section {
            site_section_id: "s1".into(),
        };
        assert_eq!(stored(&section), r#"{"kind":"site-section","siteSectionId":"s1"}"#);
    }
}
