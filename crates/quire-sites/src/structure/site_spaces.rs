//! Site spaces: adding a space to a site, changing, removing and moving
//! one (the level's default handed on when it goes).

use super::*;

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
pub(super) async fn space_to_show(
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
            let new = quire_app::spaces::NewSpace {
                title: Some(title.to_owned()),
                ..quire_app::spaces::NewSpace::default()
            };
            quire_app::spaces::create_in(&mut edit.tx, caller, &edit.site.organization_id, new, now).await
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
pub(super) fn with_sections(info: &StructureInfo) -> Vec<(Option<SectionInfo>, SiteSpaceInfo)> {
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

pub(super) fn site_space_of(info: StructureInfo, id: &str) -> AppResult<PlacedSiteSpace> {
    let (section, site_space) = with_sections(&info)
        .into_iter()
        .find(|(_, s)| s.site_space.id == id)
        .ok_or_else(|| AppError::not_found("site space", id))?;
    Ok((info.site, section, site_space))
}

pub(super) fn section_of(info: StructureInfo, id: &str) -> AppResult<(SiteRow, SectionInfo)> {
    let section = info
        .sections()
        .into_iter()
        .find(|s| s.section.id == id)
        .cloned()
        .ok_or_else(|| AppError::not_found("site section", id))?;
    Ok((info.site, section))
}

pub(super) fn group_of(info: StructureInfo, id: &str) -> AppResult<(SiteRow, GroupInfo)> {
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
    fix_level_default(&mut edit, id).await?;
    edit.finish().await?;
    Ok(())
}

/// After `gone` left a level: if it was the level's default, the first
/// site space left takes its place (`sites::hand_over_default`).
pub(super) async fn fix_level_default(edit: &mut Edit, gone: &str) -> AppResult<()> {
    sites::hand_over_default(&mut edit.tx, gone).await?;
    edit.refresh().await
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
