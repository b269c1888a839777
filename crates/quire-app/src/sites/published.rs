//! A published site as its visitors reach it: found by basename or custom
//! hostname, admitted by its audience, with its structure and the current
//! content of every space it shows.
//!
//! Audiences: `public` and `unlisted` admit everyone; `share-link` admits a
//! request carrying the key of an active share link (checked against the
//! table on every request, so a revoked key stops at once); `visitor-auth`
//! admits nobody yet (signed visitor tokens are not implemented). An
//! unpublished site, a refused visitor and a missing site all look the
//! same: `None`.

use std::sync::Arc;

use quire_engine::Snapshot;
use quire_store::sites::{self, SectionRow, SiteRow, SiteSpaceRow};
use quire_store::spaces::{self, SpaceRow};

use crate::App;
use crate::error::AppResult;

/// How a request names a site.
#[derive(Debug, Clone)]
pub enum Address<'a> {
    /// `{public URL}/{basename}/...`
    Basename(&'a str),
    /// `/` of a custom hostname.
    Hostname(&'a str),
}

/// A site space of a published site with its space.
#[derive(Debug, Clone)]
pub struct PublishedSpace {
    pub site_space: SiteSpaceRow,
    pub space: SpaceRow,
    pub default: bool,
}

#[derive(Debug, Clone)]
pub struct PublishedSection {
    pub section: SectionRow,
    pub default: bool,
    pub spaces: Vec<PublishedSpace>,
}

/// A site a visitor was admitted to.
#[derive(Debug, Clone)]
pub struct PublishedSite {
    pub site: SiteRow,
    /// Sections in site order (groups expanded); empty when the site shows
    /// its spaces at the root.
    pub sections: Vec<PublishedSection>,
    /// Root-level spaces (sites without sections).
    pub root: Vec<PublishedSpace>,
}

impl PublishedSite {
    /// Only public sites may be indexed by search engines.
    pub fn indexable(&self) -> bool {
        self.site.visibility == "public"
    }

    /// Every site space, in order, with its section.
    pub fn spaces(&self) -> Vec<(Option<&PublishedSection>, &PublishedSpace)> {
        let mut out: Vec<(Option<&PublishedSection>, &PublishedSpace)> = self.root.iter().map(|s| (None, s)).collect();
        for section in &self.sections {
            out.extend(section.spaces.iter().map(|s| (Some(section), s)));
        }
        out
    }
}

/// Finds the site and admits the visitor, or `None`.
pub async fn open(app: &App, address: Address<'_>, share_key: Option<&str>) -> AppResult<Option<PublishedSite>> {
    let mut conn = app.db.read().await?;
    let site = match address {
        Address::Basename(name) => sites::site_by_basename(&mut conn, name).await?,
        Address::Hostname(host) => sites::site_by_hostname(&mut conn, host).await?,
    };
    let Some(site) = site.filter(|s| s.published) else {
        return Ok(None);
    };
    let admitted = match site.visibility.as_str() {
        "public" | "unlisted" => true,
        "share-link" => match share_key {
            Some(key) => sites::active_share_link(&mut conn, &site.id, key).await?.is_some(),
            None => false,
        },
        _ => false,
    };
    if !admitted {
        return Ok(None);
    }
    let structure = sites::structure(&mut conn, &site.id).await?;
    let ids: Vec<String> = structure.site_spaces.iter().map(|s| s.space_id.clone()).collect();
    let rows = spaces::get_many(&mut conn, &ids).await?;
    let published_space = |row: &SiteSpaceRow, default: Option<&String>| {
        rows.iter()
            .find(|s| s.id == row.space_id && s.deleted_at.is_none())
            .map(|space| PublishedSpace {
                default: default == Some(&row.id),
                site_space: row.clone(),
                space: space.clone(),
            })
    };
    let level = |section: Option<&str>, default: Option<&String>| -> Vec<PublishedSpace> {
        let mut spaces: Vec<PublishedSpace> = structure
            .site_spaces
            .iter()
            .filter(|s| s.section_id.as_deref() == section)
            .filter_map(|s| published_space(s, default))
            .collect();
        if !spaces.iter().any(|s| s.default)
            && let Some(first) = spaces.first_mut()
        {
            first.default = true;
        }
        spaces
    };
    let mut ordered: Vec<&SectionRow> = Vec::new();
    let mut top: Vec<(i64, Vec<&SectionRow>)> = structure
        .groups
        .iter()
        .map(|g| {
            (
                g.position,
                structure
                    .sections
                    .iter()
                    .filter(|s| s.group_id.as_deref() == Some(&g.id))
                    .collect(),
            )
        })
        .collect();
    top.extend(
        structure
            .sections
            .iter()
            .filter(|s| s.group_id.is_none())
            .map(|s| (s.position, vec![s])),
    );
    top.sort_by_key(|(position, _)| *position);
    for (_, sections) in top {
        ordered.extend(sections);
    }
    let mut sections: Vec<PublishedSection> = ordered
        .into_iter()
        .map(|s| PublishedSection {
            default: site.default_section_id.as_ref() == Some(&s.id),
            spaces: level(Some(&s.id), s.default_site_space_id.as_ref()),
            section: s.clone(),
        })
        .filter(|s| !s.spaces.is_empty())
        .collect();
    if !sections.iter().any(|s| s.default)
        && let Some(first) = sections.first_mut()
    {
        first.default = true;
    }
    let root = level(None, site.default_site_space_id.as_ref());
    Ok(Some(PublishedSite { site, sections, root }))
}

/// The current content of a published space.
pub async fn snapshot(app: &App, space: &SpaceRow) -> AppResult<Arc<Snapshot>> {
    Ok(app.engine.revisions.snapshot(&space.id, &space.revision_id).await?)
}

/// A page's markdown (`None` for pages without a body).
pub async fn markdown(app: &App, snapshot: &Snapshot, page_id: &str) -> AppResult<Option<Arc<str>>> {
    crate::content::page_markdown(app, snapshot, page_id).await
}

/// A file's bytes.
pub async fn file_bytes(app: &App, file: &quire_content::objects::FileObject) -> AppResult<Vec<u8>> {
    Ok(app.engine.files.bytes(file).await?)
}
