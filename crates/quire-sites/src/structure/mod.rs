//! What a site is made of: site spaces (a space shown at a path), either at
//! the site's root level or in sections, and sections either at the top
//! level or in section groups.
//!
//! Rules kept here:
//! - A site has root-level site spaces or sections, never both: adding the
//!   first section to a site that shows spaces at its root moves them into
//!   a section of their own (titled like the site), which becomes the
//!   default.
//! - Every level keeps a total order (`position` 0, 1, 2… after every
//!   change) and at most one default, stored as an id on its parent; the
//!   first item of a level becomes its default, and removing the default
//!   hands it to the first item left.
//! - The top level orders groups and ungrouped sections together.
//! - Paths are unique among siblings (`409` when a change would repeat
//!   one; new items get a free path derived from their title).

use std::collections::HashMap;

use quire_core::serde_util::nullable;
use quire_store::Conn;
use quire_store::page::PageRequest;
use quire_store::sites::{self, Part, SectionGroupRow, SectionRow, SiteRow, SiteSpaceRow, Structure};
use quire_store::{Page, spaces};
use serde::Deserialize;

use quire_app::access::{self, OrgRoles, SiteAccess};
use quire_app::error::{AppError, AppResult};
use quire_app::spaces::{SpaceInfo, infos};
use quire_app::{App, Caller, input};

mod groups;
mod sections;
mod site_spaces;

pub use groups::*;
pub use sections::*;
pub use site_spaces::*;

/// A site space with its space as the caller sees it.
#[derive(Debug, Clone)]
pub struct SiteSpaceInfo {
    pub site_space: SiteSpaceRow,
    pub space: SpaceInfo,
    pub default: bool,
}

#[derive(Debug, Clone)]
pub struct SectionInfo {
    pub section: SectionRow,
    pub default: bool,
    pub site_spaces: Vec<SiteSpaceInfo>,
}

#[derive(Debug, Clone)]
pub struct GroupInfo {
    pub group: SectionGroupRow,
    pub sections: Vec<SectionInfo>,
}

/// An item of the site's top level.
#[derive(Debug, Clone)]
pub enum TopItem {
    Section(SectionInfo),
    Group(GroupInfo),
}

/// The whole structure, in order.
#[derive(Debug, Clone)]
pub struct StructureInfo {
    pub site: SiteRow,
    /// Sections and groups (empty for a site without sections).
    pub top: Vec<TopItem>,
    /// Root-level site spaces (empty for a site with sections).
    pub root: Vec<SiteSpaceInfo>,
}

impl StructureInfo {
    /// Every section, groups expanded, in order.
    pub fn sections(&self) -> Vec<&SectionInfo> {
        let mut out = Vec::new();
        for item in &self.top {
            match item {
                TopItem::Section(s) => out.push(s),
                TopItem::Group(g) => out.extend(g.sections.iter()),
            }
        }
        out
    }

    /// Every site space, in order.
    pub fn site_spaces(&self) -> Vec<&SiteSpaceInfo> {
        let mut out: Vec<&SiteSpaceInfo> = self.root.iter().collect();
        for section in self.sections() {
            out.extend(section.site_spaces.iter());
        }
        out
    }
}

// ---------------------------------------------------------------------------
// Reading the structure
// ---------------------------------------------------------------------------

/// A reference to an item of the top level.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Top {
    Section(String),
    Group(String),
}

impl Top {
    fn id(&self) -> &str {
        match self {
            Top::Section(id) | Top::Group(id) => id,
        }
    }
}

fn top_order(structure: &Structure) -> Vec<Top> {
    let mut items: Vec<(i64, Top)> = structure
        .groups
        .iter()
        .map(|g| (g.position, Top::Group(g.id.clone())))
        .chain(
            structure
                .sections
                .iter()
                .filter(|s| s.group_id.is_none())
                .map(|s| (s.position, Top::Section(s.id.clone()))),
        )
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id().cmp(b.1.id())));
    items.into_iter().map(|(_, t)| t).collect()
}

fn group_sections<'a>(structure: &'a Structure, group_id: &str) -> Vec<&'a SectionRow> {
    structure
        .sections
        .iter()
        .filter(|s| s.group_id.as_deref() == Some(group_id))
        .collect()
}

fn level_spaces<'a>(structure: &'a Structure, section_id: Option<&str>) -> Vec<&'a SiteSpaceRow> {
    structure
        .site_spaces
        .iter()
        .filter(|s| s.section_id.as_deref() == section_id)
        .collect()
}

