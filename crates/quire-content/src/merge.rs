//! Three-way merges of page trees, keyed by stable page ids.
//!
//! For every page, each property (title, slug, description, emoji, hidden,
//! kind, parent) merges on its own: a side that left it as in the base
//! yields to the side that changed it; both changing it the same way agree;
//! both changing it differently is a conflict. Documents changed on both
//! sides are merged line by line afterwards ([`merge_text`]). Deleting a page
//! on one side wins over an unchanged page on the other; deleting it while
//! the other side edited it is a conflict, and so is adding a page under a
//! page the other side deleted. Sibling order follows the side that
//! reordered, with the other side's new pages placed after the same
//! neighbour they follow there.

use std::collections::{BTreeMap, BTreeSet};

use crate::tree::{FlatPage, FlatTree, PageMeta};

/// Why a page could not be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub page: String,
    pub title: String,
    pub reason: String,
}

/// A document changed on both sides: the caller merges the texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMerge {
    pub page: String,
    pub base: Option<String>,
    pub ours: String,
    pub theirs: String,
}

#[derive(Debug, Clone)]
pub struct Merged {
    /// The merged tree; pages listed in `text_merges` still carry our
    /// document until the caller sets the merged one.
    pub tree: FlatTree,
    pub text_merges: Vec<TextMerge>,
}

/// Merges `ours` and `theirs`, two descendants of `base`, looking at every page.
pub fn merge(base: &FlatTree, ours: &FlatTree, theirs: &FlatTree) -> Result<Merged, Vec<Conflict>> {
    let all: BTreeSet<String> = base
        .pages
        .keys()
        .chain(ours.pages.keys())
        .chain(theirs.pages.keys())
        .cloned()
        .collect();
    merge_pages(base, ours, theirs, &all)
}

