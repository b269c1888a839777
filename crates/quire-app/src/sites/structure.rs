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

use crate::access::{self, OrgRoles, SiteAccess};
use crate::error::{AppError, AppResult};
use crate::spaces::{SpaceInfo, infos};
use crate::{App, Caller, input};

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
fn sections_in_order(structure: &Structure) -> Vec<&SectionRow> {
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

/// The input of `POST .../site-spaces`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewSiteSpace {
    /// The space to show; `null` creates a new, empty one.
    #[serde(default, deserialize_with = "nullable")]
    pub space_id: Option<Option<String>>,
    pub section_id: Option<String>,
    /// The title of the space created for `spaceId: null`.
    pub title: Option<String>,
}

/// The space a new site space or section shows: the one named, or for
/// `null` a new, empty space of the site's organization titled `title`,
/// created in the same transaction.
async fn space_to_show(
    edit: &mut Edit,
    caller: &Caller,
    space_id: Option<Option<String>>,
    title: &str,
    now: quire_core::Timestamp,
) -> AppResult<quire_store::spaces::SpaceRow> {
    match space_id {
        None => Err(AppError::invalid("spaceId is required (null creates a new space)")),
        Some(Some(id)) => site_content(&mut edit.tx, caller, &edit.site, &id).await,
        Some(None) => {
            let new = crate::spaces::NewSpace {
                title: Some(title.to_owned()),
                ..crate::spaces::NewSpace::default()
            };
            crate::spaces::create_in(&mut edit.tx, caller, &edit.site.organization_id, new, now).await
        }
    }
}

pub async fn add_site_space(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    new: NewSiteSpace,
) -> AppResult<PlacedSiteSpace> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let title = match &new.title {
        Some(t) => input::title("title", t, 2, 128)?,
        None => "Untitled".to_owned(),
    };
    let space = space_to_show(&mut edit, caller, new.space_id, &title, app.now()).await?;
    let row = add_space_in(&mut edit.tx, caller, &edit.site, &space.id, new.section_id.as_deref()).await?;
    let info = edit.finish().await?;
    site_space_of(info, &row.id)
}

/// Every site space with the section it is in, in order.
fn with_sections(info: &StructureInfo) -> Vec<(Option<SectionInfo>, SiteSpaceInfo)> {
    let mut out: Vec<(Option<SectionInfo>, SiteSpaceInfo)> = info.root.iter().map(|s| (None, s.clone())).collect();
    for section in info.sections() {
        for s in &section.site_spaces {
            out.push((Some(section.clone()), s.clone()));
        }
    }
    out
}

/// A site space of the structure, with its section and the site.
pub type PlacedSiteSpace = (SiteRow, Option<SectionInfo>, SiteSpaceInfo);

fn site_space_of(info: StructureInfo, id: &str) -> AppResult<PlacedSiteSpace> {
    let (section, site_space) = with_sections(&info)
        .into_iter()
        .find(|(_, s)| s.site_space.id == id)
        .ok_or_else(|| AppError::not_found("site space", id))?;
    Ok((info.site, section, site_space))
}

fn section_of(info: StructureInfo, id: &str) -> AppResult<(SiteRow, SectionInfo)> {
    let section = info
        .sections()
        .into_iter()
        .find(|s| s.section.id == id)
        .cloned()
        .ok_or_else(|| AppError::not_found("site section", id))?;
    Ok((info.site, section))
}

fn group_of(info: StructureInfo, id: &str) -> AppResult<(SiteRow, GroupInfo)> {
    let group = info
        .top
        .iter()
        .find_map(|item| match item {
            TopItem::Group(g) if g.group.id == id => Some(g.clone()),
            _ => None,
        })
        .ok_or_else(|| AppError::not_found("site section group", id))?;
    Ok((info.site, group))
}

/// The input of a site space update.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SiteSpaceUpdate {
    pub path: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub condition: Option<Option<String>>,
    pub space_id: Option<String>,
}

