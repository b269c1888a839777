//! Quire's published documentation sites, served as HTML by Quire itself.
//!
//! - [`router`] answers every request the API does not: a site at
//!   `{public URL}/{basename}/...`, or at `/` when the request's `Host` is
//!   the site's custom hostname (see `serve`).
//! - `render` turns a page's typed document into HTML, `highlight` colours
//!   code on the server, `layout` builds the page around it (navigation,
//!   breadcrumbs, outline, theme switch) with the interface strings of
//!   the site's language from `i18n`, `outputs` the machine-readable
//!   files (`sitemap.xml`, `robots.txt`, `llms.txt`, `llms-full.txt`),
//!   `openapi` the operations of OpenAPI specs (blocks on pages, and the
//!   public reference of a spec at `/~openapi/{organization}/{slug}`).
//!   These are pure; `serve` does the I/O through `quire_app::sites::published`.
//! - `security` sets the headers every answer carries (a content security
//!   policy that admits the pages' own scripts by hash, no sniffing, no
//!   framing by other origins).

mod embed;
mod highlight;
pub mod html;
mod i18n;
mod layout;
mod openapi;
mod outputs;
pub mod render;
mod sanitize;
mod security;
mod serve;

pub use serve::router;
