//! GitBook's Git layout: a space as a folder of markdown files with a
//! table of contents (`SUMMARY.md`), a configuration (`.gitbook.yaml`),
//! assets (`.gitbook/assets`) and reusable content (`.gitbook/includes`).
//!
//! [`plan`] reads a repository's files into the pages, files and includes
//! of a space; [`export`] writes a space back as files, keeping every file
//! whose content did not change byte for byte.

mod config;
pub mod export;
mod plan;
pub mod summary;

pub use config::{Config, clean_path};
pub use plan::{
    ImportPlan, MAX_FILE_BYTES, MAX_PAGE_BYTES, PlannedInclude, PlannedKind, PlannedPage, RepoFile, Skipped, folder_of,
    natural_cmp, plan, resolve_relative,
};
