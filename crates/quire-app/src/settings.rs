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
    /// The OpenID Connect provider people may sign in with, if any.
    pub oidc: Option<OidcSettings>,
    /// The memory this node's caches may take in all.
    pub cache_budget: quire_core::memory::CacheBudget,
}

/// One OpenID Connect provider (Google, Keycloak, Authentik, Entra ID, ...):
/// Quire is a confidential client using the authorization code flow with
/// PKCE, its redirect URI `<public URL>/auth/oidc/callback`.
#[derive(Clone)]
pub struct OidcSettings {
    /// The issuer URL; its `/.well-known/openid-configuration` is read.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    /// What the sign-in button says ("Sign in with {name}").
    pub name: String,
    /// Email domains whose people may get an account on first sign-in;
    /// empty: anyone the provider vouches for.
    pub allowed_domains: Vec<String>,
    /// Take the `email` claim without `email_verified: true` (Entra ID sends
    /// no such claim; only for providers whose emails are all their own).
    pub trust_email: bool,
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("name", &self.name)
            .field("allowed_domains", &self.allowed_domains)
            .field("trust_email", &self.trust_email)
            .finish_non_exhaustive()
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            git_cache_dir: std::env::temp_dir().join("quire-git"),
            import_max_pages: Settings::DEFAULT_IMPORT_MAX_PAGES,
            pdf_font_dirs: Settings::system_font_dirs(),
            xmlsec1: PathBuf::from("xmlsec1"),
            oidc: None,
            cache_budget: quire_core::memory::CacheBudget::default(),
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