/// Every section in site order (groups expanded).
pub(crate) fn sections_in_order(structure: &Structure) -> Vec<&SectionRow> {
    let mut out = Vec::new();
    for item in top_order(structure) {
        match item {
            Top::Section(id) => out.extend(structure.sections.iter().find(|s| s.id == id)),
            Top::Group(id) => out.extend(group_sections(structure, &id)),
        }
    }
    out
}

/// The structure of a site with every space shaped for the caller.
pub(crate) async fn load(conn: &mut Conn, access: &SiteAccess, site: SiteRow) -> AppResult<StructureInfo> {
    let structure = sites::structure(conn, &site.id).await?;
    let ids: Vec<String> = structure.site_spaces.iter().map(|s| s.space_id.clone()).collect();
    let rows = spaces::get_many(conn, &ids).await?;
    let roles = OrgRoles::load(conn, &site.organization_id, access.org.role, &access.org.user_id).await?;
    let shaped = infos(conn, rows, |s| roles.for_space(s)).await?;
    let by_id: HashMap<String, SpaceInfo> = shaped.into_iter().map(|i| (i.space.id.clone(), i)).collect();
    let site_space = |row: &SiteSpaceRow, default: Option<&String>| {
        by_id.get(&row.space_id).map(|space| SiteSpaceInfo {
            default: default == Some(&row.id),
            site_space: row.clone(),
            space: space.clone(),
        })
    };
    let section = |row: &SectionRow| SectionInfo {
        default: site.default_section_id.as_ref() == Some(&row.id),
        site_spaces: level_spaces(&structure, Some(&row.id))
            .into_iter()
            .filter_map(|s| site_space(s, row.default_site_space_id.as_ref()))
            .collect(),
        section: row.clone(),
    };
    let mut top = Vec::new();
    for item in top_order(&structure) {
        match item {
            Top::Section(id) => {
                if let Some(row) = structure.sections.iter().find(|s| s.id == id) {
                    top.push(TopItem::Section(section(row)));
                }
            }
            Top::Group(id) => {
                if let Some(group) = structure.groups.iter().find(|g| g.id == id) {
                    top.push(TopItem::Group(GroupInfo {
                        group: group.clone(),
                        sections: group_sections(&structure, &id).into_iter().map(section).collect(),
                    }));
                }
            }
        }
    }
    let root = level_spaces(&structure, None)
        .into_iter()
        .filter_map(|s| site_space(s, site.default_site_space_id.as_ref()))
        .collect();
    Ok(StructureInfo { site, top, root })
}

/// Where a read of a site comes from: its organization and id, and the
/// share key a visitor who is not a member may bring.
#[derive(Debug, Clone, Copy)]
pub struct SiteRef<'a> {
    pub org_id: &'a str,
    pub site_id: &'a str,
    pub share_key: Option<&'a str>,
}

/// Opens a site for reading its structure.
async fn read(app: &App, caller: &Caller, at: SiteRef<'_>) -> AppResult<StructureInfo> {
    let mut conn = app.db.read().await?;
    let (site, access) = access::site_for_reading(&mut conn, caller, at.org_id, at.site_id, at.share_key).await?;
    load(&mut conn, &access, site).await
}

pub async fn get(app: &App, caller: &Caller, at: SiteRef<'_>) -> AppResult<StructureInfo> {
    read(app, caller, at).await
}

pub async fn list_sections(
    app: &App,
    caller: &Caller,
    at: SiteRef<'_>,
    request: &PageRequest,
) -> AppResult<(SiteRow, Page<SectionInfo>)> {
    let info = read(app, caller, at).await?;
    let sections = info.sections().into_iter().cloned().collect();
    Ok((info.site, Page::of_list(sections, request)))
}

/// The site's site spaces in order; `default` keeps only the defaults
/// (`true`) or only the others (`false`).
pub async fn list_site_spaces(
    app: &App,
    caller: &Caller,
    at: SiteRef<'_>,
    default: Option<bool>,
    request: &PageRequest,
) -> AppResult<(SiteRow, Page<(Option<SectionInfo>, SiteSpaceInfo)>)> {
    let info = read(app, caller, at).await?;
    let items = with_sections(&info)
        .into_iter()
        .filter(|(_, s)| default.is_none_or(|d| s.default == d))
        .collect();
    Ok((info.site, Page::of_list(items, request)))
}

