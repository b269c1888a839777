//! What the operator decides about the application: built once by the
//! binary from its flags and environment and handed down. No library crate
//! reads the environment.

use std::path::PathBuf;

/// The application's settings; [`Settings::default`] is what a binary with
/// no flags uses (and what tests run with).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where Git Sync keeps its clones between syncs (losing it only costs
    /// transfers).
    pub git_cache_dir: PathBuf,
    /// Pages a website import reads at most.
    pub import_max_pages: usize,
    /// Directories PDF fonts are read from.
    pub pdf_font_dirs: Vec<PathBuf>,
    /// The `xmlsec1` command SAML responses are verified with.
    pub xmlsec1: PathBuf,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            git_cache_dir: std::env::temp_dir().join("quire-git"),
            import_max_pages: Settings::DEFAULT_IMPORT_MAX_PAGES,
            pdf_font_dirs: Settings::system_font_dirs(),
            xmlsec1: PathBuf::from("xmlsec1"),
        }
    }
}

impl Settings {
    /// Pages a website import reads at most, unless the operator says.
    pub const DEFAULT_IMPORT_MAX_PAGES: usize = 200;

    /// The system's font directories (Linux and macOS).
    pub fn system_font_dirs() -> Vec<PathBuf> {
        [
            "/usr/share/fonts",
            "/usr/local/share/fonts",
            "/Library/Fonts",
            "/System/Library/Fonts",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect()
    }
}
