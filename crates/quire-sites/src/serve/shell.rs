//! The navigation around a page: sections, variants, the tree along the
//! current page, breadcrumbs, the outline, previous and next.

use super::*;

/// Spaces of at most this many pages show their whole tree on every page.
const WHOLE_TREE: usize = 300;

/// Navigation around a page (or a search).
#[allow(clippy::too_many_arguments)]
pub(super) fn shell(
    order: &ReadingOrder,
    withheld: &Withheld,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    space_base: &str,
    page_id: Option<&str>,
    document: &Document,
    query: &str,
) -> Shell {
    let links = SpaceLinks::new(snapshot, space_base, withheld);
    let sections = visit
        .site
        .sections
        .iter()
        .filter_map(|s| {
            let first = s.spaces.iter().find(|x| x.default)?;
            Some(SectionTab {
                group: s.group.clone(),
                link: NavLink {
                    title: s.section.title.clone(),
                    href: format!("{}/", space_url(&visit.base, Some(s), first)),
                    current: section.is_some_and(|c| c.section.id == s.section.id),
                },
            })
        })
        .collect();
    let level: &[PublishedSpace] = section.map_or(&visit.site.root, |s| &s.spaces);
    let variants = level
        .iter()
        .map(|v| NavLink {
            title: v.space.title.clone(),
            href: format!("{}/", space_url(&visit.base, section, v)),
            current: v.site_space.id == space.site_space.id,
        })
        .collect();
    // A space of up to [`WHOLE_TREE`] pages shows its whole tree, each page
    // with subpages folded unless the current page is under it. A larger
    // one shows the top level (and what top-level groups hold), and the
    // children of the current page and of each of its ancestors: a
    // 10,000-page space does not put 10,000 links on every page, and the
    // walk visits only what it shows.
    let mut open_pages: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut current = page_id.and_then(|p| snapshot.tree.pages.get_key_value(p));
    while let Some((id, page)) = current {
        if !open_pages.insert(id.as_str()) {
            break;
        }
        current = page.parent.as_ref().and_then(|p| snapshot.tree.pages.get_key_value(p));
    }
    let whole = snapshot.tree.pages.len() <= WHOLE_TREE;
    let mut tree = Vec::new();
    let mut stack: Vec<(&String, usize)> = snapshot.tree.children_of(None).iter().rev().map(|id| (id, 0)).collect();
    while let Some((id, depth)) = stack.pop() {
        let Some(page) = snapshot.tree.pages.get(id) else {
            continue;
        };
        let meta = &page.meta;
        if meta.hidden || withheld.0.contains(id.as_str()) {
            continue;
        }
        let href = match &meta.kind {
            PageKind::Link { target } => target.clone(),
            _ => links.page_url(id),
        };
        let group = matches!(meta.kind, PageKind::Group);
        let open = open_pages.contains(id.as_str());
        tree.push(TreeEntry {
            depth,
            group,
            open,
            link: NavLink {
                title: meta.title.clone(),
                href,
                current: Some(id.as_str()) == page_id,
            },
        });
        if whole || open || (group && depth == 0) {
            stack.extend(snapshot.tree.children_of(Some(id)).iter().rev().map(|c| (c, depth + 1)));
        }
    }
    let nav = |id: &str| NavLink {
        title: snapshot.tree.pages[id].meta.title.clone(),
        href: links.page_url(id),
        current: false,
    };
    let shown = |id: &&String| !withheld.page(snapshot, id);
    let (previous, next) = match page_id.and_then(|p| order.index.get(p)) {
        Some(&i) => (
            order.documents[..i].iter().rev().find(shown).map(|id| nav(id)),
            order.documents[i + 1..].iter().find(shown).map(|id| nav(id)),
        ),
        None => (None, None),
    };
    let mut breadcrumbs = Vec::new();
    if let Some(page) = page_id {
        let mut current = snapshot.tree.pages.get(page).and_then(|p| p.parent.clone());
        while let Some(id) = current {
            let Some(p) = snapshot.tree.pages.get(&id) else { break };
            breadcrumbs.push(NavLink {
                title: p.meta.title.clone(),
                href: links.page_url(&id),
                current: false,
            });
            current = p.parent.clone();
            if breadcrumbs.len() > 64 {
                break;
            }
        }
        breadcrumbs.reverse();
    }
    let outline = document
        .headings()
        .map(|h| (h.level.depth() + 1, h.id.clone(), plain_text(&h.content)))
        .collect();
    let meta = page_id.and_then(|p| snapshot.tree.pages.get(p)).map(|p| &p.meta);
    // Header and footer links to a space of the site or a page of this
    // space lead to their published URLs.
    let targets = |to: &serde_json::Value| match to["kind"].as_str()? {
        "url" => to["url"].as_str().map(str::to_owned),
        "space" => {
            let id = to["space"].as_str()?;
            let (section, target) = visit.site.spaces().into_iter().find(|(_, s)| s.space.id == id)?;
            Some(format!("{}/", space_url(&visit.base, section, target)))
        }
        "page" => {
            let id = to["page"].as_str()?;
            let same_space = to["space"].as_str().is_none_or(|s| s == space.space.id);
            (same_space && snapshot.tree.pages.contains_key(id) && !withheld.page(snapshot, id))
                .then(|| links.page_url(id))
        }
        _ => None,
    };
    let (site_title, mut look) = look(&visit.site.site, Some(space), &visit.base, &targets, &|c| {
        visit.shows(c)
    });
    look.mcp_url = Some(format!("{}{}/~gitbook/mcp", visit.origin, visit.base));
    Shell {
        wide: false,
        tree_hidden: false,
        look,
        site_title,
        page_title: meta.map(|m| m.title.clone()).unwrap_or_default(),
        description: meta.and_then(|m| m.description.clone()),
        indexable: visit.indexable(),
        canonical: page_id.map(|p| format!("{}{}", visit.origin, links.page_url(p))),
        home: format!("{}/", visit.base),
        sections,
        variants,
        tree,
        breadcrumbs,
        outline,
        previous,
        next,
        query: query.to_owned(),
        updated: None,
        search_url: Some(format!("{space_base}/")),
    }
}

/// The frame of a page of the site that is no page of the space (search
/// results, answers): the space's navigation around it, its own title left
/// to the caller, never indexed.
#[allow(clippy::too_many_arguments)]
pub(super) fn tool_shell(
    order: &ReadingOrder,
    withheld: &Withheld,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    space_base: &str,
    query: &str,
) -> Shell {
    let shell = shell(
        order,
        withheld,
        visit,
        section,
        space,
        snapshot,
        space_base,
        None,
        &Document::default(),
        query,
    );
    Shell {
        wide: false,
        tree_hidden: false,
        indexable: false,
        canonical: None,
        ..shell
    }
}
