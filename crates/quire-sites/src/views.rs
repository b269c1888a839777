//! JSON shapes of sites, their structure, share links, adaptive schema and
//! redirects.

use crate::SiteInfo;
use crate::adaptive::{AdaptiveSchema, TemplateCondition};
use crate::redirects::{BulkResult, BulkStatus, Resolved, Target};
use crate::structure::{GroupInfo, SectionInfo, SiteSpaceInfo, StructureInfo, TopItem};
use crate::visitor::PublishingAuth as PublishingAuthInfo;
use quire_app::access::SitePermissions;
use quire_core::{DefaultLevel, Timestamp};
use quire_store::site_redirects::RedirectRow;
use quire_store::sites::{ShareLinkRow, SiteRow};
use serde::Serialize;
use serde_json::Value;

use quire_http::state::AppState;
use quire_http::views::Space;

/// Where the site is served: its custom hostname, or `{public URL}/{basename}`
/// (no trailing slash).
pub fn site_base(state: &AppState, site: &SiteRow) -> String {
    match &site.hostname {
        Some(host) => format!("https://{host}"),
        None => format!("{}/{}", state.public_url, site.basename),
    }
}

#[derive(Debug, Serialize)]
pub struct Enabled {
    pub enabled: bool,
}

#[derive(Debug, Serialize)]
pub struct Proxy {
    pub origin: String,
    pub target: String,
}

