//! Content from where users keep it, and back, without I/O: the callers
//! (Git Sync and the importers in `quire-app`) fetch and store; this crate
//! decides what the bytes mean.
//!
//! - [`gitbook`]: a repository in GitBook's layout (`.gitbook.yaml`,
//!   `SUMMARY.md`, folders with `README.md`, front matter, assets and
//!   includes) read into an [`gitbook::ImportPlan`], and a space written
//!   back as files ([`gitbook::export`]);
//! - [`html`]: a web page's main content as markdown, with the pages and
//!   images it points at;
//! - [`archive`]: zip archives of markdown read into files;
//! - [`content_type_of`]: media types by file extension.

pub mod archive;
pub mod gitbook;
pub mod html;
mod media;

pub use media::content_type_of;
