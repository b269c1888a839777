//! Sites: their settings, their structure (section groups, sections and site
//! spaces) and their share links.
//!
//! A site's structure is small (tens of rows), so it is read whole
//! ([`structure`]) and the rules about it live in the application layer;
//! this module only writes rows and renumbers positions.

use std::collections::HashMap;

use quire_core::{DefaultLevel, SiteVisibility, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, AssertSqlSafe, Row};

use crate::collections::default_level_column;
use crate::error::{FoundExt, StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::{Sql, flag, flag_column};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRow {
    pub id: String,
    pub organization_id: String,
    /// `basic`, `premium`, `ultimate`, …
    pub site_type: String,
    pub title: String,
    pub basename: String,
    pub hostname: Option<String>,
    pub proxy: Option<String>,
    /// `public`, `unlisted`, `share-link` or `visitor-auth`.
    pub visibility: SiteVisibility,
    pub published: bool,
    /// `included` or `excluded`.
    pub agents_context: String,
    pub default_level: DefaultLevel,
    pub adaptive_content: bool,
    /// The adaptive JSON Schema as JSON text, once set.
    pub adaptive_schema: Option<String>,
    pub adaptive_updated_at: Option<Timestamp>,
    /// The site's customization settings as JSON text.
    pub customization: String,
    /// The key visitor tokens (HS256 JWTs) are signed with.
    pub visitor_key: String,
    /// Where visitors without a valid token are sent to sign in.
    pub visitor_fallback_url: Option<String>,
    pub visitor_logout_url: Option<String>,
    pub default_section_id: Option<String>,
    pub default_site_space_id: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

const SITE_COLUMNS: &str = "SELECT id, organization_id, type, title, basename, hostname, proxy, visibility, published, \
     agents_context, default_level, adaptive_content, adaptive_schema, adaptive_updated_at, customization, \
     visitor_key, visitor_fallback_url, visitor_logout_url, default_section_id, default_site_space_id, created_at, \
     updated_at FROM sites";

fn site_from_row(row: &AnyRow) -> StoreResult<SiteRow> {
    Ok(SiteRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        site_type: row.try_get("type")?,
        title: row.try_get("title")?,
        basename: row.try_get("basename")?,
        hostname: row.try_get("hostname")?,
        proxy: row.try_get("proxy")?,
        visibility: {
            let text: String = row.try_get("visibility")?;
            SiteVisibility::parse(&text).ok_or_else(|| StoreError::Corrupt(format!("site visibility {text:?}")))?
        },
        published: flag_column(row, "published")?,
        agents_context: row.try_get("agents_context")?,
        default_level: default_level_column(row, "default_level")?,
        adaptive_content: flag_column(row, "adaptive_content")?,
        adaptive_schema: row.try_get("adaptive_schema")?,
        adaptive_updated_at: row.try_get::<Option<i64>, _>("adaptive_updated_at")?.map(Timestamp),
        customization: row.try_get("customization")?,
        visitor_key: row.try_get("visitor_key")?,
        visitor_fallback_url: row.try_get("visitor_fallback_url")?,
        visitor_logout_url: row.try_get("visitor_logout_url")?,
        default_section_id: row.try_get("default_section_id")?,
        default_site_space_id: row.try_get("default_site_space_id")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

/// Inserts the site, or rewrites every mutable field of an existing one.
pub async fn put_site(conn: &mut AnyConnection, s: &SiteRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO sites (id, organization_id, type, title, basename, hostname, proxy, visibility, published, \
         agents_context, default_level, adaptive_content, adaptive_schema, adaptive_updated_at, customization, \
         default_section_id, default_site_space_id, created_at, updated_at, visitor_key, visitor_fallback_url, \
         visitor_logout_url) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22) \
         ON CONFLICT (id) DO UPDATE SET type = excluded.type, title = excluded.title, basename = excluded.basename, \
         hostname = excluded.hostname, proxy = excluded.proxy, visibility = excluded.visibility, \
         published = excluded.published, agents_context = excluded.agents_context, \
         default_level = excluded.default_level, adaptive_content = excluded.adaptive_content, \
         adaptive_schema = excluded.adaptive_schema, adaptive_updated_at = excluded.adaptive_updated_at, \
         customization = excluded.customization, default_section_id = excluded.default_section_id, \
         default_site_space_id = excluded.default_site_space_id, updated_at = excluded.updated_at, \
         visitor_key = excluded.visitor_key, visitor_fallback_url = excluded.visitor_fallback_url, \
         visitor_logout_url = excluded.visitor_logout_url",
    )
    .bind(&s.id)
    .bind(&s.organization_id)
    .bind(&s.site_type)
    .bind(&s.title)
    .bind(&s.basename)
    .bind(&s.hostname)
    .bind(&s.proxy)
    .bind(s.visibility.as_str())
    .bind(flag(s.published))
    .bind(&s.agents_context)
    .bind(s.default_level.to_column())
    .bind(flag(s.adaptive_content))
    .bind(&s.adaptive_schema)
    .bind(s.adaptive_updated_at.map(|t| t.0))
    .bind(&s.customization)
    .bind(&s.default_section_id)
    .bind(&s.default_site_space_id)
    .bind(s.created_at.0)
    .bind(s.updated_at.0)
    .bind(&s.visitor_key)
    .bind(&s.visitor_fallback_url)
    .bind(&s.visitor_logout_url)
    .execute(conn)
    .await?;
    Ok(())
}

/// The site of the organization (`NotFound` when it belongs to another).
pub async fn get_site(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<SiteRow> {
    let sql = format!("{SITE_COLUMNS} WHERE id = $1 AND organization_id = $2");
    let row = sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .bind(org_id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(site_from_row).transpose().found()
}

/// The site serving this custom hostname, if any.
pub async fn site_by_hostname(conn: &mut AnyConnection, hostname: &str) -> StoreResult<Option<SiteRow>> {
    let sql = format!("{SITE_COLUMNS} WHERE hostname = $1");
    let row = sqlx::query(AssertSqlSafe(sql))
        .bind(hostname)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(site_from_row).transpose()
}

/// Removes the site and everything in it; false when there was none.
pub async fn delete_site(conn: &mut AnyConnection, id: &str) -> StoreResult<bool> {
    for table in [
        "site_share_links",
        "site_spaces",
        "site_sections",
        "site_section_groups",
    ] {
        sqlx::query(AssertSqlSafe(format!("DELETE FROM {table} WHERE site_id = $1")))
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    let done = sqlx::query("DELETE FROM sites WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Filters of the site list.
#[derive(Debug, Clone, Default)]
pub struct SiteFilter {
    /// Only sites showing this space.
    pub space_id: Option<String>,
    /// Only sites whose title contains this (case-insensitive).
    pub title: Option<String>,
    pub published: Option<bool>,
    /// Only sites of these types (all when empty).
    pub types: Vec<String>,
}

fn push_site_filter(sql: &mut Sql, org_id: &str, filter: &SiteFilter) {
    sql.push(" WHERE organization_id = ").bind(org_id.to_owned());
    if let Some(space) = &filter.space_id {
        sql.push(" AND id IN (SELECT site_id FROM site_spaces WHERE space_id = ")
            .bind(space.clone())
            .push(")");
    }
    if let Some(title) = &filter.title {
        sql.push(" AND ").push_contains("title", title);
    }
    if let Some(published) = filter.published {
        sql.push(" AND published = ").bind(flag(published));
    }
    if !filter.types.is_empty() {
        sql.push(" AND type IN ").bind_list(&filter.types);
    }
}

/// The organization's sites, oldest first.
pub async fn list_sites(
    conn: &mut AnyConnection,
    org_id: &str,
    filter: &SiteFilter,
    page: &PageRequest,
) -> StoreResult<Page<SiteRow>> {
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM sites");
    push_site_filter(&mut count, org_id, filter);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(SITE_COLUMNS);
    push_site_filter(&mut sql, org_id, filter);
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(site_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |s| Keyset {
        key: SortKey::Int(s.created_at.0),
        id: s.id.clone(),
    }))
}

/// The basenames starting with `prefix` (every site's, across
/// organizations: a basename is a path of the instance's public URL).
pub async fn basenames_like(conn: &mut AnyConnection, prefix: &str) -> StoreResult<Vec<String>> {
    let mut sql = Sql::new("SELECT basename FROM sites WHERE ");
    sql.push_contains("basename", prefix);
    let rows = sql.fetch_all(conn).await?;
    rows.iter().map(|row| Ok(row.try_get("basename")?)).collect()
}

/// The site served at this basename, if any.
pub async fn site_by_basename(conn: &mut AnyConnection, basename: &str) -> StoreResult<Option<SiteRow>> {
    let sql = format!("{SITE_COLUMNS} WHERE basename = $1");
    let row = sqlx::query(AssertSqlSafe(sql))
        .bind(basename)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(site_from_row).transpose()
}

/// The number of site spaces of each of these sites (absent: none).
pub async fn site_space_counts(conn: &mut AnyConnection, site_ids: &[String]) -> StoreResult<HashMap<String, i64>> {
    if site_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut sql = Sql::new("SELECT site_id, COUNT(*) AS n FROM site_spaces WHERE site_id IN ");
    sql.bind_list(site_ids).push(" GROUP BY site_id");
    let rows = sql.fetch_all(conn).await?;
    rows.iter()
        .map(|row| Ok((row.try_get("site_id")?, row.try_get("n")?)))
        .collect()
}

// ---------------------------------------------------------------------------
// Structure
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionGroupRow {
    pub id: String,
    pub site_id: String,
    pub title: String,
    pub icon: Option<String>,
    pub position: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionRow {
    pub id: String,
    pub site_id: String,
    pub group_id: Option<String>,
    pub title: String,
    pub description: Option<String>,
    pub icon: Option<String>,
    pub path: String,
    pub condition: Option<String>,
    pub default_site_space_id: Option<String>,
    pub position: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteSpaceRow {
    pub id: String,
    pub site_id: String,
    /// `None` at the site's root level.
    pub section_id: Option<String>,
    pub space_id: String,
    pub path: String,
    pub condition: Option<String>,
    pub position: i64,
}

/// Everything a site is made of, each kind in position order.
#[derive(Debug, Clone, Default)]
pub struct Structure {
    pub groups: Vec<SectionGroupRow>,
    pub sections: Vec<SectionRow>,
    pub site_spaces: Vec<SiteSpaceRow>,
}

pub async fn structure(conn: &mut AnyConnection, site_id: &str) -> StoreResult<Structure> {
    let groups = sqlx::query(
        "SELECT id, site_id, title, icon, position FROM site_section_groups WHERE site_id = $1 ORDER BY position, id",
    )
    .bind(site_id)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(|row| {
        Ok(SectionGroupRow {
            id: row.try_get("id")?,
            site_id: row.try_get("site_id")?,
            title: row.try_get("title")?,
            icon: row.try_get("icon")?,
            position: row.try_get("position")?,
        })
    })
    .collect::<StoreResult<Vec<_>>>()?;
    let sections = sqlx::query(
        "SELECT id, site_id, group_id, title, description, icon, path, condition, default_site_space_id, position \
         FROM site_sections WHERE site_id = $1 ORDER BY position, id",
    )
    .bind(site_id)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(|row| {
        Ok(SectionRow {
            id: row.try_get("id")?,
            site_id: row.try_get("site_id")?,
            group_id: row.try_get("group_id")?,
            title: row.try_get("title")?,
            description: row.try_get("description")?,
            icon: row.try_get("icon")?,
            path: row.try_get("path")?,
            condition: row.try_get("condition")?,
            default_site_space_id: row.try_get("default_site_space_id")?,
            position: row.try_get("position")?,
        })
    })
    .collect::<StoreResult<Vec<_>>>()?;
    let site_spaces = sqlx::query(
        "SELECT id, site_id, section_id, space_id, path, condition, position FROM site_spaces \
         WHERE site_id = $1 ORDER BY position, id",
    )
    .bind(site_id)
    .fetch_all(conn)
    .await?
    .iter()
    .map(|row| {
        Ok(SiteSpaceRow {
            id: row.try_get("id")?,
            site_id: row.try_get("site_id")?,
            section_id: row.try_get("section_id")?,
            space_id: row.try_get("space_id")?,
            path: row.try_get("path")?,
            condition: row.try_get("condition")?,
            position: row.try_get("position")?,
        })
    })
    .collect::<StoreResult<Vec<_>>>()?;
    Ok(Structure {
        groups,
        sections,
        site_spaces,
    })
}

/// Inserts or rewrites a section group.
pub async fn put_group(conn: &mut AnyConnection, g: &SectionGroupRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO site_section_groups (id, site_id, title, icon, position) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (id) DO UPDATE SET title = excluded.title, icon = excluded.icon, position = excluded.position",
    )
    .bind(&g.id)
    .bind(&g.site_id)
    .bind(&g.title)
    .bind(&g.icon)
    .bind(g.position)
    .execute(conn)
    .await?;
    Ok(())
}

/// Inserts or rewrites a section.
pub async fn put_section(conn: &mut AnyConnection, s: &SectionRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO site_sections (id, site_id, group_id, title, description, icon, path, condition, \
         default_site_space_id, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         ON CONFLICT (id) DO UPDATE SET group_id = excluded.group_id, title = excluded.title, \
         description = excluded.description, icon = excluded.icon, path = excluded.path, \
         condition = excluded.condition, default_site_space_id = excluded.default_site_space_id, \
         position = excluded.position",
    )
    .bind(&s.id)
    .bind(&s.site_id)
    .bind(&s.group_id)
    .bind(&s.title)
    .bind(&s.description)
    .bind(&s.icon)
    .bind(&s.path)
    .bind(&s.condition)
    .bind(&s.default_site_space_id)
    .bind(s.position)
    .execute(conn)
    .await?;
    Ok(())
}

/// Inserts or rewrites a site space.
pub async fn put_site_space(conn: &mut AnyConnection, s: &SiteSpaceRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO site_spaces (id, site_id, section_id, space_id, path, condition, position) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (id) DO UPDATE SET section_id = excluded.section_id, space_id = excluded.space_id, \
         path = excluded.path, condition = excluded.condition, position = excluded.position",
    )
    .bind(&s.id)
    .bind(&s.site_id)
    .bind(&s.section_id)
    .bind(&s.space_id)
    .bind(&s.path)
    .bind(&s.condition)
    .bind(s.position)
    .execute(conn)
    .await?;
    Ok(())
}

/// What a structure row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Group,
    Section,
    SiteSpace,
}

impl Part {
    fn table(self) -> &'static str {
        match self {
            Part::Group => "site_section_groups",
            Part::Section => "site_sections",
            Part::SiteSpace => "site_spaces",
        }
    }
}

/// Deletes one structure row of the site; false when there was none.
pub async fn delete_part(conn: &mut AnyConnection, part: Part, site_id: &str, id: &str) -> StoreResult<bool> {
    let sql = format!("DELETE FROM {} WHERE id = $1 AND site_id = $2", part.table());
    let done = sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .bind(site_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Gives these rows the positions 0, 1, 2… in this order.
pub async fn set_positions(conn: &mut AnyConnection, part: Part, ids: &[String]) -> StoreResult<()> {
    let sql = format!("UPDATE {} SET position = $2 WHERE id = $1", part.table());
    for (position, id) in ids.iter().enumerate() {
        sqlx::query(AssertSqlSafe(sql.clone()))
            .bind(id)
            .bind(position as i64)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// After the site space `gone` left its level (deleted, or moved to
/// another level): the level whose default it was (the site's root, or a
/// section) takes its first remaining site space as default, or none. The
/// one place this rule is written.
pub async fn hand_over_default(conn: &mut AnyConnection, gone: &str) -> StoreResult<()> {
    for sql in [
        "UPDATE sites SET default_site_space_id = (SELECT s.id FROM site_spaces s \
         WHERE s.site_id = sites.id AND s.section_id IS NULL ORDER BY s.position, s.id LIMIT 1) \
         WHERE default_site_space_id = $1",
        "UPDATE site_sections SET default_site_space_id = (SELECT s.id FROM site_spaces s \
         WHERE s.section_id = site_sections.id ORDER BY s.position, s.id LIMIT 1) \
         WHERE default_site_space_id = $1",
    ] {
        sqlx::query(sql).bind(gone).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Removes the space from every site showing it (each level whose default
/// it was hands it over, [`hand_over_default`]); the ids of those sites.
pub async fn remove_space(conn: &mut AnyConnection, space_id: &str) -> StoreResult<Vec<String>> {
    let rows = sqlx::query("DELETE FROM site_spaces WHERE space_id = $1 RETURNING site_id, id")
        .bind(space_id)
        .fetch_all(&mut *conn)
        .await?;
    let mut sites = Vec::new();
    for row in &rows {
        let (site, id): (String, String) = (row.try_get("site_id")?, row.try_get("id")?);
        hand_over_default(conn, &id).await?;
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    Ok(sites)
}

/// A merge into a space's content, for a site's feed of recent changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeRow {
    pub space_id: String,
    pub revision_id: String,
    pub created_at: Timestamp,
}

/// The `limit` most recent merges into these spaces, newest first.
pub async fn recent_merges(conn: &mut AnyConnection, space_ids: &[String], limit: i64) -> StoreResult<Vec<MergeRow>> {
    if space_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql =
        Sql::new("SELECT r.space_id, r.id, r.created_at FROM revisions r WHERE r.kind = 'merge' AND r.space_id IN ");
    sql.bind_list(space_ids)
        .push(" ORDER BY r.created_at DESC, r.id DESC LIMIT ")
        .bind(limit);
    let rows = sql.fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            Ok(MergeRow {
                space_id: row.try_get("space_id")?,
                revision_id: row.try_get("id")?,
                created_at: Timestamp(row.try_get("created_at")?),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Share links
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareLinkRow {
    pub id: String,
    pub site_id: String,
    pub name: String,
    pub share_key: String,
    pub active: bool,
    pub created_at: Timestamp,
}

fn share_link_from_row(row: &AnyRow) -> StoreResult<ShareLinkRow> {
    Ok(ShareLinkRow {
        id: row.try_get("id")?,
        site_id: row.try_get("site_id")?,
        name: row.try_get("name")?,
        share_key: row.try_get("share_key")?,
        active: flag_column(row, "active")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

/// Inserts or rewrites a share link.
pub async fn put_share_link(conn: &mut AnyConnection, l: &ShareLinkRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO site_share_links (id, site_id, name, share_key, active, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, active = excluded.active",
    )
    .bind(&l.id)
    .bind(&l.site_id)
    .bind(&l.name)
    .bind(&l.share_key)
    .bind(flag(l.active))
    .bind(l.created_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get_share_link(conn: &mut AnyConnection, site_id: &str, id: &str) -> StoreResult<ShareLinkRow> {
    let row = sqlx::query(
        "SELECT id, site_id, name, share_key, active, created_at FROM site_share_links WHERE id = $1 AND site_id = $2",
    )
    .bind(id)
    .bind(site_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(share_link_from_row).transpose().found()
}

/// The active share link of the site with this key, if any.
pub async fn active_share_link(
    conn: &mut AnyConnection,
    site_id: &str,
    key: &str,
) -> StoreResult<Option<ShareLinkRow>> {
    let row = sqlx::query(
        "SELECT id, site_id, name, share_key, active, created_at FROM site_share_links \
         WHERE site_id = $1 AND share_key = $2 AND active = 1",
    )
    .bind(site_id)
    .bind(key)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(share_link_from_row).transpose()
}

/// The site's share links, oldest first.
pub async fn list_share_links(
    conn: &mut AnyConnection,
    site_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<ShareLinkRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM site_share_links WHERE site_id = $1")
        .bind(site_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql =
        Sql::new("SELECT id, site_id, name, share_key, active, created_at FROM site_share_links WHERE site_id = ");
    sql.bind(site_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(share_link_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |l| Keyset {
        key: SortKey::Int(l.created_at.0),
        id: l.id.clone(),
    }))
}

/// Deletes a share link; false when there was none.
pub async fn delete_share_link(conn: &mut AnyConnection, site_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM site_share_links WHERE id = $1 AND site_id = $2")
        .bind(id)
        .bind(site_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// The customization a site space overrides: the settings set on it (a
/// JSON object) and when they last changed.
#[derive(Debug, Clone)]
pub struct SiteSpaceCustomizationRow {
    pub site_space_id: String,
    pub settings: String,
    pub updated_at: Timestamp,
}

fn site_space_customization_from_row(row: &AnyRow) -> StoreResult<SiteSpaceCustomizationRow> {
    Ok(SiteSpaceCustomizationRow {
        site_space_id: row.try_get("site_space_id")?,
        settings: row.try_get("settings")?,
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

/// Every site space customization of the site.
pub async fn site_space_customizations(
    conn: &mut AnyConnection,
    site_id: &str,
) -> StoreResult<Vec<SiteSpaceCustomizationRow>> {
    let rows = sqlx::query(
        "SELECT site_space_id, settings, updated_at FROM site_space_customizations WHERE site_id = $1 \
         ORDER BY site_space_id",
    )
    .bind(site_id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(site_space_customization_from_row).collect()
}

/// Sets (or replaces) what a site space of the site overrides.
pub async fn put_site_space_customization(
    conn: &mut AnyConnection,
    site_id: &str,
    row: &SiteSpaceCustomizationRow,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO site_space_customizations (site_space_id, site_id, settings, updated_at) \
         VALUES ($1, $2, $3, $4) \
         ON CONFLICT (site_space_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at",
    )
    .bind(&row.site_space_id)
    .bind(site_id)
    .bind(&row.settings)
    .bind(row.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes what a site space overrides; false when it overrode nothing.
pub async fn delete_site_space_customization(
    conn: &mut AnyConnection,
    site_id: &str,
    site_space_id: &str,
) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM site_space_customizations WHERE site_space_id = $1 AND site_id = $2")
        .bind(site_space_id)
        .bind(site_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