pub async fn update_site_space(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    id: &str,
    update: SiteSpaceUpdate,
) -> AppResult<PlacedSiteSpace> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let mut row = edit.site_space(id)?.clone();
    if let Some(new_path) = &update.path {
        let new_path = path("path", new_path)?;
        let clash = level_spaces(&edit.structure, row.section_id.as_deref())
            .iter()
            .any(|s| s.id != row.id && s.path == new_path);
        if clash {
            return Err(AppError::conflict(format!(
                "another site space at this level already uses the path {new_path:?}"
            )));
        }
        row.path = new_path;
    }
    if let Some(c) = &update.condition {
        row.condition = c.as_deref().map(condition).transpose()?;
    }
    if let Some(space_id) = &update.space_id {
        row.space_id = site_content(&mut edit.tx, caller, &edit.site, space_id).await?.id;
    }
    sites::put_site_space(&mut edit.tx, &row).await?;
    let info = edit.finish().await?;
    site_space_of(info, id)
}

/// Picks the default of a level after its default left: the first item.
fn first_or_none(ids: &[String]) -> Option<String> {
    ids.first().cloned()
}

/// Removes a site space, if the site has one with that id.
pub async fn delete_site_space(app: &App, caller: &Caller, org_id: &str, site_id: &str, id: &str) -> AppResult<()> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let Ok(row) = edit.site_space(id).cloned() else {
        return Ok(());
    };
    sites::delete_part(&mut edit.tx, Part::SiteSpace, &edit.site.id, id).await?;
    let rest: Vec<String> = level_spaces(&edit.structure, row.section_id.as_deref())
        .iter()
        .filter(|s| s.id != id)
        .map(|s| s.id.clone())
        .collect();
    sites::set_positions(&mut edit.tx, Part::SiteSpace, &rest).await?;
    fix_level_default(&mut edit, row.section_id.as_deref(), id, &rest).await?;
    edit.finish().await?;
    Ok(())
}

