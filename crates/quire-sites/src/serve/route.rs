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
//! `{space URL}/~files/{fileId}`; a search is `?q=` on any URL of a space.

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
    /// `?q=`.
    Search(String),
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
        _ => match query_value(query, "q") {
            Some(q) => Target::Search(q),
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