pub async fn list_groups(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    request: &PageRequest,
) -> AppResult<(SiteRow, Page<GroupInfo>)> {
    let info = read(
        app,
        caller,
        SiteRef {
            org_id,
            site_id,
            share_key: None,
        },
    )
    .await?;
    let groups = info
        .top
        .into_iter()
        .filter_map(|item| match item {
            TopItem::Group(g) => Some(g),
            TopItem::Section(_) => None,
        })
        .collect();
    Ok((info.site, Page::of_list(groups, request)))
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// A write on a site's structure: the transaction, the site and its
/// structure as they were when it began.
struct Edit {
    tx: quire_store::WriteTx,
    site: SiteRow,
    access: SiteAccess,
    structure: Structure,
}

async fn begin(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<Edit> {
    let mut tx = app.db.write().await?;
    let (site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_structure()?;
    let structure = sites::structure(&mut tx, &site.id).await?;
    Ok(Edit {
        tx,
        site,
        access,
        structure,
    })
}

impl Edit {
    /// Re-reads the structure after writes.
    async fn refresh(&mut self) -> AppResult<()> {
        self.structure = sites::structure(&mut self.tx, &self.site.id).await?;
        self.site = sites::get_site(&mut self.tx, &self.site.organization_id, &self.site.id).await?;
        Ok(())
    }

    /// Shapes the structure and commits.
    async fn finish(mut self) -> AppResult<StructureInfo> {
        let site = sites::get_site(&mut self.tx, &self.site.organization_id, &self.site.id).await?;
        let info = load(&mut self.tx, &self.access, site).await?;
        self.tx.commit().await?;
        Ok(info)
    }

    fn section(&self, id: &str) -> AppResult<&SectionRow> {
        self.structure
            .sections
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| AppError::not_found("site section", id))
    }

    fn site_space(&self, id: &str) -> AppResult<&SiteSpaceRow> {
        self.structure
            .site_spaces
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| AppError::not_found("site space", id))
    }

    fn group(&self, id: &str) -> AppResult<&SectionGroupRow> {
        self.structure
            .groups
            .iter()
            .find(|g| g.id == id)
            .ok_or_else(|| AppError::not_found("site section group", id))
    }
}

/// A path segment: 1 to 100 letters, digits, `-`, `_` or `.`.
fn path(field: &str, value: &str) -> AppResult<String> {
    let ok = (1..=100).contains(&value.chars().count())
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && value != "."
        && value != "..";
    if ok {
        Ok(value.to_owned())
    } else {
        Err(AppError::invalid(format!(
            "{field} must be 1 to 100 letters, digits, '-', '_' or '.'"
        )))
    }
}

/// A free path for `title` among `taken`.
fn free_path(title: &str, taken: &[&str]) -> String {
    let base: String = if title.chars().any(char::is_alphanumeric) {
        quire_content::markdown::slugify(title).chars().take(90).collect()
    } else {
        "content".into()
    };
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate.as_str()) {
        candidate = format!("{base}-{n}");
        n += 1;
    }
    candidate
}

fn condition(value: &str) -> AppResult<String> {
    quire_core::expression::check_condition(value).map_err(AppError::invalid)?;
    Ok(value.to_owned())
}

fn icon(value: &str) -> AppResult<String> {
    if value.chars().count() > 50 {
        return Err(AppError::invalid("icon must be at most 50 characters long"));
    }
    Ok(value.to_owned())
}

/// A live space of the site's organization that the caller can read.
async fn site_content(
    conn: &mut Conn,
    caller: &Caller,
    site: &SiteRow,
    space_id: &str,
) -> AppResult<quire_store::spaces::SpaceRow> {
    let (space, _) = access::space(conn, caller, space_id, None).await?;
    if space.organization_id != site.organization_id {
        return Err(AppError::not_found("space", space_id));
    }
    Ok(space)
}

