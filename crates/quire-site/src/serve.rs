//! The site's router: finds the site a request names, admits the visitor
//! (`quire_app::sites::published`), resolves the section, the site space
//! and the page from the rest of the path, and answers with HTML, markdown,
//! a file or a machine-readable file.
//!
//! URLs: `{base}/{section path}/{space path}/{page path}`, where `{base}`
//! is `/{basename}` (or nothing on the site's own hostname), followed by
//! `/{share key}` on `share-link` sites, and the default section and space
//! leave their segment out. A page is also served as markdown with `.md`
//! appended or `Accept: text/markdown`; files are at
//! `{space URL}/~files/{fileId}`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use quire_app::App;
use quire_app::sites::published::{self, Address, Admission, PublishedSection, PublishedSite, PublishedSpace, Visitor};
use quire_content::document::{Block, Document, LinkTarget, OpenApiOperation, OpenApiSchemas, plain_text};
use quire_content::tree::PageKind;
use quire_core::percent::{decode as percent_decode, encode_component, encode_uri};
use quire_engine::Snapshot;
use quire_engine::links::Target;

use crate::i18n::Language;
use crate::layout::{self, Font, FontFace, Look, NavLink, SectionTab, Shell, TreeEntry};
use crate::outputs::{self, Listed};
use crate::render::{self, FileLink, Links};

#[derive(Clone)]
struct SiteState {
    app: App,
    /// The instance's public URL, without a trailing slash.
    public_url: Arc<str>,
    /// Its host (`localhost:8080`), to tell custom hostnames apart.
    public_host: Arc<str>,
    orders: Arc<std::sync::Mutex<std::collections::HashMap<String, Arc<ReadingOrder>>>>,
    /// Parsed OpenAPI documents by version id (versions never change).
    specs: Arc<std::sync::Mutex<HashMap<String, Arc<quire_openapi::Spec>>>>,
}

/// The router of every published site; mount it as the fallback of the
/// instance's router.
pub fn router(app: App, public_url: &str) -> Router {
    let public_url = public_url.trim_end_matches('/');
    let public_host = public_url
        .split_once("://")
        .map_or(public_url, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    Router::new()
        .fallback(serve)
        .layer(axum::middleware::map_response(crate::security::secure))
        .with_state(SiteState {
            app,
            public_url: public_url.into(),
            public_host: public_host.into(),
            orders: Arc::default(),
            specs: Arc::default(),
        })
}

/// What a request resolved to, for answering.
struct Visit {
    site: PublishedSite,
    /// Absolute path prefix of the site (`/docs`, `/docs/{key}`, or ``).
    base: String,
    /// Scheme and host the site's absolute URLs start with.
    origin: String,
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let mut res = (status, body).into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    res
}

fn html(status: StatusCode, body: String, indexable: bool) -> Response {
    let mut res = text(status, "text/html; charset=utf-8", body);
    if !indexable {
        res.headers_mut()
            .insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    res
}

/// What the site's customization (with the overrides of the site space
/// being read, if any) changes on its pages.
fn look(site: &quire_store::sites::SiteRow, space: Option<&PublishedSpace>) -> (String, Look) {
    let overrides = space.and_then(|s| s.overrides.as_ref());
    let settings = quire_app::sites::customization::of_site_space(site, overrides).settings;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
    let url_of = |to: &serde_json::Value| match to.get("kind").and_then(|k| k.as_str()) {
        Some("url") => text(&to["url"]),
        _ => None,
    };
    let title = text(&settings["title"]).unwrap_or_else(|| site.title.clone());
    let primary = &settings["styling"]["primaryColor"];
    let theme = text(&settings["themes"]["default"]).filter(|t| t == "light" || t == "dark");
    let announcement = settings
        .get("announcement")
        .filter(|a| a["enabled"] == true)
        .and_then(|a| {
            Some((
                text(&a["message"])?,
                a.get("link").and_then(|l| url_of(&l["to"])),
                text(&a["style"]).unwrap_or_else(|| "info".into()),
            ))
        });
    let header_links = settings["header"]["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| {
            Some(NavLink {
                title: text(&l["title"])?,
                href: url_of(&l["to"])?,
                current: false,
            })
        })
        .collect();
    // The default fonts are the platform's own.
    let defaults = quire_app::sites::customization::defaults();
    let chosen = |name: &str| {
        Some(&settings["styling"][name])
            .filter(|f| **f != defaults["styling"][name])
            .and_then(font)
    };
    let look = Look {
        font: chosen("font"),
        monospace_font: chosen("monospaceFont"),
        accent: text(&primary["light"]).zip(text(&primary["dark"])),
        toggle: settings["themes"]["toggeable"] != false,
        theme,
        favicon: text(&settings["favicon"]["icon"]["light"]),
        logo: text(&settings["header"]["logo"]["light"]),
        header_links,
        announcement,
        copyright: text(&settings["footer"]["copyright"]),
        language: Language::of_locale(settings["internationalization"]["locale"].as_str().unwrap_or_default()),
    };
    (title, look)
}

/// A font setting: one of the platform's fonts by name (its family, preferred
/// when the reader has it) or a web font's definition with its files.
fn font(setting: &serde_json::Value) -> Option<Font> {
    if let Some(name) = setting.as_str() {
        return Some(Font {
            family: family_of(name),
            faces: Vec::new(),
        });
    }
    let faces = setting["fontFaces"]
        .as_array()?
        .iter()
        .filter_map(|face| {
            let sources: Vec<(String, Option<String>)> = face["sources"]
                .as_array()?
                .iter()
                .filter_map(|s| Some((s["url"].as_str()?.to_owned(), s["format"].as_str().map(str::to_owned))))
                .collect();
            Some(FontFace {
                weight: face["weight"].as_u64()?,
                sources,
            })
        })
        .collect();
    Some(Font {
        family: setting["fontFamily"].as_str()?.to_owned(),
        faces,
    })
}

/// The CSS family of a platform font name (`OpenSans` is "Open Sans").
fn family_of(name: &str) -> String {
    match name {
        "OpenSans" => "Open Sans",
        "RobotoSlab" => "Roboto Slab",
        "SourceSansPro" => "Source Sans Pro",
        "NotoSans" => "Noto Sans",
        "IBMPlexSerif" => "IBM Plex Serif",
        "FiraSans" => "Fira Sans",
        "FiraCode" => "Fira Code",
        "IBMPlexMono" => "IBM Plex Mono",
        "JetBrainsMono" => "JetBrains Mono",
        "SourceCodePro" => "Source Code Pro",
        "RobotoMono" => "Roboto Mono",
        "SpaceMono" => "Space Mono",
        "DMMono" => "DM Mono",
        other => other,
    }
    .to_owned()
}

fn not_found(visit: Option<&Visit>) -> Response {
    let shell = visit.map(|v| {
        let (site_title, look) = look(&v.site.site, None);
        Shell {
            wide: false,
            tree_hidden: false,
            look,
            site_title,
            home: format!("{}/", v.base),
            ..Shell::default()
        }
    });
    html(StatusCode::NOT_FOUND, layout::not_found(shell.as_ref()), false)
}

async fn serve(State(state): State<SiteState>, method: Method, headers: HeaderMap, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "method not allowed\n".into(),
        );
    }
    match answer(&state, &headers, &uri).await {
        Ok(res) => res,
        Err(err) => {
            tracing::error!(error = %err, "site request failed");
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain; charset=utf-8",
                "something went wrong\n".into(),
            )
        }
    }
}

