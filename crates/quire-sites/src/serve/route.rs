//! The published site's routes, read from a request with no I/O: first
//! where the site may be ([`route`]: a public OpenAPI reference, or the
//! places a site may answer at), then, once the site is known, what inside
//! it is asked for ([`within`]: a machine-readable file of the site, or a
//! page, file or search of one of its site spaces).
//!
//! URLs: `{base}/{section path}/{space path}/{page path}`, where `{base}`
//! is `/{basename}` (or nothing on the site's own hostname), followed by
//! `/{share key}` on `share-link` sites, and the default section and space
//! leave their segment out. A page is also asked for as markdown with `.md`
//! appended or `Accept: text/markdown`; files are at
//! `{space URL}/~files/{fileId}`, a page's social image at
//! `{space URL}/~gitbook/ogimage/{pageId}`; a search is `?q=` on any URL of
//! a space.

use quire_core::percent::decode as percent_decode;

use crate::published::{Address, PublishedSection, PublishedSite, PublishedSpace};

/// What the request is, before anything is looked up.
pub(super) enum Route {
    /// `/~openapi/{organization}/{slug}/...`: a spec's public reference.
    PublicSpec {
        organization: String,
        slug: String,
        rest: Vec<String>,
    },
    /// A site, at the first of these places that has one.
    Site(Vec<Candidate>),
}

/// A place a site may answer at, with the rest of the path after it.
pub(super) struct Candidate {
    place: Place,
    /// The path after the site's address.
    pub(super) rest: Vec<String>,
    /// Absolute path prefix of the site (`/docs`, or `` on a hostname).
    pub(super) base: String,
    /// Scheme and host the site's absolute URLs start with.
    pub(super) origin: String,
}

enum Place {
    Hostname(String),
    Basename(String),
}

impl Candidate {
    pub(super) fn address(&self) -> Address<'_> {
        match &self.place {
            Place::Hostname(host) => Address::Hostname(host),
            Place::Basename(name) => Address::Basename(name),
        }
    }
}

/// The decoded segments of a path (empty ones dropped).
pub(super) fn segments(path: &str) -> Vec<String> {
    path.split('/').filter(|s| !s.is_empty()).map(percent_decode).collect()
}

/// Where the site a request names may be: at the root of the request's
/// host when that is not the instance's own (a custom hostname), then
/// under a basename (the first segment) of the instance's public URL.
pub(super) fn route(segments: Vec<String>, host: &str, public_host: &str, public_url: &str) -> Route {
    if let [first, organization, slug, rest @ ..] = segments.as_slice()
        && first == "~openapi"
    {
        return Route::PublicSpec {
            organization: organization.clone(),
            slug: slug.clone(),
            rest: rest.to_vec(),
        };
    }
    let host = host.to_ascii_lowercase();
    let host_name = host.split(':').next().unwrap_or_default().to_owned();
    let mut candidates = Vec::new();
    if !host.is_empty() && host != public_host {
        candidates.push(Candidate {
            origin: format!("https://{host_name}"),
            place: Place::Hostname(host_name),
            rest: segments.clone(),
            base: String::new(),
        });
    }
    if let Some((first, rest)) = segments.split_first() {
        candidates.push(Candidate {
            place: Place::Basename(first.clone()),
            rest: rest.to_vec(),
            base: format!("/{first}"),
            origin: public_url.split('/').take(3).collect::<Vec<_>>().join("/"),
        });
    }
    Route::Site(candidates)
}

/// What inside a site a request asks for.
pub(super) enum SiteRoute<'s> {
    Robots,
    Sitemap,
    Llms,
    LlmsFull,
    Rss,
    /// `~gitbook/ask?q=`: an answer to a reader's question, with sources.
    Ask(String),
    /// `~gitbook/fonts/{file}`: a file of one of GitBook's named fonts
    /// (the same at every site).
    Font(String),
    /// Something of one site space.
    Space(InSpace<'s>),
    /// A section or site space the site does not have.
    Missing,
}

/// A site space of the site, and what of it is asked for.
pub(super) struct InSpace<'s> {
    pub(super) section: Option<&'s PublishedSection>,
    pub(super) space: &'s PublishedSpace,
    pub(super) target: Target,
}