/// After `gone` left a level: if it was the level's default, the first
/// site space left takes its place.
async fn fix_level_default(edit: &mut Edit, section_id: Option<&str>, gone: &str, rest: &[String]) -> AppResult<()> {
    match section_id {
        None => {
            let mut site = sites::get_site(&mut edit.tx, &edit.site.organization_id, &edit.site.id).await?;
            if site.default_site_space_id.as_deref() == Some(gone) {
                site.default_site_space_id = first_or_none(rest);
                sites::put_site(&mut edit.tx, &site).await?;
            }
        }
        Some(section_id) => {
            if let Some(section) = edit.structure.sections.iter().find(|s| s.id == section_id)
                && section.default_site_space_id.as_deref() == Some(gone)
            {
                let mut section = section.clone();
                section.default_site_space_id = first_or_none(rest);
                sites::put_section(&mut edit.tx, &section).await?;
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position<P> {
    pub before: Option<P>,
    pub after: Option<P>,
}

impl<P> Default for Position<P> {
    fn default() -> Self {
        Position {
            before: None,
            after: None,
        }
    }
}

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
fn reorder(ids: &[String], item: &str, before: Option<&str>, after: Option<&str>) -> AppResult<Vec<String>> {
    let mut rest: Vec<String> = ids.iter().filter(|id| *id != item).cloned().collect();
    let (anchor, offset) = match (before, after) {
        (Some(b), None) => (b, 0),
        (None, Some(a)) => (a, 1),
        (None, None) => {
            rest.push(item.to_owned());
            return Ok(rest);
        }
        (Some(_), Some(_)) => return Err(AppError::invalid("position needs one of before and after, not both")),
    };
    if anchor == item {
        return Err(AppError::invalid("an item cannot be placed relative to itself"));
    }
    let at = rest
        .iter()
        .position(|id| id == anchor)
        .ok_or_else(|| AppError::invalid(format!("{anchor:?} is not a sibling of the item being moved")))?;
    rest.insert(at + offset, item.to_owned());
    Ok(rest)
}

pub async fn move_site_space(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    id: &str,
    body: MoveBody<SiteSpacePointer>,
) -> AppResult<PlacedSiteSpace> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let row = edit.site_space(id)?.clone();
    let ids: Vec<String> = level_spaces(&edit.structure, row.section_id.as_deref())
        .iter()
        .map(|s| s.id.clone())
        .collect();
    let order = reorder(
        &ids,
        id,
        body.position.before.as_ref().map(|p| p.site_space.as_str()),
        body.position.after.as_ref().map(|p| p.site_space.as_str()),
    )?;
    sites::set_positions(&mut edit.tx, Part::SiteSpace, &order).await?;
    let info = edit.finish().await?;
    site_space_of(info, id)
}

// ---------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------

/// The input of `POST .../sections`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewSection {
    /// The space the section shows first; `null` creates a new, empty one.
    #[serde(default, deserialize_with = "nullable")]
    pub space_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub title: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub icon: Option<Option<String>>,
    pub site_section_group_id: Option<String>,
}

/// Top-level ids in order.
fn top_ids(structure: &Structure) -> Vec<String> {
    top_order(structure).iter().map(|t| t.id().to_owned()).collect()
}

/// Writes the top-level order (groups and ungrouped sections share it).
async fn write_top(edit: &mut Edit, order: &[String]) -> AppResult<()> {
    for (position, id) in order.iter().enumerate() {
        if let Some(group) = edit.structure.groups.iter().find(|g| &g.id == id) {
            let mut group = group.clone();
            group.position = position as i64;
            sites::put_group(&mut edit.tx, &group).await?;
        } else if let Some(section) = edit.structure.sections.iter().find(|s| &s.id == id) {
            let mut section = section.clone();
            section.position = position as i64;
            sites::put_section(&mut edit.tx, &section).await?;
        }
    }
    Ok(())
}

/// A new section holding the site's root-level site spaces, when it has
/// any: the first step of a site growing sections.
async fn lift_root_into_section(edit: &mut Edit) -> AppResult<()> {
    let root: Vec<SiteSpaceRow> = level_spaces(&edit.structure, None).into_iter().cloned().collect();
    if root.is_empty() || !edit.structure.sections.is_empty() {
        return Ok(());
    }
    let section = SectionRow {
        id: quire_core::id::new_id(),
        site_id: edit.site.id.clone(),
        group_id: None,
        title: edit.site.title.clone(),
        description: None,
        icon: None,
        path: free_path(&edit.site.title, &[]),
        condition: None,
        default_site_space_id: edit.site.default_site_space_id.clone(),
        position: 0,
    };
    sites::put_section(&mut edit.tx, &section).await?;
    for mut row in root {
        row.section_id = Some(section.id.clone());
        sites::put_site_space(&mut edit.tx, &row).await?;
    }
    let mut site = sites::get_site(&mut edit.tx, &edit.site.organization_id, &edit.site.id).await?;
    site.default_site_space_id = None;
    site.default_section_id = Some(section.id.clone());
    sites::put_site(&mut edit.tx, &site).await?;
    edit.refresh().await
}

pub async fn add_section(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    new: NewSection,
) -> AppResult<(SiteRow, SectionInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    if let Some(group) = &new.site_section_group_id {
        edit.group(group)?;
    }
    let named = new
        .title
        .flatten()
        .map(|t| input::title("title", &t, 2, 128))
        .transpose()?;
    let space = space_to_show(
        &mut edit,
        caller,
        new.space_id,
        named.as_deref().unwrap_or("Untitled"),
        app.now(),
    )
    .await?;
    let title = match named {
        Some(t) => t,
        None => input::title("title", &space.title, 2, 128).unwrap_or_else(|_| "Section".into()),
    };
    let icon_name = new.icon.flatten().as_deref().map(icon).transpose()?;
    lift_root_into_section(&mut edit).await?;
    let taken: Vec<&str> = edit.structure.sections.iter().map(|s| s.path.as_str()).collect();
    let position = match &new.site_section_group_id {
        Some(group) => group_sections(&edit.structure, group).len() as i64,
        None => top_order(&edit.structure).len() as i64,
    };
    let section = SectionRow {
        id: quire_core::id::new_id(),
        site_id: edit.site.id.clone(),
        group_id: new.site_section_group_id.clone(),
        path: free_path(&title, &taken),
        title,
        description: None,
        icon: icon_name,
        condition: None,
        default_site_space_id: None,
        position,
    };
    sites::put_section(&mut edit.tx, &section).await?;
    if edit.site.default_section_id.is_none() {
        let mut site = sites::get_site(&mut edit.tx, &edit.site.organization_id, &edit.site.id).await?;
        site.default_section_id = Some(section.id.clone());
        sites::put_site(&mut edit.tx, &site).await?;
    }
    let site = sites::get_site(&mut edit.tx, &edit.site.organization_id, &edit.site.id).await?;
    add_space_in(&mut edit.tx, caller, &site, &space.id, Some(&section.id)).await?;
    let info = edit.finish().await?;
    section_of(info, &section.id)
}

/// The input of a section update.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SectionUpdate {
    pub title: Option<String>,
    pub path: Option<String>,
    pub default_site_space: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub condition: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub icon: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub description: Option<Option<String>>,
}

pub async fn update_section(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    id: &str,
    update: SectionUpdate,
) -> AppResult<(SiteRow, SectionInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let mut section = edit.section(id)?.clone();
    if let Some(title) = &update.title {
        section.title = input::title("title", title, 2, 128)?;
    }
    if let Some(new_path) = &update.path {
        let new_path = path("path", new_path)?;
        if edit.structure.sections.iter().any(|s| s.id != id && s.path == new_path) {
            return Err(AppError::conflict(format!(
                "another section of this site already uses the path {new_path:?}"
            )));
        }
        section.path = new_path;
    }
    if let Some(default) = &update.default_site_space {
        if !level_spaces(&edit.structure, Some(id)).iter().any(|s| &s.id == default) {
            return Err(AppError::invalid(format!(
                "defaultSiteSpace: site space {default:?} is not in this section"
            )));
        }
        section.default_site_space_id = Some(default.clone());
    }
    if let Some(c) = &update.condition {
        section.condition = c.as_deref().map(condition).transpose()?;
    }
    if let Some(i) = &update.icon {
        section.icon = i.as_deref().map(icon).transpose()?;
    }
    if let Some(d) = &update.description {
        if d.as_deref().is_some_and(|d| d.chars().count() > 256) {
            return Err(AppError::invalid("description must be at most 256 characters long"));
        }
        section.description = d.clone();
    }
    sites::put_section(&mut edit.tx, &section).await?;
    let info = edit.finish().await?;
    section_of(info, id)
}

/// Removes a section with its site spaces, if the site has one with that id.
pub async fn delete_section(app: &App, caller: &Caller, org_id: &str, site_id: &str, id: &str) -> AppResult<()> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let Ok(section) = edit.section(id).cloned() else {
        return Ok(());
    };
    sites::delete_part(&mut edit.tx, Part::Section, &edit.site.id, id).await?;
    match &section.group_id {
        Some(group) => {
            let rest: Vec<String> = group_sections(&edit.structure, group)
                .iter()
                .filter(|s| s.id != id)
                .map(|s| s.id.clone())
                .collect();
            sites::set_positions(&mut edit.tx, Part::Section, &rest).await?;
        }
        None => {
            let rest: Vec<String> = top_ids(&edit.structure).into_iter().filter(|t| t != id).collect();
            write_top(&mut edit, &rest).await?;
        }
    }
    if edit.site.default_section_id.as_deref() == Some(id) {
        let next = sections_in_order(&edit.structure)
            .iter()
            .find(|s| s.id != id)
            .map(|s| s.id.clone());
        let mut site = sites::get_site(&mut edit.tx, &edit.site.organization_id, &edit.site.id).await?;
        site.default_section_id = next;
        sites::put_site(&mut edit.tx, &site).await?;
    }
    edit.finish().await?;
    Ok(())
}

