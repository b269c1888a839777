//! The answer for a page of a site space: the page the path names (or the
//! space's first), unless withheld from this visitor; an old path the
//! space's `.gitbook.yaml` redirects, a Git-synced page's file path, or a
//! page's path in other letter case, is a 308 to its page, and so is a
//! page's path with a trailing slash; then the page as markdown or as
//! HTML.

use super::*;

/// The page `path` of `space` (empty: its first page), as this visitor may
/// read it. `uri` is the request when a browser asked (a path that names
/// the page otherwise than its URL is then redirected to it).
#[allow(clippy::too_many_arguments)]
pub(super) async fn page(
    state: &SiteState,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    path: &str,
    markdown: bool,
    uri: Option<&Uri>,
) -> quire_app::AppResult<Response> {
    let space_base = space_url(&visit.base, section, space);
    let order = reading_order(state, snapshot);
    let withheld = visit.withheld(&order);
    let page_id = if path.is_empty() {
        withheld.documents(snapshot, &order).next().cloned()
    } else {
        snapshot.page_by_path(path)
    };
    let absent = page_id.is_none();
    let Some(page_id) = page_id.filter(|id| !withheld.page(snapshot, id)) else {
        let target = match absent {
            true => match published::redirect(&state.app, &space.space, path).await? {
                Some(target) => Some(target),
                None => snapshot.page_by_git_path(path),
            },
            false => None,
        };
        if let Some(target) = target
            && snapshot.tree.pages.contains_key(&target)
            && !withheld.page(snapshot, &target)
        {
            let links = SpaceLinks::new(snapshot, &space_base, &withheld);
            let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
            if let Ok(v) = HeaderValue::from_str(&encode_uri(&links.page_url(&target))) {
                res.headers_mut().insert(header::LOCATION, v);
            }
            return Ok(res);
        }
        if absent
            && let Some(uri) = uri
            && let Some(url) = super::redirect::by_case(state, visit, section, space, path, uri).await?
        {
            return Ok(super::redirect::moved(StatusCode::PERMANENT_REDIRECT, &url, uri));
        }
        return Ok(not_found(Some(visit)));
    };
    // A page's URL has no trailing slash (a space's root keeps its own).
    if let Some(uri) = uri
        && !path.is_empty()
        && uri.path().ends_with('/')
    {
        let mut url = SpaceLinks::new(snapshot, &space_base, &withheld).page_url(&page_id);
        if uri.path().trim_end_matches('/').ends_with(".md") {
            url.push_str(".md");
        }
        return Ok(super::redirect::moved(
            StatusCode::PERMANENT_REDIRECT,
            &encode_uri(&url),
            uri,
        ));
    }
    let meta = &snapshot.tree.pages[&page_id].meta;
    let body = published::markdown(&state.app, snapshot, &page_id)
        .await?
        .unwrap_or_default();
    if markdown {
        return Ok(markdown_response(
            outputs::markdown(&meta.title, meta.description.as_deref(), &visit.markdown(&body)),
            visit.indexable(),
        ));
    }
    let mut document = Document::from_markdown(&body);
    document.remove_title_heading(&meta.title);
    // Conditional blocks this visitor may not see go before anything reads
    // the document (the outline lists its headings).
    document.retain_conditions(&|condition| visit.shows(condition));
    let mut links = SpaceLinks::new(snapshot, &space_base, &withheld);
    links.page = Some(&page_id);
    links.visit = Some(visit);
    // Only a page that shows an expression reads the space's variables
    // (a file of the space: blob I/O kept off every other page view).
    if body.contains("class=\"expression\"") {
        links.variables = variables(state, snapshot, document.front_matter.as_deref()).await?;
    }
    for block in document.walk() {
        if let Block::OpenApiOperation(pointer) = block
            && !links.operations.contains_key(pointer)
            && let Some(spec) =
                spec_for_page(state, &space.space.organization_id, snapshot, &page_id, &pointer.spec).await?
            && let Some(operation) = spec.operation(&pointer.path, &pointer.method)
        {
            links.operations.insert(pointer.clone(), operation);
        }
        if let Block::OpenApiSchemas(pointer) = block
            && !links.schemas.contains_key(pointer)
            && let Some(spec) =
                spec_for_page(state, &space.space.organization_id, snapshot, &page_id, &pointer.spec).await?
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
        // The page's icon (front matter `icon: rocket`, as GitBook writes
        // it), drawn in the site's icon style; an unknown one is not shown.
        if let Some(icon) = document
            .front_matter
            .as_deref()
            .and_then(|f| quire_content::markdown::front_matter_value(f, "icon"))
            .filter(|icon| quire_site_render::icon::known(icon))
        {
            quire_site_render::icon::push_placeholder(&mut article, &icon);
            article.push(' ');
        }
        quire_site_render::html::push_escaped(&mut article, &meta.title);
        article.push_str("</h1>");
    }
    if let Some(d) = meta
        .description
        .as_deref()
        .filter(|d| !d.is_empty() && page_layout.description)
    {
        article.push_str("<p class=\"lead\">");
        quire_site_render::html::push_escaped(&mut article, d);
        article.push_str("</p>");
    }
    article.push_str(&render::document(&document, &links));
    let mut shell = shell(
        &order,
        &withheld,
        visit,
        section,
        space,
        snapshot,
        &space_base,
        Some(&page_id),
        &document,
        "",
    );
    if shell.look.page_actions.iter().any(|a| a == "git")
        && let Some(file) = meta.git.as_ref().map(|g| g.path.clone())
    {
        shell.look.edit_url = published::edit_url(&state.app, &space.space, &file).await?;
    }
    if shell.look.page_actions.iter().any(|a| a == "pdf") {
        shell.look.pdf_url = Some(format!(
            "{space_base}/~gitbook/pdf?page={}&only=yes",
            encode_component(&page_id)
        ));
    }
    // Without an image of the site's own (`socialPreview.url`), links to
    // the page show the one drawn for it.
    if shell.look.social_image.is_none() {
        shell.look.social_image = Some(format!(
            "{}{}/~gitbook/ogimage/{}",
            visit.origin,
            encode_uri(&space_base),
            encode_component(&page_id)
        ));
        shell.look.social_image_size = Some((quire_social_image::WIDTH, quire_social_image::HEIGHT));
    }
    if shell.look.page_actions.iter().any(|a| a == "assistant") && super::ask::offered(state, visit) {
        shell.look.ask_url = Some(format!("{}/~gitbook/ask", visit.base));
    }
    shell.wide = page_layout.wide;
    if !page_layout.table_of_contents {
        shell.tree.clear();
        shell.tree_hidden = true;
    }
    if !page_layout.outline {
        shell.outline.clear();
    }
    if page_layout.metadata
        && let Some((_, updated)) = snapshot.stamps.get(&page_id)
    {
        shell.updated = Some(quire_core::Timestamp(*updated).to_rfc3339());
    }
    if !page_layout.pagination {
        shell.previous = None;
        shell.next = None;
    }
    Ok(html(StatusCode::OK, layout::page(&shell, &article), visit.indexable()))
}
