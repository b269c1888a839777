//! Section groups and the top level's order: creating, changing and
//! removing groups, putting sections in and out of them, moving groups,
//! sorting the top level.

use super::*;

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

pub(super) fn group_title(value: &str) -> AppResult<String> {
    input::title("title", value, 1, 100)
}

/// Puts a section at the end of a group (leaving its former place).
pub(super) async fn put_in_group(edit: &mut Edit, section_id: &str, group_id: &str) -> AppResult<()> {
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
                fix_level_default(&mut edit, &item.id).await?;
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
pub(super) async fn move_to_top(edit: &mut Edit, id: &str, before: Option<&str>, after: Option<&str>) -> AppResult<()> {
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
