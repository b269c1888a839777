//! Published pages rendered, with no I/O: what a visitor's browser reads,
//! made from the typed document and the site's settings. The published
//! site itself (`quire_sites::serve`) finds what to show and calls these.
//!
//! - `render` turns a page's typed document into HTML, `sanitize` passes
//!   GitBook's HTML through an allow-list, `embed` frames known players,
//!   `highlight` colours code on the server (in the colours of the theme
//!   a site chose, from the generated table `code_themes`), `math` writes
//!   formulas as MathML;
//! - `layout` builds the page around it (navigation, breadcrumbs, outline,
//!   theme switch) with the interface strings of the site's language from
//!   `i18n`;
//! - `outputs` writes the machine-readable files (`sitemap.xml`,
//!   `robots.txt`, `llms.txt`, `rss.xml`, markdown), `openapi` the
//!   operations of OpenAPI specs (blocks on pages, and the public reference
//!   of a spec);
//! - `html`: escaping and marking what a search matched; `color`: accents
//!   made readable (WCAG AA) in both themes; `icon`: GitBook's icons drawn
//!   in the site's icon style (`quire-icons`).

pub mod code_themes;
pub mod color;
pub mod embed;
pub mod highlight;
pub mod html;
pub mod i18n;
pub mod icon;
pub mod layout;
pub mod math;
pub mod openapi;
pub mod outputs;
pub mod render;
pub mod sanitize;