/// Merges `ours` and `theirs`, two descendants of `base`, when only the
/// pages in `candidates` can differ between the three (every other page is
/// the same, at the same place, in all of them). The result starts from
/// `ours` and changes only the candidates and the order of their siblings,
/// so its cost follows the size of the change, not of the tree.
pub fn merge_pages(
    base: &FlatTree,
    ours: &FlatTree,
    theirs: &FlatTree,
    candidates: &BTreeSet<String>,
) -> Result<Merged, Vec<Conflict>> {
    let mut conflicts = Vec::new();
    let mut text_merges = Vec::new();
    let mut tree = ours.clone();
    // Parents whose children may have changed: the top level, the old and
    // new parents of every candidate, and every candidate itself.
    let mut parents: BTreeSet<Option<String>> = BTreeSet::from([None]);

    for id in candidates {
        let (b, o, t) = (base.pages.get(id), ours.pages.get(id), theirs.pages.get(id));
        let title = || o.or(t).or(b).map(|p| p.meta.title.clone()).unwrap_or_default();
        let merged = match (b, o, t) {
            (_, None, None) => None,
            (None, Some(page), None) | (None, None, Some(page)) => Some(page.clone()),
            (Some(b), None, Some(other)) | (Some(b), Some(other), None) => {
                if other.meta != b.meta || other.parent != b.parent {
                    conflicts.push(Conflict {
                        page: id.clone(),
                        title: title(),
                        reason: "deleted on one side and edited on the other".into(),
                    });
                }
                None
            }
            (b, Some(o), Some(t)) => match merge_page(b, o, t) {
                Ok((page, text)) => {
                    if let Some((base_doc, ours_doc, theirs_doc)) = text {
                        text_merges.push(TextMerge {
                            page: id.clone(),
                            base: base_doc,
                            ours: ours_doc,
                            theirs: theirs_doc,
                        });
                    }
                    Some(page)
                }
                Err(field) => {
                    conflicts.push(Conflict {
                        page: id.clone(),
                        title: title(),
                        reason: format!("{field} changed differently on both sides"),
                    });
                    None
                }
            },
        };
        for version in [b, o, t, merged.as_ref()].into_iter().flatten() {
            parents.insert(version.parent.clone());
        }
        parents.insert(Some(id.clone()));
        match merged {
            Some(page) => {
                tree.pages.insert(id.clone(), page);
            }
            None => {
                tree.pages.remove(id);
            }
        }
    }

    for id in candidates {
        if let Some(page) = tree.pages.get(id)
            && let Some(parent) = &page.parent
            && !tree.pages.contains_key(parent)
        {
            conflicts.push(Conflict {
                page: id.clone(),
                title: page.meta.title.clone(),
                reason: "placed under a page that the other side deleted".into(),
            });
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }

    // Candidates grouped under their merged parent, so ordering each parent
    // looks only at its own children.
    let mut placed: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
    for id in candidates {
        if let Some(page) = tree.pages.get(id) {
            placed.entry(page.parent.clone()).or_default().push(id.clone());
        }
    }
    for parent in parents {
        if parent.as_ref().is_some_and(|p| !tree.pages.contains_key(p)) {
            tree.children.remove(&parent);
            continue;
        }
        let added = placed.get(&parent).map(Vec::as_slice).unwrap_or(&[]);
        let order = order_children(base, ours, theirs, &tree, added, parent.as_deref());
        if order.is_empty() {
            tree.children.remove(&parent);
        } else {
            tree.children.insert(parent, order);
        }
    }

    let cyclic: Vec<Conflict> = candidates
        .iter()
        .filter_map(|id| tree.pages.get(id).map(|page| (id, page)))
        .filter(|(id, page)| {
            page.parent
                .as_deref()
                .is_some_and(|parent| tree.is_ancestor(id, parent))
        })
        .map(|(id, page)| Conflict {
            page: id.clone(),
            title: page.meta.title.clone(),
            reason: "the two sides moved pages into each other".into(),
        })
        .collect();
    if !cyclic.is_empty() {
        return Err(cyclic);
    }
    Ok(Merged { tree, text_merges })
}

/// The merged value of one property, or `Err` when both sides changed it
/// differently.
fn pick<T: PartialEq + Clone>(base: Option<&T>, ours: &T, theirs: &T) -> Result<T, ()> {
    if ours == theirs || base == Some(theirs) {
        Ok(ours.clone())
    } else if base == Some(ours) {
        Ok(theirs.clone())
    } else {
        Err(())
    }
}

type DocumentMerge = (Option<String>, String, String);

fn merge_page(
    base: Option<&FlatPage>,
    ours: &FlatPage,
    theirs: &FlatPage,
) -> Result<(FlatPage, Option<DocumentMerge>), &'static str> {
    let bm = base.map(|b| &b.meta);
    let (o, t) = (&ours.meta, &theirs.meta);
    let field = |name: &'static str| move |_| name;
    let mut text = None;
    let document = match pick(bm.map(|b| &b.document), &o.document, &t.document) {
        Ok(doc) => doc,
        Err(()) => match (&o.document, &t.document) {
            (Some(od), Some(td)) => {
                text = Some((bm.and_then(|b| b.document.clone()), od.clone(), td.clone()));
                Some(od.clone())
            }
            _ => return Err("the document"),
        },
    };
    let meta = PageMeta {
        title: pick(bm.map(|b| &b.title), &o.title, &t.title).map_err(field("the title"))?,
        slug: pick(bm.map(|b| &b.slug), &o.slug, &t.slug).map_err(field("the slug"))?,
        description: pick(bm.map(|b| &b.description), &o.description, &t.description)
            .map_err(field("the description"))?,
        emoji: pick(bm.map(|b| &b.emoji), &o.emoji, &t.emoji).map_err(field("the emoji"))?,
        hidden: pick(bm.map(|b| &b.hidden), &o.hidden, &t.hidden).map_err(field("hidden"))?,
        condition: pick(bm.map(|b| &b.condition), &o.condition, &t.condition).map_err(field("the condition"))?,
        git: pick(bm.map(|b| &b.git), &o.git, &t.git).map_err(field("the Git path"))?,
        link_title: pick(bm.map(|b| &b.link_title), &o.link_title, &t.link_title).map_err(field("the link title"))?,
        kind: pick(bm.map(|b| &b.kind), &o.kind, &t.kind).map_err(field("the page type"))?,
        document,
    };
    let parent = pick(base.map(|b| &b.parent), &ours.parent, &theirs.parent).map_err(field("the parent page"))?;
    Ok((FlatPage { meta, parent }, text))
}