pub(super) enum Target {
    /// `~files/{fileId}`.
    File(String),
    /// `?q=`: the whole site's pages, or only this space's with
    /// `&scope=space`.
    Search { query: String, whole_site: bool },
    /// `~gitbook/pdf`: a PDF of the space, or from `?page=` (with its
    /// subpages, or `&only=yes` that page alone).
    Pdf { page: Option<String>, only: bool },
    /// `~gitbook/ogimage/{pageId}`: the page's social preview image.
    OgImage(String),
    /// A page by its path (empty: the space's first page), as HTML or as
    /// markdown.
    Page { path: String, markdown: bool },
}

/// What `rest` (the path after the site's base) asks of `site`. `query` is
/// the request's query string; `accepts_markdown` whether it prefers
/// markdown.
pub(super) fn within<'s>(
    site: &'s PublishedSite,
    rest: &[String],
    query: &str,
    accepts_markdown: bool,
) -> SiteRoute<'s> {
    within_by(site, rest, query, accepts_markdown, |a, b| a == b)
}

/// [`within`] with section and site space paths compared without letter
/// case: where a path that found nothing may have meant (the canonical
/// URL it is sent to is the page's).
pub(super) fn within_ignoring_case<'s>(site: &'s PublishedSite, rest: &[String]) -> SiteRoute<'s> {
    within_by(site, rest, "", false, |a, b| a.to_lowercase() == b.to_lowercase())
}

fn within_by<'s>(
    site: &'s PublishedSite,
    rest: &[String],
    query: &str,
    accepts_markdown: bool,
    same: fn(&str, &str) -> bool,
) -> SiteRoute<'s> {
    if let [one] = rest {
        match one.as_str() {
            "robots.txt" => return SiteRoute::Robots,
            "sitemap.xml" => return SiteRoute::Sitemap,
            "llms.txt" => return SiteRoute::Llms,
            "llms-full.txt" => return SiteRoute::LlmsFull,
            "rss.xml" => return SiteRoute::Rss,
            _ => {}
        }
    }
    if let [first, second] = rest
        && first == "~gitbook"
        && second == "ask"
    {
        return SiteRoute::Ask(query_value(query, "q").unwrap_or_default());
    }
    if let [first, second, file] = rest
        && first == "~gitbook"
        && second == "fonts"
    {
        return SiteRoute::Font(file.clone());
    }
    let mut rest = rest;
    let (section, spaces): (Option<&PublishedSection>, &[PublishedSpace]) = if site.sections.is_empty() {
        (None, &site.root)
    } else {
        let named = rest.first().and_then(|first| {
            site.sections
                .iter()
                .find(|s| !s.default && same(&s.section.path, first))
        });
        match named
            .map(|s| (s, true))
            .or_else(|| site.sections.iter().find(|s| s.default).map(|s| (s, false)))
        {
            Some((section, named)) => {
                if named {
                    rest = &rest[1..];
                }
                (Some(section), &section.spaces)
            }
            None => return SiteRoute::Missing,
        }
    };
    let named = rest
        .first()
        .and_then(|first| spaces.iter().find(|s| !s.default && same(&s.site_space.path, first)));
    let space = match named {
        Some(space) => {
            rest = &rest[1..];
            space
        }
        None => match spaces.iter().find(|s| s.default) {
            Some(space) => space,
            None => return SiteRoute::Missing,
        },
    };
    let target = match rest {
        [files, id] if files == "~files" => Target::File(id.clone()),
        [gitbook, ogimage, id] if gitbook == "~gitbook" && ogimage == "ogimage" => Target::OgImage(id.clone()),
        [gitbook, pdf] if gitbook == "~gitbook" && pdf == "pdf" => Target::Pdf {
            page: query_value(query, "page").filter(|p| !p.is_empty()),
            only: matches!(query_value(query, "only").as_deref(), Some("yes" | "true" | "1")),
        },
        _ => match query_value(query, "q") {
            Some(q) => Target::Search {
                whole_site: query_value(query, "scope").as_deref() != Some("space"),
                query: q,
            },
            None => {
                let path = rest.join("/");
                match path.strip_suffix(".md") {
                    Some(stripped) => Target::Page {
                        path: stripped.to_owned(),
                        markdown: true,
                    },
                    None => Target::Page {
                        path,
                        markdown: accepts_markdown,
                    },
                }
            }
        },
    };
    SiteRoute::Space(InSpace { section, space, target })
}

