//! `{space URL}/~gitbook/pdf`: the space, or a page (`?page=` with its
//! subpages, `&only=yes` alone), as a PDF of what this reader may read:
//! withheld pages left out and conditional blocks as the page shows them.
//! The page actions menu's "Export as PDF" leads here. Typesetting and its
//! cache are `quire-pdf-export`'s; the answer is the PDF itself, inline.

use super::*;

pub(super) async fn answer(
    state: &SiteState,
    visit: &Visit,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    page: Option<String>,
    only: bool,
) -> quire_app::AppResult<Response> {
    let order = reading_order(state, snapshot);
    let withheld = visit.withheld(&order);
    if let Some(id) = &page
        && (!snapshot.tree.pages.contains_key(id) || withheld.page(snapshot, id))
    {
        return Ok(not_found(Some(visit)));
    }
    let request = quire_pdf_export::PdfRequest { page, only };
    let visible = |id: &str| !withheld.page(snapshot, id);
    let shows = |condition: &str| visit.shows(condition);
    let (file_name, bytes) =
        quire_pdf_export::published(&state.app, &space.space, snapshot, &request, &visible, &shows).await?;
    let mut res = (StatusCode::OK, bytes).into_response();
    let headers = res.headers_mut();
    quire_http::files::headers(headers, "application/pdf", &file_name);
    if !visit.indexable() {
        headers.insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    Ok(res)
}
