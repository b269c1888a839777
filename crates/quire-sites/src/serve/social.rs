//! `{space URL}/~gitbook/ogimage/{pageId}`: a page's social preview image
//! (its `og:image` and `twitter:image` when the site sets no
//! `socialPreview.url`), as GitBook's: the site's title, the page's title
//! and description, in the site's accent colour and default theme, drawn
//! by `quire-social-image` into a 1200×630 PNG. A page that is not a
//! document of the space, or is withheld from this visitor, is not found.
//! The answer is kept by the page cache like a page; browsers and shared
//! caches may keep it a day (only the visitor's own on a site that is not
//! public).

use tokio::sync::Semaphore;

use super::*;

/// Cards drawn at once on a node (each some 50 ms of one core); more wait
/// their turn, so image requests cannot take every core.
static DRAWING: Semaphore = Semaphore::const_new(2);

pub(super) async fn answer(
    state: &SiteState,
    visit: &Visit,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    page_id: &str,
) -> quire_app::AppResult<Response> {
    let order = reading_order(state, snapshot);
    let withheld = visit.withheld(&order);
    let Some(page) = snapshot
        .tree
        .pages
        .get(page_id)
        .filter(|p| p.meta.kind == PageKind::Document && !withheld.page(snapshot, page_id))
    else {
        return Ok(not_found(Some(visit)));
    };
    let (site_title, look) = look(
        &visit.site.site,
        Some(space),
        &visit.base,
        &look::addresses_only,
        &|c| visit.shows(c),
    );
    let dark = look.theme.as_deref() == Some("dark");
    let accent = look
        .accent
        .map(|(light, dark_accent)| if dark { dark_accent } else { light })
        .map(|accent| quire_site_render::color::readable_accent(&accent, dark).unwrap_or(accent))
        .unwrap_or_default();
    let card = quire_social_image::Card {
        site_title,
        page_title: page.meta.title.clone(),
        description: page.meta.description.clone().filter(|d| !d.trim().is_empty()),
        accent,
        dark,
    };
    let png = {
        let _turn = DRAWING.acquire().await.map_err(anyhow::Error::from)?;
        tokio::task::spawn_blocking(move || quire_social_image::render(&card))
            .await
            .map_err(anyhow::Error::from)?
            .map_err(anyhow::Error::from)?
    };
    let mut res = (StatusCode::OK, png).into_response();
    let headers = res.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    if visit.indexable() {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
    } else {
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, max-age=86400"),
        );
        headers.insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    Ok(res)
}