/// The decoded value of `name` in a query string (`+` is a space).
pub(super) fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(&v.replace('+', " ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(route: Route) -> Vec<(String, Vec<String>, String, String)> {
        let Route::Site(candidates) = route else {
            panic!("not a site")
        };
        candidates
            .iter()
            .map(|c| {
                let place = match c.address() {
                    Address::Hostname(h) => format!("host:{h}"),
                    Address::Basename(b) => format!("base:{b}"),
                };
                (place, c.rest.clone(), c.base.clone(), c.origin.clone())
            })
            .collect()
    }

    #[test]
    fn a_site_is_looked_for_on_its_hostname_then_under_a_basename() {
        let public = "http://docs.local:8080";
        let on_instance = places(route(
            segments("/docs/guide/start"),
            "docs.local:8080",
            "docs.local:8080",
            public,
        ));
        assert_eq!(
            on_instance,
            vec![(
                "base:docs".into(),
                vec!["guide".into(), "start".into()],
                "/docs".into(),
                "http://docs.local:8080".into()
            )]
        );
        let custom = places(route(
            segments("/guide"),
            "Help.Example.com:443",
            "docs.local:8080",
            public,
        ));
        assert_eq!(custom[0].0, "host:help.example.com");
        assert_eq!(custom[0].1, vec!["guide".to_owned()]);
        assert_eq!(custom[0].3, "https://help.example.com");
        assert_eq!(custom[1].0, "base:guide");
        assert!(places(route(Vec::new(), "docs.local:8080", "docs.local:8080", public)).is_empty());
    }

    /// A published site with no space: what is asked of it before its
    /// spaces are looked at.
    fn bare_site() -> PublishedSite {
        PublishedSite {
            site: quire_store::sites::SiteRow {
                id: "site1".into(),
                organization_id: "org1".into(),
                site_type: "basic".into(),
                title: "Docs".into(),
                basename: "docs".into(),
                hostname: None,
                proxy: None,
                visibility: quire_core::SiteVisibility::Public,
                published: true,
                agents_context: "included".into(),
                default_level: quire_core::DefaultLevel::Inherit,
                adaptive_content: false,
                adaptive_schema: None,
                adaptive_updated_at: None,
                customization: "{}".into(),
                visitor_key: String::new(),
                visitor_fallback_url: None,
                visitor_logout_url: None,
                default_section_id: None,
                default_site_space_id: None,
                created_at: quire_core::Timestamp(0),
                updated_at: quire_core::Timestamp(0),
            },
            token_expires: None,
            sections: Vec::new(),
            root: Vec::new(),
            context: serde_json::Value::Null,
        }
    }

    #[test]
    fn named_fonts_are_at_the_sites_root() {
        let site = bare_site();
        let rest = |path: &str| segments(path);
        let file = "inter-latin-wght-normal.3100e775.woff2";
        assert!(matches!(
            within(&site, &rest(&format!("/~gitbook/fonts/{file}")), "", false),
            SiteRoute::Font(f) if f == file
        ));
        // Whatever the name (the answer tells a file it does not have).
        assert!(
            matches!(within(&site, &rest("/~gitbook/fonts/nope"), "v=2", false), SiteRoute::Font(f) if f == "nope")
        );
        // Only one file, right under the site's path.
        for path in [
            "/~gitbook/fonts",
            "/~gitbook/fonts/a/b",
            &format!("/guide/~gitbook/fonts/{file}"),
        ] {
            assert!(
                matches!(within(&site, &rest(path), "", false), SiteRoute::Missing),
                "{path}"
            );
        }
    }

    #[test]
    fn public_specs_and_encoded_segments() {
        let Route::PublicSpec {
            organization,
            slug,
            rest,
        } = route(segments("/~openapi/org1/pets/x"), "", "h", "http://h")
        else {
            panic!("not a spec")
        };
        assert_eq!((organization.as_str(), slug.as_str(), rest.len()), ("org1", "pets", 1));
        assert_eq!(segments("/a%20b//c/"), vec!["a b".to_owned(), "c".to_owned()]);
        assert_eq!(
            query_value("x=1&q=hello+world%21", "q").as_deref(),
            Some("hello world!")
        );
        assert_eq!(query_value("x=1", "q"), None);
    }
}