/// Orders the children of `parent` in the merged `tree`: the side that
/// reordered them leads, and the other side's additions follow the
/// neighbour they follow there.
fn order_children(
    base: &FlatTree,
    ours: &FlatTree,
    theirs: &FlatTree,
    tree: &FlatTree,
    placed: &[String],
    parent: Option<&str>,
) -> Vec<String> {
    let is_member = |id: &String| tree.pages.get(id).is_some_and(|p| p.parent.as_deref() == parent);
    let mut members: BTreeSet<String> = BTreeSet::new();
    for list in [
        base.children_of(parent),
        ours.children_of(parent),
        theirs.children_of(parent),
    ] {
        members.extend(list.iter().filter(|id| is_member(id)).cloned());
    }
    members.extend(placed.iter().cloned());
    let in_members = |list: &[String]| {
        list.iter()
            .filter(|id| members.contains(*id))
            .cloned()
            .collect::<Vec<_>>()
    };
    let (b, o, t) = (
        in_members(base.children_of(parent)),
        in_members(ours.children_of(parent)),
        in_members(theirs.children_of(parent)),
    );
    let reordered = |side: &[String]| {
        let common: Vec<&String> = side.iter().filter(|id| b.contains(id)).collect();
        let base_common: Vec<&String> = b.iter().filter(|id| side.contains(id)).collect();
        common != base_common
    };
    let (primary, secondary) = if reordered(&t) && !reordered(&o) {
        (t, o)
    } else {
        (o, t)
    };
    let mut order = primary;
    for (i, id) in secondary.iter().enumerate() {
        if order.contains(id) {
            continue;
        }
        let after = secondary[..i]
            .iter()
            .rev()
            .find_map(|prev| order.iter().position(|x| x == prev));
        order.insert(after.map_or(0, |p| p + 1), id.clone());
    }
    for id in &members {
        if !order.contains(id) {
            order.push(id.clone());
        }
    }
    order
}

