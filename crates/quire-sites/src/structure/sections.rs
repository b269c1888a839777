//! Sections: adding one (lifting root-level spaces into a first section),
//! changing, removing and moving one.

use super::*;

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
pub(super) fn top_ids(structure: &Structure) -> Vec<String> {
    top_order(structure).iter().map(|t| t.id().to_owned()).collect()
}

/// Writes the top-level order (groups and ungrouped sections share it).
pub(super) async fn write_top(edit: &mut Edit, order: &[String]) -> AppResult<()> {
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
pub(super) async fn lift_root_into_section(edit: &mut Edit) -> AppResult<()> {
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