pub async fn move_section(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    id: &str,
    body: MoveBody<SectionPointer>,
) -> AppResult<(SiteRow, SectionInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let section = edit.section(id)?.clone();
    let before = body.position.before.as_ref().map(|p| p.site_section.as_str());
    let after = body.position.after.as_ref().map(|p| p.site_section.as_str());
    match &section.group_id {
        Some(group) => {
            let ids: Vec<String> = group_sections(&edit.structure, group)
                .iter()
                .map(|s| s.id.clone())
                .collect();
            let order = reorder(&ids, id, before, after)?;
            sites::set_positions(&mut edit.tx, Part::Section, &order).await?;
        }
        None => {
            let order = reorder(&top_ids(&edit.structure), id, before, after)?;
            write_top(&mut edit, &order).await?;
        }
    }
    let info = edit.finish().await?;
    section_of(info, id)
}

// ---------------------------------------------------------------------------
// Section groups
// ---------------------------------------------------------------------------

/// The input of `POST .../section-groups`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewGroup {
    pub title: String,
    #[serde(default, deserialize_with = "nullable")]
    pub icon: Option<Option<String>>,
    #[serde(default)]
    pub sections: Vec<String>,
}

fn group_title(value: &str) -> AppResult<String> {
    input::title("title", value, 1, 100)
}