async fn answer(state: &SiteState, headers: &HeaderMap, uri: &Uri) -> quire_app::AppResult<Response> {
    let segments: Vec<String> = uri
        .path()
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    if let [first, org, slug, rest @ ..] = segments.as_slice()
        && first == "~openapi"
    {
        return public_spec(org, slug, rest, state).await;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| h.to_ascii_lowercase())
        .unwrap_or_default();
    let host_name = host.split(':').next().unwrap_or_default().to_owned();
    // Where the site may be: at the root of the request's host when that is
    // not the instance's own (a custom hostname), then under a basename.
    let mut candidates: Vec<(Address<'_>, &[String], String, String)> = Vec::new();
    if !host.is_empty() && host != *state.public_host {
        candidates.push((
            Address::Hostname(&host_name),
            &segments[..],
            String::new(),
            format!("https://{host_name}"),
        ));
    }
    if let Some((first, rest)) = segments.split_first() {
        let origin = state.public_url.split('/').take(3).collect::<Vec<_>>().join("/");
        candidates.push((Address::Basename(first), rest, format!("/{first}"), origin));
    }
    // The visitor: a token from `?jwt_token=` (then kept in a cookie) or
    // the cookie, claims they set with `?visitor.<name>=` (kept likewise).
    let query = uri.query().unwrap_or_default();
    let query_token = query_value(query, "jwt_token");
    let cookie_token = cookie(headers, TOKEN_COOKIE);
    let mut unsigned = cookie(headers, CLAIMS_COOKIE)
        .and_then(|c| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&percent_decode(&c)).ok())
        .unwrap_or_default();
    let mut claims_changed = false;
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if let Some(name) = k.strip_prefix("visitor.").filter(|n| !n.is_empty() && n.len() <= 64) {
            unsigned.insert(percent_decode(name), claim_value(&percent_decode(&v.replace('+', " "))));
            claims_changed = true;
        }
    }
    let token = query_token.as_deref().or(cookie_token.as_deref());
    let mut found = None;
    for (address, rest, base, origin) in candidates {
        let mut visitor = Visitor {
            share_key: None,
            token,
            unsigned: unsigned.clone(),
        };
        let mut outcome = published::open(&state.app, address.clone(), &visitor).await?;
        let (mut rest, mut base) = (rest, base);
        if matches!(outcome, Admission::Absent)
            && let Some(key) = rest.first()
        {
            visitor.share_key = Some(key);
            outcome = published::open(&state.app, address, &visitor).await?;
            if !matches!(outcome, Admission::Absent) {
                base = format!("{base}/{key}");
                rest = &rest[1..];
            }
        }
        match outcome {
            Admission::Absent => continue,
            Admission::SignIn { fallback_url } => return Ok(sign_in(fallback_url, &origin, uri)),
            Admission::Admitted(site) => {
                // On a site open to everyone, a share link's URL still works.
                if visitor.share_key.is_none()
                    && let Some(key) = rest.first().filter(|k| looks_like_share_key(k))
                    && published::is_share_key(&state.app, &site, key).await?
                {
                    found = Some((*site, &rest[1..], format!("{base}/{key}"), origin));
                    break;
                }
                found = Some((*site, rest, base, origin));
                break;
            }
        }
    }
    let Some((site, mut rest, base, origin)) = found else {
        return Ok(not_found(None));
    };
    // A token given in the URL moves into a cookie scoped to the site, and
    // the visitor lands on the same page without it.
    if query_token.is_some() || claims_changed {
        let path = format!("{base}/");
        let mut res = StatusCode::SEE_OTHER.into_response();
        let clean: Vec<&str> = query
            .split('&')
            .filter(|p| !p.starts_with("jwt_token=") && !p.starts_with("visitor.") && !p.is_empty())
            .collect();
        let location = if clean.is_empty() {
            uri.path().to_owned()
        } else {
            format!("{}?{}", uri.path(), clean.join("&"))
        };
        let h = res.headers_mut();
        if let Ok(v) = HeaderValue::from_str(&location) {
            h.insert(header::LOCATION, v);
        }
        let secure = if state.public_url.starts_with("https:") || origin.starts_with("https:") && base.is_empty() {
            "; Secure"
        } else {
            ""
        };
        if let (Some(token), Some(exp)) = (query_token.as_deref(), site.token_expires) {
            let max_age = (exp - state.app.now().0 / 1000).max(0);
            let cookie =
                format!("{TOKEN_COOKIE}={token}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                h.append(header::SET_COOKIE, v);
            }
        }
        if claims_changed {
            let value = encode_component(&serde_json::Value::Object(unsigned).to_string());
            let cookie = format!("{CLAIMS_COOKIE}={value}; Path={path}; HttpOnly; SameSite=Lax{secure}");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                h.append(header::SET_COOKIE, v);
            }
        }
        return Ok(res);
    }
    if rest.is_empty() && !base.is_empty() && !uri.path().ends_with('/') {
        let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
        if let Ok(location) = HeaderValue::from_str(&format!("{base}/")) {
            res.headers_mut().insert(header::LOCATION, location);
        }
        return Ok(res);
    }
    let visit = Visit { site, base, origin };
    match rest {
        [one] if one == "robots.txt" => {
            let sitemap = format!("{}{}/sitemap.xml", visit.origin, visit.base);
            return Ok(text(
                StatusCode::OK,
                "text/plain; charset=utf-8",
                outputs::robots(visit.site.indexable(), &sitemap),
            ));
        }
        [one] if one == "sitemap.xml" => {
            if !visit.site.indexable() {
                return Ok(not_found(Some(&visit)));
            }
            let pages = listed(state, &visit).await?;
            return Ok(text(
                StatusCode::OK,
                "application/xml; charset=utf-8",
                outputs::sitemap(&pages),
            ));
        }
        [one] if one == "llms.txt" => {
            let pages = listed(state, &visit).await?;
            return Ok(markdown_response(
                outputs::llms(&visit.site.site.title, &pages),
                visit.site.indexable(),
            ));
        }
        [one] if one == "llms-full.txt" => return llms_full(state, &visit).await,
        [one] if one == "rss.xml" => return feed(state, &visit).await,
        _ => {}
    }
    // The section, then the site space.
    let (section, spaces): (Option<&PublishedSection>, &[PublishedSpace]) = if visit.site.sections.is_empty() {
        (None, &visit.site.root)
    } else {
        let named = rest.first().and_then(|first| {
            visit
                .site
                .sections
                .iter()
                .find(|s| !s.default && &s.section.path == first)
        });
        match named {
            Some(section) => {
                rest = &rest[1..];
                (Some(section), &section.spaces)
            }
            None => match visit.site.sections.iter().find(|s| s.default) {
                Some(section) => (Some(section), &section.spaces),
                None => return Ok(not_found(Some(&visit))),
            },
        }
    };
    let named = rest
        .first()
        .and_then(|first| spaces.iter().find(|s| !s.default && &s.site_space.path == first));
    let space = match named {
        Some(space) => {
            rest = &rest[1..];
            space
        }
        None => match spaces.iter().find(|s| s.default) {
            Some(space) => space,
            None => return Ok(not_found(Some(&visit))),
        },
    };
    let snapshot = published::snapshot(&state.app, &space.space).await?;
    let space_base = space_url(&visit.base, section, space);
    if let [files, id] = rest
        && files == "~files"
    {
        return file(state, &snapshot, id, headers)
            .await
            .map(|r| r.unwrap_or_else(|| not_found(Some(&visit))));
    }
    let mut path = rest.join("/");
    let wants_markdown = path.ends_with(".md")
        || headers
            .get(header::ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.contains("text/markdown"));
    if let Some(stripped) = path.strip_suffix(".md") {
        path = stripped.to_owned();
    }
    let order = reading_order(state, &snapshot);
    let withheld = order.withheld(&visit.site);
    let page_id = if path.is_empty() {
        withheld.documents(&snapshot, &order).next().cloned()
    } else {
        snapshot.page_by_path(&path)
    };
    if let Some(q) = query_value(query, "q") {
        return search_page(state, &visit, section, space, &snapshot, &space_base, &q).await;
    }
    let absent = page_id.is_none();
    let Some(page_id) = page_id.filter(|id| !withheld.page(&snapshot, id)) else {
        // An old path the space's `.gitbook.yaml` redirects, or the path
        // of a Git-synced page's file (its GitBook URL, when the tree's
        // slugs say otherwise).
        let target = match absent {
            true => match published::redirect(&state.app, &space.space, &path).await? {
                Some(target) => Some(target),
                None => snapshot.page_by_git_path(&path),
            },
            false => None,
        };
        if let Some(target) = target
            && snapshot.tree.pages.contains_key(&target)
            && !withheld.page(&snapshot, &target)
        {
            let links = SpaceLinks::new(&snapshot, &space_base, &withheld);
            let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
            if let Ok(v) = HeaderValue::from_str(&encode_uri(&links.page_url(&target))) {
                res.headers_mut().insert(header::LOCATION, v);
            }
            return Ok(res);
        }
        return Ok(not_found(Some(&visit)));
    };
    let meta = &snapshot.tree.pages[&page_id].meta;
    let body = published::markdown(&state.app, &snapshot, &page_id)
        .await?
        .unwrap_or_default();
    if wants_markdown {
        let body = for_visitor(&body, &visit.site);
        return Ok(markdown_response(
            outputs::markdown(&meta.title, meta.description.as_deref(), &body),
            visit.site.indexable(),
        ));
    }
    let mut document = Document::from_markdown(&body);
    document.remove_title_heading(&meta.title);
    // Conditional blocks this visitor may not see go before anything reads
    // the document (the outline lists its headings).
    document.retain_conditions(&|condition| visit.site.shows(Some(condition)));
    let mut links = SpaceLinks::new(&snapshot, &space_base, &withheld);
    links.page = Some(&page_id);
    links.site = Some(&visit.site);
    links.variables = variables(state, &snapshot, document.front_matter.as_deref()).await?;
    for block in document.walk() {
        if let Block::OpenApiOperation(pointer) = block
            && !links.operations.contains_key(pointer)
            && let Some(spec) =
                spec_for_page(state, &space.space.organization_id, &snapshot, &page_id, &pointer.spec).await?
            && let Some(operation) = spec.operation(&pointer.path, &pointer.method)
        {
            links.operations.insert(pointer.clone(), operation);
        }
        if let Block::OpenApiSchemas(pointer) = block
            && !links.schemas.contains_key(pointer)
            && let Some(spec) =
                spec_for_page(state, &space.space.organization_id, &snapshot, &page_id, &pointer.spec).await?
        {
            let named: Option<Vec<_>> = pointer
                .schemas
                .iter()
                .map(|name| spec.component_schema(name).map(|s| (name.clone(), s)))
                .collect();
            if let Some(named) = named {
                links.schemas.insert(pointer.clone(), named);
            }
        }
        if let Block::Include { path } = block
            && !links.includes.contains_key(path)
            && let Some(reusable) = snapshot.included_by(&page_id, path)
        {
            let text = published::document(&state.app, &reusable.document).await?;
            links.includes.insert(path.clone(), Document::from_markdown(&text));
        }
    }
    let page_layout = quire_content::markdown::page_layout(document.front_matter.as_deref());
    let mut article = String::new();
    if page_layout.title {
        article.push_str("<h1>");
        crate::html::push_escaped(&mut article, &meta.title);
        article.push_str("</h1>");
    }
    if let Some(d) = meta
        .description
        .as_deref()
        .filter(|d| !d.is_empty() && page_layout.description)
    {
        article.push_str("<p class=\"lead\">");
        crate::html::push_escaped(&mut article, d);
        article.push_str("</p>");
    }
    article.push_str(&render::document(&document, &links));
    let mut shell = shell(
        &order,
        &withheld,
        &visit,
        section,
        space,
        &snapshot,
        &space_base,
        Some(&page_id),
        &document,
        "",
    );
    shell.wide = page_layout.wide;
    if !page_layout.table_of_contents {
        shell.tree.clear();
        shell.tree_hidden = true;
    }
    if !page_layout.outline {
        shell.outline.clear();
    }
    if !page_layout.pagination {
        shell.previous = None;
        shell.next = None;
    }
    Ok(html(
        StatusCode::OK,
        layout::page(&shell, &article),
        visit.site.indexable(),
    ))
}

