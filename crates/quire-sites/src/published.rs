//! A published site as its visitors reach it: found by basename or custom
//! hostname, admitted by its audience, with its structure and the current
//! content of every space it shows.
//!
//! Audiences: `public` and `unlisted` admit everyone; `share-link` admits a
//! request carrying the key of an active share link (checked against the
//! table on every request, so a revoked key stops at once); `visitor-auth`
//! admits a visitor whose token verifies with the site's key
//! (`visitor::verify`) and asks the others to sign in. An unpublished site,
//! a refused share key and a missing site all look the same: `Absent`.
//!
//! Adaptive content: sections and site spaces whose condition does not
//! hold for the visitor's claims (signed ones from the token, unsigned ones
//! as the visitor set them) are left out, as if they did not exist; the
//! site answers [`PublishedSite::shows`] for pages' conditions.

use std::sync::Arc;

use quire_core::{SiteVisibility, expression};
use quire_engine::Snapshot;
use quire_store::sites::{self, SectionRow, SiteRow, SiteSpaceRow};
use quire_store::spaces::{self, SpaceRow};
use serde_json::{Map, Value, json};

use quire_app::App;
use quire_app::error::AppResult;

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
    /// What the site space overrides of the site's customization.
    pub overrides: Option<sites::SiteSpaceCustomizationRow>,
}

#[derive(Debug, Clone)]
pub struct PublishedSection {
    pub section: SectionRow,
    /// The title of the section group it is in, if any.
    pub group: Option<String>,
    pub default: bool,
    pub spaces: Vec<PublishedSpace>,
}

/// Who is asking.
#[derive(Debug, Clone, Default)]
pub struct Visitor<'a> {
    pub share_key: Option<&'a str>,
    /// A visitor token (HS256 JWT), from the URL or the cookie.
    pub token: Option<&'a str>,
    /// Claims the visitor set themselves (`?visitor.<name>=`).
    pub unsigned: Map<String, Value>,
}

/// The outcome of a visit.
#[derive(Debug, Clone)]
pub enum Admission {
    Admitted(Box<PublishedSite>),
    /// A `visitor-auth` site without a valid token: sign in first.
    SignIn {
        fallback_url: Option<String>,
        /// The site's custom hostname, if it has one.
        hostname: Option<String>,
    },
    /// No published site there for this visitor.
    Absent,
}

impl Admission {
    /// The custom hostname of the site found, if it has one (and the
    /// visitor is let in or asked to sign in).
    pub fn hostname(&self) -> Option<&str> {
        match self {
            Admission::Admitted(site) => site.site.hostname.as_deref(),
            Admission::SignIn { hostname, .. } => hostname.as_deref(),
            Admission::Absent => None,
        }
    }
}

/// A site a visitor was admitted to.
#[derive(Debug, Clone)]
pub struct PublishedSite {
    pub site: SiteRow,
    /// When the visitor's valid token expires (Unix seconds), if they
    /// presented one.
    pub token_expires: Option<i64>,
    /// Sections in site order (groups expanded); empty when the site shows
    /// its spaces at the root.
    pub sections: Vec<PublishedSection>,
    /// Root-level spaces (sites without sections).
    pub root: Vec<PublishedSpace>,
    /// What conditions are evaluated against: `{"visitor": {"claims": ...}}`.
    pub context: Value,
}

impl PublishedSite {
    /// Only public sites may be indexed by search engines.
    pub fn indexable(&self) -> bool {
        self.site.visibility == SiteVisibility::Public
    }