/// Puts a section at the end of a group (leaving its former place).
async fn put_in_group(edit: &mut Edit, section_id: &str, group_id: &str) -> AppResult<()> {
    let mut section = edit.section(section_id)?.clone();
    if section.group_id.as_deref() == Some(group_id) {
        return Ok(());
    }
    let old_group = section.group_id.clone();
    section.group_id = Some(group_id.to_owned());
    section.position = group_sections(&edit.structure, group_id).len() as i64;
    sites::put_section(&mut edit.tx, &section).await?;
    edit.refresh().await?;
    match old_group {
        Some(old) => {
            let ids: Vec<String> = group_sections(&edit.structure, &old)
                .iter()
                .map(|s| s.id.clone())
                .collect();
            sites::set_positions(&mut edit.tx, Part::Section, &ids).await?;
        }
        None => {
            let order = top_ids(&edit.structure);
            write_top(edit, &order).await?;
        }
    }
    edit.refresh().await
}

pub async fn create_group(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    new: NewGroup,
) -> AppResult<(SiteRow, GroupInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let group = SectionGroupRow {
        id: quire_core::id::new_id(),
        site_id: edit.site.id.clone(),
        title: group_title(&new.title)?,
        icon: new.icon.flatten().as_deref().map(icon).transpose()?,
        position: top_order(&edit.structure).len() as i64,
    };
    for section in &new.sections {
        edit.section(section)?;
    }
    sites::put_group(&mut edit.tx, &group).await?;
    edit.refresh().await?;
    for section in &new.sections {
        put_in_group(&mut edit, section, &group.id).await?;
    }
    let info = edit.finish().await?;
    group_of(info, &group.id)
}

/// The input of a section group update.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupUpdate {
    pub title: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub icon: Option<Option<String>>,
}

pub async fn update_group(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    id: &str,
    update: GroupUpdate,
) -> AppResult<(SiteRow, GroupInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let mut group = edit.group(id)?.clone();
    if let Some(title) = &update.title {
        group.title = group_title(title)?;
    }
    if let Some(i) = &update.icon {
        group.icon = i.as_deref().map(icon).transpose()?;
    }
    sites::put_group(&mut edit.tx, &group).await?;
    let info = edit.finish().await?;
    group_of(info, id)
}