/// Adds the space to the site at a level (`section`, or the default
/// section, or the root of a site without sections); the new site space.
pub(crate) async fn add_space_in(
    conn: &mut Conn,
    caller: &Caller,
    site: &SiteRow,
    space_id: &str,
    section: Option<&str>,
) -> AppResult<SiteSpaceRow> {
    let space = site_content(conn, caller, site, space_id).await?;
    let structure = sites::structure(conn, &site.id).await?;
    let section_id = match section {
        Some(id) => {
            if !structure.sections.iter().any(|s| s.id == id) {
                return Err(AppError::not_found("site section", id));
            }
            Some(id.to_owned())
        }
        None if structure.sections.is_empty() => None,
        None => site
            .default_section_id
            .clone()
            .or_else(|| sections_in_order(&structure).first().map(|s| s.id.clone())),
    };
    let level = level_spaces(&structure, section_id.as_deref());
    let taken: Vec<&str> = level.iter().map(|s| s.path.as_str()).collect();
    let row = SiteSpaceRow {
        id: quire_core::id::new_id(),
        site_id: site.id.clone(),
        section_id: section_id.clone(),
        space_id: space.id.clone(),
        path: free_path(&space.title, &taken),
        condition: None,
        position: level.len() as i64,
    };
    sites::put_site_space(conn, &row).await?;
    match &section_id {
        Some(id) => {
            if let Some(section) = structure.sections.iter().find(|s| &s.id == id)
                && section.default_site_space_id.is_none()
            {
                let mut section = section.clone();
                section.default_site_space_id = Some(row.id.clone());
                sites::put_section(conn, &section).await?;
            }
        }
        None => {
            let mut fresh = sites::get_site(conn, &site.organization_id, &site.id).await?;
            if fresh.default_site_space_id.is_none() {
                fresh.default_site_space_id = Some(row.id.clone());
                sites::put_site(conn, &fresh).await?;
            }
        }
    }
    Ok(row)
}

/// Sets the default site space the site's settings name: at the root, or
/// in the default section of a site with sections.
pub(crate) async fn set_default_site_space(
    conn: &mut Conn,
    site: &mut SiteRow,
    structure: &Structure,
    site_space_id: &str,
) -> AppResult<()> {
    let row = structure
        .site_spaces
        .iter()
        .find(|s| s.id == site_space_id)
        .ok_or_else(|| {
            AppError::invalid(format!(
                "defaultSiteSpace: site space {site_space_id:?} is not in this site"
            ))
        })?;
    match &row.section_id {
        None => site.default_site_space_id = Some(row.id.clone()),
        Some(section_id) => {
            let default_section = site
                .default_section_id
                .clone()
                .or_else(|| sections_in_order(structure).first().map(|s| s.id.clone()));
            if default_section.as_ref() != Some(section_id) {
                return Err(AppError::invalid(
                    "defaultSiteSpace must be a site space of the site's default section",
                ));
            }
            if let Some(section) = structure.sections.iter().find(|s| &s.id == section_id) {
                let mut section = section.clone();
                section.default_site_space_id = Some(row.id.clone());
                sites::put_section(conn, &section).await?;
            }
        }
    }
    Ok(())
}

/// The body of the move operations: `{ "position": { "before": {...} } }`
/// or `"after"`; without a position the item moves to the end of its level.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "P: Deserialize<'de>"))]
pub struct MoveBody<P> {
    #[serde(default)]
    pub position: Position<P>,
}

pub use quire_app::tree::Position;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SiteSpacePointer {
    #[serde(rename = "type")]
    pub kind: SiteSpaceKind,
    pub site_space: String,
}

#[derive(Debug, Deserialize)]
pub enum SiteSpaceKind {
    #[serde(rename = "site-space")]
    SiteSpace,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SectionPointer {
    #[serde(rename = "type")]
    pub kind: SectionKind,
    pub site_section: String,
}

#[derive(Debug, Deserialize)]
pub enum SectionKind {
    #[serde(rename = "site-section")]
    SiteSection,
}

/// `ids` with `item` put before `before` or after `after` (among `ids`),
/// or at the end when neither is given.
/// Site structure ids in their new order (`quire_app::tree::reorder`).
fn reorder(ids: &[String], item: &str, before: Option<&str>, after: Option<&str>) -> AppResult<Vec<String>> {
    let (before, after) = (before.map(str::to_owned), after.map(str::to_owned));
    quire_app::tree::reorder(ids, &item.to_owned(), before.as_ref(), after.as_ref(), |anchor| {
        format!("{anchor:?} is not a sibling of the item being moved")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_paths_never_repeat() {
        assert_eq!(free_path("Getting Started", &[]), "getting-started");
        assert_eq!(free_path("Getting Started", &["getting-started"]), "getting-started-2");
        assert_eq!(free_path("!!!", &[]), "content");
    }
}
