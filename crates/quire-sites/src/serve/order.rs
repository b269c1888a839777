//! A revision's reading order (previous/next, the first page) and which
//! pages a visitor may not see (`Withheld`), computed once per revision.

use super::*;

/// The document pages of a revision a reader goes through with previous
/// and next (not hidden, nor under a hidden page), in tree order; computed
/// once per revision and kept by the router.
pub(super) struct ReadingOrder {
    pub(super) documents: Vec<String>,
    pub(super) index: std::collections::HashMap<String, usize>,
    /// Pages with an adaptive-content condition, and the condition.
    pub(super) conditioned: Vec<(String, String)>,
}

impl ReadingOrder {
    pub(super) fn of(snapshot: &Snapshot) -> ReadingOrder {
        let documents: Vec<String> = visible_pages(snapshot)
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| matches!(snapshot.tree.pages[id].meta.kind, PageKind::Document))
            .collect();
        let index = documents.iter().enumerate().map(|(i, id)| (id.clone(), i)).collect();
        let conditioned = snapshot
            .tree
            .pages
            .iter()
            .filter_map(|(id, page)| Some((id.clone(), page.meta.condition.clone()?)))
            .collect();
        ReadingOrder {
            documents,
            index,
            conditioned,
        }
    }

    /// The pages this visitor may not see: those whose condition does not
    /// hold for them (their subpages go with them, see [`Withheld::page`]).
    pub(super) fn withheld(&self, site: &PublishedSite) -> Withheld {
        Withheld(
            self.conditioned
                .iter()
                .filter(|(_, condition)| !site.shows(Some(condition)))
                .map(|(id, _)| id.clone())
                .collect(),
        )
    }
}

/// Pages a visitor may not see, by adaptive-content condition; everything
/// about such a page answers as if it did not exist (404, left out of the
/// navigation, previous/next, search and the index files; links to it are
/// broken).
#[derive(Default)]
pub(super) struct Withheld(pub(super) std::collections::HashSet<String>);

impl Withheld {
    /// Whether `id` or a page above it is withheld.
    pub(super) fn page(&self, snapshot: &Snapshot, id: &str) -> bool {
        if self.0.is_empty() {
            return false;
        }
        let mut current = Some(id);
        for _ in 0..=MAX_DEPTH {
            let Some(at) = current else { return false };
            if self.0.contains(at) {
                return true;
            }
            current = snapshot.tree.pages.get(at).and_then(|p| p.parent.as_deref());
        }
        false
    }

    /// The reading order without withheld pages.
    pub(super) fn documents<'o>(
        &'o self,
        snapshot: &'o Snapshot,
        order: &'o ReadingOrder,
    ) -> impl Iterator<Item = &'o String> {
        order.documents.iter().filter(move |id| !self.page(snapshot, id))
    }
}

/// How far up a page's ancestors are followed (page trees are far shallower).
pub(super) const MAX_DEPTH: usize = 256;

/// Reading orders a node keeps at most.
pub(super) const ORDER_CACHE: u64 = 256;

pub(super) fn reading_order(state: &SiteState, snapshot: &Snapshot) -> Arc<ReadingOrder> {
    let key = &snapshot.revision.id;
    if let Some(order) = state.orders.get(key) {
        return order;
    }
    let order = Arc::new(ReadingOrder::of(snapshot));
    state.orders.insert(key.clone(), order.clone());
    order
}

/// Pages a reader walks through: document pages not hidden (nor under a
/// hidden page), in tree order.
pub(super) fn visible_pages(snapshot: &Snapshot) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut hidden_below: Option<usize> = None;
    for (id, depth) in snapshot.tree.walk() {
        if hidden_below.is_some_and(|d| depth > d) {
            continue;
        }
        hidden_below = None;
        if snapshot.tree.pages[&id].meta.hidden {
            hidden_below = Some(depth);
            continue;
        }
        out.push((id, depth));
    }
    out
}