/// Deletes a group, if the site has it; its sections take its place at the
/// top level.
pub async fn delete_group(app: &App, caller: &Caller, org_id: &str, site_id: &str, id: &str) -> AppResult<()> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    if edit.group(id).is_err() {
        return Ok(());
    }
    let members: Vec<String> = group_sections(&edit.structure, id)
        .iter()
        .map(|s| s.id.clone())
        .collect();
    let mut order = Vec::new();
    for top in top_ids(&edit.structure) {
        if top == id {
            order.extend(members.iter().cloned());
        } else {
            order.push(top);
        }
    }
    for section_id in &members {
        let mut section = edit.section(section_id)?.clone();
        section.group_id = None;
        sites::put_section(&mut edit.tx, &section).await?;
    }
    sites::delete_part(&mut edit.tx, Part::Group, &edit.site.id, id).await?;
    edit.refresh().await?;
    write_top(&mut edit, &order).await?;
    edit.finish().await?;
    Ok(())
}

/// The input of `POST .../section-groups/{id}/sections`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupSection {
    pub section_id: String,
}

pub async fn add_to_group(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    group_id: &str,
    body: GroupSection,
) -> AppResult<(SiteRow, GroupInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    edit.group(group_id)?;
    put_in_group(&mut edit, &body.section_id, group_id).await?;
    let info = edit.finish().await?;
    group_of(info, group_id)
}

/// Takes a section out of a group: it goes right after the group at the
/// top level. Nothing happens when it was not in the group.
pub async fn remove_from_group(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    group_id: &str,
    section_id: &str,
) -> AppResult<()> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    edit.group(group_id)?;
    let Ok(section) = edit.section(section_id).cloned() else {
        return Ok(());
    };
    if section.group_id.as_deref() != Some(group_id) {
        return Ok(());
    }
    let mut order = Vec::new();
    for top in top_ids(&edit.structure) {
        let is_group = top == group_id;
        order.push(top);
        if is_group {
            order.push(section_id.to_owned());
        }
    }
    let mut moved = section.clone();
    moved.group_id = None;
    sites::put_section(&mut edit.tx, &moved).await?;
    edit.refresh().await?;
    let rest: Vec<String> = group_sections(&edit.structure, group_id)
        .iter()
        .map(|s| s.id.clone())
        .collect();
    sites::set_positions(&mut edit.tx, Part::Section, &rest).await?;
    write_top(&mut edit, &order).await?;
    edit.finish().await?;
    Ok(())
}

/// A pointer of the deprecated group move: `{type, id}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypedPointer {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
}

/// The deprecated move of a section group among the top level.
pub async fn move_group(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    id: &str,
    body: MoveBody<TypedPointer>,
) -> AppResult<(SiteRow, GroupInfo)> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    edit.group(id)?;
    let order = reorder(
        &top_ids(&edit.structure),
        id,
        body.position.before.as_ref().map(|p| p.id.as_str()),
        body.position.after.as_ref().map(|p| p.id.as_str()),
    )?;
    write_top(&mut edit, &order).await?;
    let info = edit.finish().await?;
    group_of(info, id)
}

/// The input of `sortSiteStructure`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SortInput {
    pub item: TypedPointer,
    pub position: Position<TypedPointer>,
}