#[derive(Debug, Serialize)]
pub struct SiteUrls {
    pub location: String,
    pub app: String,
    pub preview: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Site {
    pub object: &'static str,
    pub id: String,
    #[serde(rename = "type")]
    pub site_type: String,
    pub applied_type: String,
    pub title: String,
    pub basename: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy: Option<Proxy>,
    pub visibility: &'static str,
    pub default_level: DefaultLevel,
    pub permissions: SitePermissions,
    pub published: bool,
    pub site_spaces: i64,
    pub created_at: Timestamp,
    pub adaptive_content: Enabled,
    pub agents_context: String,
    pub features: Vec<Value>,
    pub urls: SiteUrls,
}

pub fn site(state: &AppState, info: SiteInfo) -> Site {
    let SiteInfo {
        site: row,
        site_spaces,
        permissions,
    } = info;
    let base = site_base(state, &row);
    Site {
        object: "site",
        urls: SiteUrls {
            location: state.api_url(&format!("/orgs/{}/sites/{}", row.organization_id, row.id)),
            app: state.app_url(&format!("/o/{}/sites/{}", row.organization_id, row.id)),
            preview: format!("{base}/"),
            published: row.published.then(|| format!("{base}/")),
        },
        proxy: row.proxy.map(|origin| Proxy {
            target: format!("{base}/"),
            origin,
        }),
        id: row.id,
        applied_type: row.site_type.clone(),
        site_type: row.site_type,
        title: row.title,
        basename: row.basename,
        hostname: row.hostname,
        visibility: row.visibility.as_str(),
        default_level: row.default_level,
        permissions,
        published: row.published,
        site_spaces,
        created_at: row.created_at,
        adaptive_content: Enabled {
            enabled: row.adaptive_content,
        },
        agents_context: row.agents_context,
        features: Vec::new(),
    }
}

#[derive(Debug, Serialize)]
pub struct PublishedUrls {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSpace {
    pub object: &'static str,
    pub id: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    pub space: Space,
    pub title: String,
    pub default: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    pub draft: bool,
    pub has_advanced_customization_feature: bool,
    pub urls: PublishedUrls,
}

/// The path of a site space under the site: the section's path unless it
/// is the default section, then the space's unless it is the default.
fn site_space_url(base: &str, section: Option<(&SectionInfo, bool)>, info: &SiteSpaceInfo) -> String {
    let mut url = base.to_owned();
    if let Some((section, false)) = section {
        url.push('/');
        url.push_str(&section.section.path);
    }
    if !info.default {
        url.push('/');
        url.push_str(&info.site_space.path);
    }
    url.push('/');
    url
}

pub fn site_space(state: &AppState, site: &SiteRow, section: Option<&SectionInfo>, info: SiteSpaceInfo) -> SiteSpace {
    let base = site_base(state, site);
    let published = site
        .published
        .then(|| site_space_url(&base, section.map(|s| (s, s.default)), &info));
    SiteSpace {
        object: "site-space",
        id: info.site_space.id,
        path: info.site_space.path,
        section: info.site_space.section_id,
        title: info.space.space.title.clone(),
        space: quire_http::views::space(state, info.space),
        default: info.default,
        condition: info.site_space.condition,
        draft: false,
        has_advanced_customization_feature: false,
        urls: PublishedUrls { published },
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSection {
    pub object: &'static str,
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub default: bool,
    pub draft: bool,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_group: Option<String>,
    pub site_spaces: Vec<SiteSpace>,
    pub urls: PublishedUrls,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

pub fn section(state: &AppState, site: &SiteRow, info: SectionInfo) -> SiteSection {
    let base = site_base(state, site);
    let published = site.published.then(|| {
        if info.default {
            format!("{base}/")
        } else {
            format!("{base}/{}/", info.section.path)
        }
    });
    let site_spaces = info
        .site_spaces
        .iter()
        .cloned()
        .map(|s| site_space(state, site, Some(&info), s))
        .collect();
    SiteSection {
        object: "site-section",
        id: info.section.id,
        title: info.section.title,
        description: info.section.description,
        default: info.default,
        draft: false,
        path: info.section.path,
        condition: info.section.condition,
        section_group: info.section.group_id,
        site_spaces,
        urls: PublishedUrls { published },
        icon: info.section.icon,
    }
}

#[derive(Debug, Serialize)]
pub struct SiteSectionGroup {
    pub object: &'static str,
    pub id: String,
    pub title: String,
    pub draft: bool,
    pub sections: Vec<SiteSection>,
    pub children: Vec<SiteSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

pub fn group(state: &AppState, site: &SiteRow, info: GroupInfo) -> SiteSectionGroup {
    let sections: Vec<SiteSection> = info.sections.iter().cloned().map(|s| section(state, site, s)).collect();
    let children = info.sections.into_iter().map(|s| section(state, site, s)).collect();
    SiteSectionGroup {
        object: "site-section-group",
        id: info.group.id,
        title: info.group.title,
        draft: false,
        sections,
        children,
        icon: info.group.icon,
    }
}

/// An item of a site's top level.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum StructureItem {
    Section(Box<SiteSection>),
    Group(Box<SiteSectionGroup>),
    SiteSpace(Box<SiteSpace>),
}

#[derive(Debug, Serialize)]
pub struct SiteStructure {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub structure: Vec<StructureItem>,
}

pub fn structure(state: &AppState, info: StructureInfo) -> SiteStructure {
    let site = info.site;
    if info.top.is_empty() {
        return SiteStructure {
            kind: "siteSpaces",
            structure: info
                .root
                .into_iter()
                .map(|s| StructureItem::SiteSpace(Box::new(site_space(state, &site, None, s))))
                .collect(),
        };
    }
    SiteStructure {
        kind: "sections",
        structure: info
            .top
            .into_iter()
            .map(|item| match item {
                TopItem::Section(s) => StructureItem::Section(Box::new(section(state, &site, s))),
                TopItem::Group(g) => StructureItem::Group(Box::new(group(state, &site, g))),
            })
            .collect(),
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareLink {
    pub object: &'static str,
    pub id: String,
    pub created_at: Timestamp,
    pub name: String,
    pub active: bool,
    pub urls: PublishedUrls,
}

pub fn share_link(state: &AppState, site: &SiteRow, row: ShareLinkRow) -> ShareLink {
    let base = site_base(state, site);
    ShareLink {
        object: "share-link",
        urls: PublishedUrls {
            published: (site.published && row.active).then(|| format!("{base}/{}/", row.share_key)),
        },
        id: row.id,
        created_at: row.created_at,
        name: row.name,
        active: row.active,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteAdaptiveSchema {
    pub object: &'static str,
    pub json_schema: Value,
    pub updated_at: Timestamp,
}

pub fn adaptive_schema(schema: AdaptiveSchema) -> SiteAdaptiveSchema {
    SiteAdaptiveSchema {
        object: "site-adaptive-schema",
        json_schema: schema.json_schema,
        updated_at: schema.updated_at,
    }
}

#[derive(Debug, Serialize)]
pub struct TemplateConditionView {
    pub description: String,
    pub condition: String,
}

#[derive(Debug, Serialize)]
pub struct TemplateConditions {
    pub items: Vec<TemplateConditionView>,
}

pub fn template_conditions(items: Vec<TemplateCondition>) -> TemplateConditions {
    TemplateConditions {
        items: items
            .into_iter()
            .map(|t| TemplateConditionView {
                description: t.description,
                condition: t.condition,
            })
            .collect(),
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishingAuth {
    pub object: &'static str,
    pub backend: &'static str,
    pub private_key: String,
    #[serde(rename = "fallbackURL", skip_serializing_if = "Option::is_none")]
    pub fallback_url: Option<String>,
    #[serde(rename = "logoutURL", skip_serializing_if = "Option::is_none")]
    pub logout_url: Option<String>,
}

pub fn publishing_auth(info: PublishingAuthInfo) -> PublishingAuth {
    PublishingAuth {
        object: "publishing-auth",
        backend: "custom",
        private_key: info.private_key,
        fallback_url: info.fallback_url,
        logout_url: info.logout_url,
    }
}

/// The official `SiteCustomizationSettings`: the settings, and `updatedAt`
/// once they were changed.
pub fn customization(info: crate::customization::Customization) -> Value {
    let mut settings = info.settings;
    if let (Some(object), Some(at)) = (settings.as_object_mut(), info.updated_at) {
        object.insert("updatedAt".into(), Value::String(at.to_rfc3339()));
    }
    settings
}

#[derive(Debug, Serialize)]
pub struct PublishedCustomizations {
    pub site: Value,
    #[serde(rename = "siteSpaces")]
    pub site_spaces: serde_json::Map<String, Value>,
}

#[derive(Debug, Serialize)]
pub struct PublishedContentSite {
    pub object: &'static str,
    pub site: Site,
    pub structure: SiteStructure,
    pub customizations: PublishedCustomizations,
    pub scripts: Vec<Value>,
}

pub fn published_content(state: &AppState, content: crate::PublishedContent) -> PublishedContentSite {
    let site_spaces = content
        .site_spaces
        .into_iter()
        .map(|(id, settings, has_overrides)| {
            let mut value = customization(settings);
            if let Some(object) = value.as_object_mut() {
                object.insert("hasOverrides".into(), Value::Bool(has_overrides));
            }
            (id, value)
        })
        .collect();
    PublishedContentSite {
        object: "published-content-site",
        site: site(state, content.site),
        structure: structure(state, content.structure),
        customizations: PublishedCustomizations {
            site: customization(content.customization),
            site_spaces,
        },
        scripts: Vec::new(),
    }
}

/// The official `SiteRedirect`: `updatedAt` once it was changed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteRedirect {
    pub object: &'static str,
    pub id: String,
    pub source: String,
    pub draft: bool,
    pub capture_wildcard: bool,
    pub permanent: bool,
    pub destination: Value,
    pub created_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
}

pub fn site_redirect(row: RedirectRow) -> SiteRedirect {
    SiteRedirect {
        object: "site-redirect",
        destination: serde_json::from_str(&row.destination).unwrap_or(Value::Null),
        id: row.id,
        source: row.source,
        draft: row.draft,
        capture_wildcard: row.capture_wildcard,
        permanent: row.permanent,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// What `bulkUpsertSiteRedirects` answers: one result per redirect given.
#[derive(Debug, Serialize)]
pub struct BulkRedirects {
    pub results: Vec<BulkRedirectResult>,
}

#[derive(Debug, Serialize)]
pub struct BulkRedirectResult {
    pub status: &'static str,
    pub source: String,
    pub draft: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub fn bulk_redirects(results: Vec<BulkResult>) -> BulkRedirects {
    BulkRedirects {
        results: results
            .into_iter()
            .map(|r| {
                let (status, error) = match r.status {
                    BulkStatus::Created => ("created", None),
                    BulkStatus::Updated => ("updated", None),
                    BulkStatus::Deleted => ("deleted", None),
                    BulkStatus::Published => ("published", None),
                    BulkStatus::Error(message) => ("error", Some(message)),
                };
                BulkRedirectResult {
                    status,
                    source: r.source,
                    draft: r.draft,
                    id: r.id,
                    error,
                }
            })
            .collect(),
    }
}

/// What `getSiteRedirectBySource` answers: the redirect and the URL it
/// leads to (a path of the site under the site's published URL).
#[derive(Debug, Serialize)]
pub struct ResolvedRedirect {
    pub redirect: SiteRedirect,
    pub target: String,
}

pub fn resolved_redirect(state: &AppState, resolved: Resolved) -> ResolvedRedirect {
    let target = match resolved.target {
        Target::Site(path) => format!("{}{path}", site_base(state, &resolved.site)),
        Target::External(url) => url,
    };
    ResolvedRedirect {
        redirect: site_redirect(resolved.redirect),
        target,
    }
}