    /// Whether content with this condition (a page's) is shown to the
    /// visitor: no condition, or one that holds for their claims.
    pub fn shows(&self, condition: Option<&str>) -> bool {
        holds(condition, &self.context)
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

/// Whether a condition holds for the visitor: no condition, or one that
/// parses and evaluates to true.
fn holds(condition: Option<&str>, context: &Value) -> bool {
    match condition {
        None => true,
        Some(text) => expression::parse(text).is_ok_and(|expr| expression::evaluate(&expr, context)),
    }
}

/// Finds the site and admits the visitor.
pub async fn open(app: &App, address: Address<'_>, visitor: &Visitor<'_>) -> AppResult<Admission> {
    let mut conn = app.db.read().await?;
    let site = match address {
        Address::Basename(name) => sites::site_by_basename(&mut conn, name).await?,
        Address::Hostname(host) => sites::site_by_hostname(&mut conn, host).await?,
    };
    let Some(site) = site.filter(|s| s.published) else {
        return Ok(Admission::Absent);
    };
    let verified = visitor
        .token
        .map(|t| super::visitor::verify(t, &site.visitor_key, app.now()));
    if let Some(Err(reason)) = &verified {
        tracing::info!(site = %site.id, %reason, "visitor token refused");
    }
    let signed = verified.and_then(Result::ok);
    let admitted = match site.visibility {
        SiteVisibility::Public | SiteVisibility::Unlisted => true,
        SiteVisibility::ShareLink => match visitor.share_key {
            Some(key) => sites::active_share_link(&mut conn, &site.id, key).await?.is_some(),
            None => false,
        },
        SiteVisibility::VisitorAuth => {
            if signed.is_none() {
                return Ok(Admission::SignIn {
                    fallback_url: site.visitor_fallback_url.clone(),
                    hostname: site.hostname.clone(),
                });
            }
            true
        }
    };
    if !admitted {
        return Ok(Admission::Absent);
    }
    let token_expires = signed.as_ref().and_then(|c| c.get("exp")).and_then(Value::as_i64);
    let mut claims = signed.unwrap_or_default();
    claims.insert("unsigned".into(), Value::Object(visitor.unsigned.clone()));
    let context = json!({ "visitor": { "claims": claims } });
    let structure = sites::structure(&mut conn, &site.id).await?;
    let ids: Vec<String> = structure.site_spaces.iter().map(|s| s.space_id.clone()).collect();
    let rows = spaces::get_many(&mut conn, &ids).await?;
    let overrides = sites::site_space_customizations(&mut conn, &site.id).await?;
    let published_space = |row: &SiteSpaceRow, default: Option<&String>| {
        rows.iter()
            .find(|s| s.id == row.space_id && s.deleted_at.is_none())
            .map(|space| PublishedSpace {
                default: default == Some(&row.id),
                site_space: row.clone(),
                space: space.clone(),
                overrides: overrides.iter().find(|o| o.site_space_id == row.id).cloned(),
            })
    };
    let level = |section: Option<&str>, default: Option<&String>| -> Vec<PublishedSpace> {
        let mut spaces: Vec<PublishedSpace> = structure
            .site_spaces
            .iter()
            .filter(|s| s.section_id.as_deref() == section)
            .filter(|s| holds(s.condition.as_deref(), &context))
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
        .filter(|s| holds(s.condition.as_deref(), &context))
        .map(|s| PublishedSection {
            group: s
                .group_id
                .as_ref()
                .and_then(|g| structure.groups.iter().find(|x| &x.id == g))
                .map(|g| g.title.clone()),
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
    Ok(Admission::Admitted(Box::new(PublishedSite {
        site,
        token_expires,
        sections,
        root,
        context,
    })))
}

/// Whether `key` is an active share key of the site (for sites that admit
/// everyone, a share link's URL keeps working).
pub async fn is_share_key(app: &App, site: &PublishedSite, key: &str) -> AppResult<bool> {
    let mut conn = app.db.read().await?;
    Ok(sites::active_share_link(&mut conn, &site.site.id, key).await?.is_some())
}

/// The site's most recent merges (its feed of changes), newest first.
pub async fn recent_changes(app: &App, site: &PublishedSite, limit: i64) -> AppResult<Vec<sites::MergeRow>> {
    let ids: Vec<String> = site.spaces().iter().map(|(_, s)| s.space.id.clone()).collect();
    let mut conn = app.db.read().await?;
    Ok(sites::recent_merges(&mut conn, &ids, limit).await?)
}

/// The page an old path of a Git-synced space redirects to (its
/// `.gitbook.yaml` redirects, as the last import resolved them).
pub async fn redirect(app: &App, space: &SpaceRow, path: &str) -> AppResult<Option<String>> {
    let mut conn = app.db.read().await?;
    let Some(text) = quire_store::git_syncs::redirects(&mut conn, &space.id).await? else {
        return Ok(None);
    };
    let redirects: Map<String, Value> = serde_json::from_str(&text).unwrap_or_default();
    let path = path.trim_matches('/');
    Ok(redirects.get(path).and_then(Value::as_str).map(str::to_owned))
}

/// Where a page of a Git-synced space is edited on its forge (GitHub or
/// GitLab): the repository's tree URL with `/edit/` for `/tree/`, else its
/// https address (credentials left out), then the project directory and
/// the page's file. `None` for other hosts and unsynced spaces.
pub async fn edit_url(app: &App, space: &SpaceRow, file: &str) -> AppResult<Option<(String, &'static str)>> {
    let mut conn = app.db.read().await?;
    let Some(sync) = quire_store::git_syncs::get(&mut conn, &space.id).await? else {
        return Ok(None);
    };
    Ok(edit_url_of(
        &sync.url,
        sync.tree_url.as_deref(),
        &sync.git_ref,
        &sync.project_directory,
        file,
    ))
}

/// [`edit_url`] without I/O.
fn edit_url_of(
    repository: &str,
    tree_url: Option<&str>,
    git_ref: &str,
    directory: &str,
    file: &str,
) -> Option<(String, &'static str)> {
    let branch = git_ref.trim_start_matches("refs/heads/");
    let base = match tree_url {
        Some(tree) if tree.starts_with("https://github.com/") && tree.contains("/tree/") => {
            tree.replacen("/tree/", "/edit/", 1)
        }
        Some(tree) if tree.starts_with("https://gitlab.com/") && tree.contains("/-/tree/") => {
            tree.replacen("/-/tree/", "/-/edit/", 1)
        }
        _ => {
            let url = url::Url::parse(repository).ok()?;
            let host = url.host_str()?;
            let path = url.path().trim_end_matches('/').trim_end_matches(".git");
            if url.scheme() != "https" || path.split('/').filter(|s| !s.is_empty()).count() != 2 {
                return None;
            }
            match host {
                "github.com" => format!("https://github.com{path}/edit/{branch}"),
                "gitlab.com" => format!("https://gitlab.com{path}/-/edit/{branch}"),
                _ => return None,
            }
        }
    };
    let forge = if base.starts_with("https://github.com/") {
        "GitHub"
    } else {
        "GitLab"
    };
    let mut out = base.trim_end_matches('/').to_owned();
    for part in [directory, file] {
        let part = part.trim_matches('/');
        if !part.is_empty() {
            out.push('/');
            out.push_str(part);
        }
    }
    Some((out, forge))
}

/// The current content of a published space.
pub async fn snapshot(app: &App, space: &SpaceRow) -> AppResult<Arc<Snapshot>> {
    Ok(app.engine.revisions.snapshot(&space.id, &space.revision_id).await?)
}

/// A page's markdown (`None` for pages without a body).
pub async fn markdown(app: &App, snapshot: &Snapshot, page_id: &str) -> AppResult<Option<Arc<str>>> {
    quire_app::content::page_markdown(app, snapshot, page_id).await
}

/// A document's markdown, by hash (reusable content).
pub async fn document(app: &App, hash: &str) -> AppResult<Arc<str>> {
    Ok(app.engine.revisions.document(hash).await?)
}

/// A file's bytes.
pub async fn file_bytes(app: &App, file: &quire_content::objects::FileObject) -> AppResult<Vec<u8>> {
    Ok(app.engine.files.bytes(file).await?)
}

#[cfg(test)]
mod edit_tests {
    use super::edit_url_of;

    #[test]
    fn pages_are_edited_on_their_forge_never_with_credentials() {
        assert_eq!(
            edit_url_of(
                "https://user:secret@github.com/acme/docs.git",
                None,
                "refs/heads/main",
                "docs",
                "guide/setup.md"
            ),
            Some((
                "https://github.com/acme/docs/edit/main/docs/guide/setup.md".into(),
                "GitHub"
            ))
        );
        assert_eq!(
            edit_url_of(
                "https://x",
                Some("https://gitlab.com/acme/docs/-/tree/dev"),
                "dev",
                "",
                "README.md"
            ),
            Some(("https://gitlab.com/acme/docs/-/edit/dev/README.md".into(), "GitLab"))
        );
        assert_eq!(
            edit_url_of("https://git.example/acme/docs.git", None, "main", "", "a.md"),
            None
        );
        assert_eq!(edit_url_of("file:///tmp/repo", None, "main", "", "a.md"), None);
    }
}