/// Moves any item of the structure before or after another: a site space
/// among site spaces (into the anchor's section), a section among
/// sections and groups (into the anchor's group, or the top level), a group
/// among the top level.
pub async fn sort(app: &App, caller: &Caller, org_id: &str, site_id: &str, input: SortInput) -> AppResult<()> {
    let mut edit = begin(app, caller, org_id, site_id).await?;
    let anchor = match (&input.position.before, &input.position.after) {
        (Some(p), None) | (None, Some(p)) => p,
        _ => return Err(AppError::invalid("position needs exactly one of before and after")),
    };
    let before = input.position.before.as_ref().map(|p| p.id.as_str());
    let after = input.position.after.as_ref().map(|p| p.id.as_str());
    let item = &input.item;
    match (item.kind.as_str(), anchor.kind.as_str()) {
        ("site-space", "site-space") => {
            let mut row = edit.site_space(&item.id)?.clone();
            let target = edit.site_space(&anchor.id)?.section_id.clone();
            let old = row.section_id.clone();
            if old != target {
                row.section_id = target.clone();
                sites::put_site_space(&mut edit.tx, &row).await?;
                edit.refresh().await?;
                let rest: Vec<String> = level_spaces(&edit.structure, old.as_deref())
                    .iter()
                    .map(|s| s.id.clone())
                    .collect();
                sites::set_positions(&mut edit.tx, Part::SiteSpace, &rest).await?;
                fix_level_default(&mut edit, old.as_deref(), &item.id, &rest).await?;
            }
            let ids: Vec<String> = level_spaces(&edit.structure, target.as_deref())
                .iter()
                .map(|s| s.id.clone())
                .collect();
            let order = reorder(&ids, &item.id, before, after)?;
            sites::set_positions(&mut edit.tx, Part::SiteSpace, &order).await?;
        }
        ("site-section", "site-section") => {
            edit.section(&item.id)?;
            let target_group = edit.section(&anchor.id)?.group_id.clone();
            match target_group {
                Some(group) => {
                    put_in_group(&mut edit, &item.id, &group).await?;
                    let ids: Vec<String> = group_sections(&edit.structure, &group)
                        .iter()
                        .map(|s| s.id.clone())
                        .collect();
                    let order = reorder(&ids, &item.id, before, after)?;
                    sites::set_positions(&mut edit.tx, Part::Section, &order).await?;
                }
                None => move_to_top(&mut edit, &item.id, before, after).await?,
            }
        }
        ("site-section", "site-section-group") => {
            edit.group(&anchor.id)?;
            move_to_top(&mut edit, &item.id, before, after).await?;
        }
        ("site-section-group", "site-section" | "site-section-group") => {
            edit.group(&item.id)?;
            let order = reorder(&top_ids(&edit.structure), &item.id, before, after)?;
            write_top(&mut edit, &order).await?;
        }
        (item_kind, anchor_kind) => {
            return Err(AppError::invalid(format!(
                "a {item_kind} cannot be placed relative to a {anchor_kind}"
            )));
        }
    }
    edit.finish().await?;
    Ok(())
}

/// Moves a section out of its group (if any) to a place at the top level.
async fn move_to_top(edit: &mut Edit, id: &str, before: Option<&str>, after: Option<&str>) -> AppResult<()> {
    let mut section = edit.section(id)?.clone();
    if let Some(group) = section.group_id.take() {
        sites::put_section(&mut edit.tx, &section).await?;
        edit.refresh().await?;
        let rest: Vec<String> = group_sections(&edit.structure, &group)
            .iter()
            .map(|s| s.id.clone())
            .collect();
        sites::set_positions(&mut edit.tx, Part::Section, &rest).await?;
    }
    let order = reorder(&top_ids(&edit.structure), id, before, after)?;
    write_top(edit, &order).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reorder_places_before_or_after_a_sibling() {
        let all = ids(&["a", "b", "c"]);
        assert_eq!(reorder(&all, "c", Some("a"), None).unwrap(), ids(&["c", "a", "b"]));
        assert_eq!(reorder(&all, "a", None, Some("c")).unwrap(), ids(&["b", "c", "a"]));
        assert_eq!(
            reorder(&all, "a", None, None).unwrap(),
            ids(&["b", "c", "a"]),
            "no position: the end"
        );
        assert!(reorder(&all, "a", Some("b"), Some("c")).is_err());
        assert!(reorder(&all, "a", Some("zzz"), None).is_err());
        assert!(reorder(&all, "a", Some("a"), None).is_err());
    }

    #[test]
    fn free_paths_never_repeat() {
        assert_eq!(free_path("Getting Started", &[]), "getting-started");
        assert_eq!(free_path("Getting Started", &["getting-started"]), "getting-started-2");
        assert_eq!(free_path("!!!", &[]), "content");
    }
}
