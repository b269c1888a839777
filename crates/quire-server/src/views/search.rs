//! JSON shapes of search results (`SearchPageResult`, `SearchSectionResult`,
//! `SearchSpaceResult`).

use quire_app::search::{PageResult, SectionResult, SpaceResult};
use serde::Serialize;

use super::content::AppUrl;
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct Ancestor {
    pub title: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchSection {
    pub id: String,
    pub title: String,
    pub path: String,
    pub score: f64,
    pub result_type: &'static str,
    pub body: String,
    pub urls: AppUrl,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchPage {
    pub id: String,
    pub title: String,
    pub description: String,
    pub path: String,
    pub score: f64,
    pub rank: usize,
    pub result_type: &'static str,
    pub sections: Vec<SearchSection>,
    pub ancestors: Vec<Ancestor>,
    pub urls: AppUrl,
}

#[derive(Debug, Serialize)]
pub struct SearchSpace {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    pub title: String,
    pub score: f64,
    pub pages: Vec<SearchPage>,
}

fn section(state: &AppState, page: &PageResult, section: SectionResult) -> SearchSection {
    let (id, path) = match &section.anchor {
        Some(anchor) => (anchor.clone(), format!("{}#{anchor}", page.path)),
        None => (page.page_id.clone(), page.path.clone()),
    };
    SearchSection {
        urls: AppUrl {
            app: state.app_url(&format!("/s/{}/{path}", page.space_id)),
        },
        id,
        title: section.title,
        path,
        score: section.score,
        result_type: if section.matched { "section" } else { "page" },
        body: section.body,
    }
}

pub fn page(state: &AppState, mut result: PageResult) -> SearchPage {
    let sections = std::mem::take(&mut result.sections);
    SearchPage {
        sections: sections.into_iter().map(|s| section(state, &result, s)).collect(),
        urls: AppUrl {
            app: state.app_url(&format!("/s/{}/{}", result.space_id, result.path)),
        },
        result_type: if result.on_title { "page" } else { "section" },
        ancestors: result.ancestors.into_iter().map(|title| Ancestor { title }).collect(),
        id: result.page_id,
        title: result.title,
        description: result.description,
        path: result.path,
        score: result.score,
        rank: result.rank,
    }
}

pub fn space(state: &AppState, result: SpaceResult) -> SearchSpace {
    SearchSpace {
        kind: "space",
        id: result.space.id,
        title: result.space.title,
        score: result.score,
        pages: result.pages.into_iter().map(|p| page(state, p)).collect(),
    }
}