/// Merges a document's text line by line; `None` when both sides changed
/// the same lines.
pub fn merge_text(base: &str, ours: &str, theirs: &str) -> Option<String> {
    diffy::merge(base, ours, theirs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::PageKind;

    fn meta(title: &str, doc: &str) -> PageMeta {
        PageMeta {
            title: title.into(),
            slug: title.to_lowercase(),
            description: None,
            emoji: None,
            hidden: false,
            condition: None,
            git: None,
            link_title: None,
            kind: PageKind::Document,
            document: Some(doc.into()),
        }
    }

    fn tree(pages: &[(&str, Option<&str>, &str)]) -> FlatTree {
        let mut t = FlatTree::default();
        for (id, parent, title) in pages {
            t.push(id, *parent, meta(title, &format!("doc-{title}")));
        }
        t
    }

    #[test]
    fn disjoint_edits_combine() {
        let base = tree(&[("a", None, "A"), ("b", None, "B")]);
        let mut ours = base.clone();
        ours.pages.get_mut("a").unwrap().meta.title = "A2".into();
        let mut theirs = base.clone();
        theirs.push("c", Some("b"), meta("C", "doc-c"));
        theirs.pages.get_mut("b").unwrap().meta.document = Some("doc-b2".into());
        let merged = merge(&base, &ours, &theirs).unwrap();
        assert_eq!(merged.tree.pages["a"].meta.title, "A2");
        assert_eq!(merged.tree.pages["b"].meta.document.as_deref(), Some("doc-b2"));
        assert_eq!(merged.tree.children_of(Some("b")), ["c".to_owned()]);
        assert!(merged.text_merges.is_empty());
    }

    #[test]
    fn same_title_changed_differently_conflicts() {
        let base = tree(&[("a", None, "A")]);
        let mut ours = base.clone();
        ours.pages.get_mut("a").unwrap().meta.title = "Ours".into();
        let mut theirs = base.clone();
        theirs.pages.get_mut("a").unwrap().meta.title = "Theirs".into();
        let conflicts = merge(&base, &ours, &theirs).unwrap_err();
        assert_eq!(conflicts[0].page, "a");
    }

    #[test]
    fn documents_changed_on_both_sides_are_left_to_the_text_merge() {
        let base = tree(&[("a", None, "A")]);
        let mut ours = base.clone();
        ours.pages.get_mut("a").unwrap().meta.document = Some("o".into());
        let mut theirs = base.clone();
        theirs.pages.get_mut("a").unwrap().meta.document = Some("t".into());
        let merged = merge(&base, &ours, &theirs).unwrap();
        assert_eq!(
            merged.text_merges,
            vec![TextMerge {
                page: "a".into(),
                base: Some("doc-A".into()),
                ours: "o".into(),
                theirs: "t".into()
            }]
        );
    }

    #[test]
    fn delete_against_edit_conflicts_delete_against_nothing_wins() {
        let base = tree(&[("a", None, "A"), ("b", None, "B")]);
        let mut ours = base.clone();
        ours.remove("a");
        ours.remove("b");
        let mut theirs = base.clone();
        theirs.pages.get_mut("a").unwrap().meta.title = "Edited".into();
        let conflicts = merge(&base, &ours, &theirs).unwrap_err();
        assert_eq!(conflicts.iter().map(|c| c.page.as_str()).collect::<Vec<_>>(), vec!["a"]);
        let merged = merge(&base, &ours, &base).unwrap();
        assert!(merged.tree.pages.is_empty());
    }

    #[test]
    fn insert_under_a_page_deleted_on_the_other_side_conflicts() {
        let base = tree(&[("a", None, "A")]);
        let mut ours = base.clone();
        ours.remove("a");
        let mut theirs = base.clone();
        theirs.push("child", Some("a"), meta("Child", "doc-child"));
        let conflicts = merge(&base, &ours, &theirs).unwrap_err();
        assert_eq!(conflicts[0].page, "child");
    }

    #[test]
    fn move_and_edit_combine() {
        let base = tree(&[("a", None, "A"), ("b", None, "B")]);
        let mut ours = base.clone();
        ours.place("a", Some("b"), 0);
        let mut theirs = base.clone();
        theirs.pages.get_mut("a").unwrap().meta.title = "A2".into();
        let merged = merge(&base, &ours, &theirs).unwrap();
        assert_eq!(merged.tree.pages["a"].parent.as_deref(), Some("b"));
        assert_eq!(merged.tree.pages["a"].meta.title, "A2");
        assert_eq!(merged.tree.children_of(None), ["b".to_owned()]);
    }

    #[test]
    fn moving_pages_into_each_other_conflicts() {
        let base = tree(&[("a", None, "A"), ("b", None, "B")]);
        let mut ours = base.clone();
        ours.place("a", Some("b"), 0);
        let mut theirs = base.clone();
        theirs.place("b", Some("a"), 0);
        assert!(merge(&base, &ours, &theirs).is_err());
    }

    #[test]
    fn additions_keep_their_neighbours() {
        let base = tree(&[("a", None, "A"), ("c", None, "C")]);
        let mut ours = base.clone();
        ours.place("c", None, 0); // reorder: c, a
        let mut theirs = base.clone();
        theirs.push("b", None, meta("B", "doc-b"));
        theirs.place("b", None, 1); // a, b, c
        let merged = merge(&base, &ours, &theirs).unwrap();
        assert_eq!(
            merged.tree.children_of(None),
            ["c".to_owned(), "a".to_owned(), "b".to_owned()]
        );
    }

    #[test]
    fn text_merge_is_line_based() {
        let base = "one\ntwo\nthree\n";
        assert_eq!(
            merge_text(base, "ONE\ntwo\nthree\n", "one\ntwo\nTHREE\n").as_deref(),
            Some("ONE\ntwo\nTHREE\n")
        );
        assert_eq!(merge_text(base, "uno\ntwo\nthree\n", "eins\ntwo\nthree\n"), None);
    }

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Applies a random edit to one of the pages not in `avoid`; returns the
    /// pages it touched.
    fn random_edit(
        tree: &mut FlatTree,
        rng: &mut Rng,
        avoid: &BTreeSet<String>,
        label: &str,
        n: usize,
    ) -> BTreeSet<String> {
        let ids: Vec<String> = tree.pages.keys().filter(|id| !avoid.contains(*id)).cloned().collect();
        let mut touched = BTreeSet::new();
        if ids.is_empty() {
            return touched;
        }
        let id = ids[rng.below(ids.len())].clone();
        match rng.below(5) {
            0 => {
                tree.pages.get_mut(&id).unwrap().meta.title = format!("{label}-title-{n}");
                touched.insert(id);
            }
            1 => {
                tree.pages.get_mut(&id).unwrap().meta.document = Some(format!("{label}-doc-{n}"));
                touched.insert(id);
            }
            2 => {
                let new_id = format!("{label}-new-{n}");
                tree.push(&new_id, Some(&id), meta(&new_id, &format!("{label}-newdoc-{n}")));
                touched.insert(new_id);
                touched.insert(id);
            }
            3 => {
                touched.extend(tree.subtree(&id));
                if let Some(parent) = tree.pages[&id].parent.clone() {
                    touched.insert(parent);
                }
                tree.remove(&id);
            }
            _ => {
                let targets: Vec<String> = tree
                    .pages
                    .keys()
                    .filter(|t| !tree.is_ancestor(&id, t) && !avoid.contains(*t))
                    .cloned()
                    .collect();
                if let Some(target) = targets.get(rng.below(targets.len().max(1))) {
                    touched.insert(target.clone());
                    tree.place(&id, Some(target), 0);
                    touched.insert(id);
                }
            }
        }
        touched
    }

    /// For random edit sequences on both sides, touching different pages, the
    /// merge succeeds and holds every change of both sides.
    #[test]
    fn merges_of_random_disjoint_edits_keep_every_change() {
        for seed in 1..=300u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut base = FlatTree::default();
            for i in 0..12 {
                let parent = if i > 0 && rng.below(2) == 0 {
                    Some(format!("p{}", rng.below(i)))
                } else {
                    None
                };
                base.push(
                    &format!("p{i}"),
                    parent.as_deref(),
                    meta(&format!("P{i}"), &format!("doc{i}")),
                );
            }
            let (mut ours, mut theirs) = (base.clone(), base.clone());
            let mut ours_touched = BTreeSet::new();
            let mut theirs_touched = BTreeSet::new();
            for n in 0..3 {
                // Each side avoids pages the other touched (and their subtrees
                // and ancestors), so no change can conflict.
                let avoid_for_ours = closure(&base, &theirs_touched);
                ours_touched.extend(random_edit(&mut ours, &mut rng, &avoid_for_ours, "o", n));
                let avoid_for_theirs = closure(&base, &ours_touched);
                theirs_touched.extend(random_edit(&mut theirs, &mut rng, &avoid_for_theirs, "t", n));
            }
            let merged =
                merge(&base, &ours, &theirs).unwrap_or_else(|c| panic!("seed {seed}: unexpected conflicts {c:?}"));
            for (side, other) in [(&ours, &theirs), (&theirs, &ours)] {
                for id in base.pages.keys().chain(side.pages.keys()) {
                    let (b, s) = (base.pages.get(id), side.pages.get(id));
                    if b == s || other.pages.get(id) != b {
                        continue;
                    }
                    match s {
                        None => assert!(
                            !merged.tree.pages.contains_key(id),
                            "seed {seed}: deletion of {id} lost"
                        ),
                        Some(page) => assert_eq!(
                            merged.tree.pages.get(id),
                            Some(page),
                            "seed {seed}: change to {id} lost"
                        ),
                    }
                }
            }
        }
    }

    /// The touched pages plus everything above and below them in `base`.
    fn closure(base: &FlatTree, touched: &BTreeSet<String>) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for id in touched {
            out.insert(id.clone());
            if base.pages.contains_key(id) {
                out.extend(base.subtree(id));
                let mut up = base.pages[id].parent.clone();
                while let Some(p) = up {
                    out.insert(p.clone());
                    up = base.pages.get(&p).and_then(|x| x.parent.clone());
                }
            }
        }
        out
    }
}