/// Share keys are 32 letters and digits; only such a segment is looked up.
fn looks_like_share_key(segment: &str) -> bool {
    segment.len() == 32 && segment.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The cookie holding a visitor's token, scoped to the site's path.
const TOKEN_COOKIE: &str = "quire_visitor";
/// The cookie holding the claims a visitor set themselves.
const CLAIMS_COOKIE: &str = "quire_claims";

/// Cookies a site reads at most (a browser keeps 4 KB a cookie).
const MAX_COOKIE_BYTES: usize = 4096;

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    let values = headers
        .get_all(header::COOKIE)
        .into_iter()
        .filter_map(|v| v.to_str().ok());
    quire_core::cookies::value(values, name, MAX_COOKIE_BYTES).map(str::to_owned)
}

/// An unsigned claim's value: booleans and numbers as such, else text.
fn claim_value(text: &str) -> serde_json::Value {
    match text {
        "true" => serde_json::Value::Bool(true),
        "false" => serde_json::Value::Bool(false),
        _ => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| serde_json::Value::String(text.to_owned()), serde_json::Value::Number),
    }
}

/// A visitor of a `visitor-auth` site without a valid token: sent to the
/// site's sign-in URL with where they were going, or told to sign in.
fn sign_in(fallback_url: Option<String>, origin: &str, uri: &Uri) -> Response {
    let Some(url) = fallback_url else {
        let body = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"robots\" content=\"noindex, nofollow\"><title>Sign in required</title></head><body><h1>Sign in required</h1><p>This documentation is only available to signed-in visitors.</p></body></html>\n";
        return html(StatusCode::UNAUTHORIZED, body.to_owned(), false);
    };
    let path: String = uri.path().to_owned();
    let location = format!("{origin}{path}");
    let separator = if url.contains('?') { '&' } else { '?' };
    let target = format!("{url}{separator}location={}", encode_component(&location));
    let mut res = StatusCode::FOUND.into_response();
    if let Ok(v) = HeaderValue::from_str(&target) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res
}

fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(&v.replace('+', " ")))
    })
}

fn markdown_response(body: String, indexable: bool) -> Response {
    let mut res = text(StatusCode::OK, "text/markdown; charset=utf-8", body);
    if !indexable {
        res.headers_mut()
            .insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    res
}

/// The URL path of a site space: the site's base, then the section's and
/// the space's path unless they are the defaults.
fn space_url(base: &str, section: Option<&PublishedSection>, space: &PublishedSpace) -> String {
    let mut url = base.to_owned();
    if let Some(section) = section.filter(|s| !s.default) {
        url.push('/');
        url.push_str(&section.section.path);
    }
    if !space.default {
        url.push('/');
        url.push_str(&space.site_space.path);
    }
    url
}

/// The document pages of a revision a reader goes through with previous
/// and next (not hidden, nor under a hidden page), in tree order; computed
/// once per revision and kept by the router.
struct ReadingOrder {
    documents: Vec<String>,
    index: std::collections::HashMap<String, usize>,
    /// Pages with an adaptive-content condition, and the condition.
    conditioned: Vec<(String, String)>,
}

impl ReadingOrder {
    fn of(snapshot: &Snapshot) -> ReadingOrder {
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
    fn withheld(&self, site: &PublishedSite) -> Withheld {
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
struct Withheld(std::collections::HashSet<String>);

impl Withheld {
    /// Whether `id` or a page above it is withheld.
    fn page(&self, snapshot: &Snapshot, id: &str) -> bool {
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
    fn documents<'o>(&'o self, snapshot: &'o Snapshot, order: &'o ReadingOrder) -> impl Iterator<Item = &'o String> {
        order.documents.iter().filter(move |id| !self.page(snapshot, id))
    }
}

/// How far up a page's ancestors are followed (page trees are far shallower).
const MAX_DEPTH: usize = 256;

/// Reading orders by revision id (revisions never change). Bounded: it is
/// emptied when it holds more than this many.
const ORDER_CACHE: usize = 256;

fn reading_order(state: &SiteState, snapshot: &Snapshot) -> Arc<ReadingOrder> {
    let key = &snapshot.revision.id;
    if let Ok(cache) = state.orders.lock()
        && let Some(order) = cache.get(key)
    {
        return order.clone();
    }
    let order = Arc::new(ReadingOrder::of(snapshot));
    if let Ok(mut cache) = state.orders.lock() {
        if cache.len() >= ORDER_CACHE {
            cache.clear();
        }
        cache.insert(key.clone(), order.clone());
    }
    order
}

/// Pages a reader walks through: document pages not hidden (nor under a
/// hidden page), in tree order.
fn visible_pages(snapshot: &Snapshot) -> Vec<(String, usize)> {
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

struct SpaceLinks<'a> {
    snapshot: &'a Snapshot,
    space_base: &'a str,
    withheld: &'a Withheld,
    /// The page being rendered (relative links start from it).
    page: Option<&'a str>,
    /// The documents of the reusable content it includes, by include path.
    includes: HashMap<String, Document>,
    /// The OpenAPI operations it shows.
    operations: HashMap<OpenApiOperation, quire_openapi::Operation>,
    /// The OpenAPI schemas it shows.
    schemas: HashMap<OpenApiSchemas, Vec<(String, quire_openapi::Schema)>>,
    /// The site as this visitor sees it, for conditional blocks (none
    /// are shown without it).
    site: Option<&'a PublishedSite>,
    /// What expressions read: `{"space": {"vars": …}, "page": {"vars": …}}`.
    variables: serde_json::Value,
}

impl<'a> SpaceLinks<'a> {
    fn new(snapshot: &'a Snapshot, space_base: &'a str, withheld: &'a Withheld) -> SpaceLinks<'a> {
        SpaceLinks {
            snapshot,
            space_base,
            withheld,
            page: None,
            includes: HashMap::new(),
            operations: HashMap::new(),
            schemas: HashMap::new(),
            site: None,
            variables: serde_json::Value::Null,
        }
    }

    fn page_url(&self, id: &str) -> String {
        format!("{}/{}", self.space_base, self.snapshot.path_of(id))
    }
}

impl Links for SpaceLinks<'_> {
    fn page(&self, page_id: &str, anchor: Option<&str>) -> Option<String> {
        self.snapshot.tree.pages.get(page_id)?;
        if self.withheld.page(self.snapshot, page_id) {
            return None;
        }
        let mut url = self.page_url(page_id);
        if let Some(a) = anchor {
            url.push('#');
            url.push_str(a);
        }
        Some(url)
    }

    fn page_title(&self, page_id: &str) -> Option<String> {
        if self.withheld.page(self.snapshot, page_id) {
            return None;
        }
        self.snapshot.tree.pages.get(page_id).map(|p| p.meta.title.clone())
    }

    fn file(&self, file_id: &str) -> Option<FileLink> {
        self.snapshot.file(file_id).map(|f| FileLink {
            url: format!("{}/~files/{}", self.space_base, f.id),
            name: f.name.clone(),
            width: f.width,
            height: f.height,
        })
    }

    fn relative(&self, path: &str) -> Option<LinkTarget> {
        let anchor = path
            .split_once('#')
            .map(|(_, a)| a.to_owned())
            .filter(|a| !a.is_empty());
        match quire_engine::links::resolve(self.snapshot, self.page?, path, "")? {
            Target::Page(page) => Some(match anchor {
                Some(anchor) => LinkTarget::Anchor {
                    page: Some(page),
                    anchor,
                },
                None => LinkTarget::Page { page },
            }),
            Target::File(file) => Some(LinkTarget::File { file }),
            _ => None,
        }
    }

    fn include(&self, path: &str) -> Option<&Document> {
        self.includes.get(path)
    }

    fn openapi(&self, operation: &OpenApiOperation) -> Option<&quire_openapi::Operation> {
        self.operations.get(operation)
    }

    fn openapi_schemas(&self, pointer: &OpenApiSchemas) -> Option<&[(String, quire_openapi::Schema)]> {
        self.schemas.get(pointer).map(Vec::as_slice)
    }

    fn expression(&self, expression: &str) -> Option<String> {
        let parsed = quire_core::expression::parse(expression).ok()?;
        match quire_core::expression::value_of(&parsed, &self.variables) {
            serde_json::Value::Null => None,
            serde_json::Value::String(text) => Some(text),
            other => Some(other.to_string()),
        }
    }

    fn shows(&self, condition: &str) -> bool {
        self.site.is_some_and(|site| site.shows(Some(condition)))
    }
}

/// A public spec: its reference as HTML, or (`/raw`) its document as it
/// was given; 404 for anything else.
async fn public_spec(org: &str, slug: &str, rest: &[String], state: &SiteState) -> quire_app::AppResult<Response> {
    let (spec, version) = match quire_app::openapi::published(&state.app, org, slug).await {
        Ok(found) => found,
        Err(err) if err.is_not_found() => return Ok(not_found(None)),
        Err(err) => return Err(err),
    };
    match rest {
        [] => {
            let Ok(parsed) = quire_openapi::parse(&version.content) else {
                return Ok(not_found(None));
            };
            let body = crate::openapi::reference(&parsed);
            Ok(html(StatusCode::OK, layout::bare(&parsed.title, &body), true))
        }
        [raw] if raw == "raw" => {
            let content_type = if version.format == "json" {
                "application/json; charset=utf-8"
            } else {
                "application/yaml; charset=utf-8"
            };
            let mut res = text(StatusCode::OK, content_type, version.content);
            res.headers_mut()
                .insert("access-control-allow-origin", HeaderValue::from_static("*"));
            tracing::debug!(spec = %spec.id, "public OpenAPI document served");
            Ok(res)
        }
        _ => Ok(not_found(None)),
    }
}

/// The parsed latest version of an organization's spec (cached by version).
async fn spec_for_page(
    state: &SiteState,
    org_id: &str,
    snapshot: &Snapshot,
    page_id: &str,
    spec_ref: &str,
) -> quire_app::AppResult<Option<Arc<quire_openapi::Spec>>> {
    // GitBook's `{% openapi src="../.gitbook/assets/api.yaml" %}` names a
    // file of the repository, relative to the page.
    if !spec_ref.contains("://")
        && spec_ref.contains(['/', '.'])
        && let Some(Target::File(id)) = quire_engine::links::resolve(snapshot, page_id, spec_ref, "")
        && let Some(file) = snapshot.file(&id)
    {
        let key = format!("blob:{}", file.blob);
        if let Some(found) = cached_spec(state, &key) {
            return Ok(Some(found));
        }
        let bytes = published::file_bytes(&state.app, file).await?;
        let Ok(spec) = quire_openapi::parse(&String::from_utf8_lossy(&bytes)) else {
            return Ok(None);
        };
        return Ok(Some(keep_spec(state, key, spec)));
    }
    let Some(version) = quire_app::openapi::latest_for_pages(&state.app, org_id, spec_ref).await? else {
        return Ok(None);
    };
    if let Some(found) = cached_spec(state, &version.id) {
        return Ok(Some(found));
    }
    let Ok(spec) = quire_openapi::parse(&version.content) else {
        return Ok(None);
    };
    Ok(Some(keep_spec(state, version.id, spec)))
}

fn cached_spec(state: &SiteState, key: &str) -> Option<Arc<quire_openapi::Spec>> {
    state.specs.lock().ok()?.get(key).cloned()
}

/// Keeps a parsed spec for later pages (at most 32; all go when full).
fn keep_spec(state: &SiteState, key: String, spec: quire_openapi::Spec) -> Arc<quire_openapi::Spec> {
    let spec = Arc::new(spec);
    if let Ok(mut cache) = state.specs.lock() {
        if cache.len() >= 32 {
            cache.clear();
        }
        cache.insert(key, spec.clone());
    }
    spec
}

/// Navigation around a page (or a search).
#[allow(clippy::too_many_arguments)]
fn shell(
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
    // The tree shows the top level (and what top-level groups hold), and
    // the children of the current page and of each of its ancestors: a
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
        tree.push(TreeEntry {
            depth,
            group,
            link: NavLink {
                title: meta.title.clone(),
                href,
                current: Some(id.as_str()) == page_id,
            },
        });
        if open_pages.contains(id.as_str()) || (group && depth == 0) {
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
    let (site_title, look) = look(&visit.site.site, Some(space));
    Shell {
        wide: false,
        tree_hidden: false,
        look,
        site_title,
        page_title: meta.map(|m| m.title.clone()).unwrap_or_default(),
        description: meta.and_then(|m| m.description.clone()),
        indexable: visit.site.indexable(),
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
    }
}

/// A file of the space, with an ETag (its content hash) and a long cache
/// life; `None` when the space has no such file.
async fn file(
    state: &SiteState,
    snapshot: &Snapshot,
    id: &str,
    headers: &HeaderMap,
) -> quire_app::AppResult<Option<Response>> {
    let Some(file) = snapshot.file(id) else {
        return Ok(None);
    };
    let etag = format!("\"{}\"", file.blob);
    let cache = HeaderValue::from_static("public, max-age=86400");
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        let mut res = StatusCode::NOT_MODIFIED.into_response();
        res.headers_mut().insert(header::CACHE_CONTROL, cache);
        if let Ok(v) = HeaderValue::from_str(&etag) {
            res.headers_mut().insert(header::ETAG, v);
        }
        return Ok(Some(res));
    }
    let bytes = published::file_bytes(&state.app, file).await?;
    let mut res = Response::new(Body::from(bytes));
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, cache);
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    let content_type = HeaderValue::from_str(&file.content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    h.insert(header::CONTENT_TYPE, content_type);
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    // An uploaded HTML or SVG file opened directly runs in a sandbox: no
    // script of it acts on the site's origin.
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("sandbox"));
    Ok(Some(res))
}

/// Every document page of the site the visitor may read, in order, for the
/// index files.
async fn listed(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Vec<Listed>> {
    let mut out = Vec::new();
    for (section, space) in visit.site.spaces() {
        let snapshot = published::snapshot(&state.app, &space.space).await?;
        let order = reading_order(state, &snapshot);
        let withheld = order.withheld(&visit.site);
        let space_base = space_url(&visit.base, section, space);
        let links = SpaceLinks::new(&snapshot, &space_base, &withheld);
        let group = match section {
            Some(s) if s.spaces.len() > 1 => format!("{} / {}", s.section.title, space.space.title),
            Some(s) => s.section.title.clone(),
            None => space.space.title.clone(),
        };
        for id in withheld.documents(&snapshot, &order) {
            let meta = &snapshot.tree.pages[id].meta;
            out.push(Listed {
                group: group.clone(),
                title: meta.title.clone(),
                description: meta.description.clone(),
                url: format!("{}{}", visit.origin, links.page_url(id)),
            });
        }
    }
    Ok(out)
}

/// The feed of the site's 20 most recent merges, each linking to its space.
async fn feed(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Response> {
    let merges = published::recent_changes(&state.app, &visit.site, 20).await?;
    let changes: Vec<outputs::Change> = merges
        .into_iter()
        .filter_map(|m| {
            let (section, space) = visit
                .site
                .spaces()
                .into_iter()
                .find(|(_, s)| s.space.id == m.space_id)?;
            let title = match (&m.subject, m.number) {
                (Some(subject), Some(number)) => format!("{} (#{number}) in {}", subject, space.space.title),
                _ => format!("Update to {}", space.space.title),
            };
            Some(outputs::Change {
                title,
                url: format!("{}{}/", visit.origin, space_url(&visit.base, section, space)),
                guid: m.revision_id,
                date: m.created_at.to_rfc2822(),
            })
        })
        .collect();
    let site_url = format!("{}{}/", visit.origin, visit.base);
    let mut res = text(
        StatusCode::OK,
        "application/rss+xml; charset=utf-8",
        outputs::rss(&visit.site.site.title, &site_url, &changes),
    );
    if !visit.site.indexable() {
        res.headers_mut()
            .insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    Ok(res)
}

/// Every page of the site the visitor may read as markdown, one after the
/// other.
async fn llms_full(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Response> {
    let mut out = format!("# {}\n", visit.site.site.title);
    for (_, space) in visit.site.spaces() {
        let snapshot = published::snapshot(&state.app, &space.space).await?;
        let order = reading_order(state, &snapshot);
        let withheld = order.withheld(&visit.site);
        for id in withheld.documents(&snapshot, &order) {
            let meta = &snapshot.tree.pages[id].meta;
            let body = published::markdown(&state.app, &snapshot, id)
                .await?
                .unwrap_or_default();
            out.push('\n');
            let body = for_visitor(&body, &visit.site);
            out.push_str(&outputs::markdown(&meta.title, meta.description.as_deref(), &body));
        }
    }
    Ok(markdown_response(out, visit.site.indexable()))
}

/// What a page's expressions read: the space's variables (GitBook's
/// `.gitbook/vars.yaml`, synced as a file) and the page's (front matter
/// `vars`).
async fn variables(
    state: &SiteState,
    snapshot: &Snapshot,
    front_matter: Option<&str>,
) -> quire_app::AppResult<serde_json::Value> {
    let page = front_matter
        .and_then(|f| quire_content::markdown::front_matter_mapping(f, "vars"))
        .unwrap_or_else(|| serde_json::json!({}));
    let file = snapshot
        .files
        .iter()
        .map(|(_, file)| file)
        .filter(|f| {
            f.git
                .as_ref()
                .is_some_and(|g| g.path == ".gitbook/vars.yaml" || g.path.ends_with("/.gitbook/vars.yaml"))
        })
        .min_by_key(|f| f.git.as_ref().map_or(0, |g| g.path.len()));
    let space = match file {
        Some(file) if file.size <= 64 * 1024 => {
            let bytes = published::file_bytes(&state.app, file).await?;
            quire_content::markdown::variables(&String::from_utf8_lossy(&bytes))
        }
        _ => None,
    }
    .unwrap_or_else(|| serde_json::json!({}));
    Ok(serde_json::json!({ "space": { "vars": space }, "page": { "vars": page } }))
}

/// A page's markdown as this visitor may read it: conditional blocks
/// whose condition does not hold for them left out (the markdown is as
/// stored when it has none).
fn for_visitor<'b>(body: &'b str, site: &PublishedSite) -> std::borrow::Cow<'b, str> {
    if !body.contains("{% if ") {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut document = Document::from_markdown(body);
    document.retain_conditions(&|condition| site.shows(Some(condition)));
    std::borrow::Cow::Owned(document.to_markdown())
}

/// Results of a search in the space being read, rendered on the server.
async fn search_page(
    state: &SiteState,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    space_base: &str,
    query: &str,
) -> quire_app::AppResult<Response> {
    let order = reading_order(state, snapshot);
    let withheld = order.withheld(&visit.site);
    let (results, parsed) = quire_app::search::in_published_space(&state.app, &space.space, query, 20).await?;
    let results: Vec<_> = results
        .into_iter()
        .filter(|hit| !withheld.page(snapshot, &hit.page_id))
        .collect();
    let shell = shell(
        &order,
        &withheld,
        visit,
        section,
        space,
        snapshot,
        space_base,
        None,
        &Document::default(),
        query,
    );
    let t = shell.look.language.strings();
    let shell = Shell {
        wide: false,
        tree_hidden: false,
        page_title: t.search.into(),
        indexable: false,
        canonical: None,
        ..shell
    };
    let links = SpaceLinks::new(snapshot, space_base, &withheld);
    let mut body = String::from("<h1>");
    crate::html::push_escaped(&mut body, t.search);
    body.push_str("</h1>");
    if results.is_empty() {
        let (before, after) = t.no_results_for();
        body.push_str("<p>");
        crate::html::push_escaped(&mut body, before);
        body.push_str("<strong>");
        crate::html::push_escaped(&mut body, query);
        body.push_str("</strong>");
        crate::html::push_escaped(&mut body, after);
        body.push_str("</p>");
    } else {
        body.push_str("<ul class=\"results\">");
        for hit in results {
            body.push_str(&format!(
                "<li><a href=\"{}\">",
                crate::html::safe_url(&links.page_url(&hit.page_id))
            ));
            crate::html::push_escaped(&mut body, &hit.title);
            body.push_str("</a>");
            if let Some(section) = hit.sections.iter().find(|s| s.matched).or(hit.sections.first()) {
                body.push_str("<p>");
                let matched = quire_search::matched_ranges(&section.body, &parsed);
                crate::html::push_marked(&mut body, &section.body, &matched);
                body.push_str("</p>");
            }
            body.push_str("</li>");
        }
        body.push_str("</ul>");
    }
    Ok(html(StatusCode::OK, layout::page(&shell, &body), false))
}
