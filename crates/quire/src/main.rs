//! The `quire` command: `serve`, `migrate`, `token create|list|revoke`,
//! `sign-in-link`, `password-link`, `search reindex`, `backup` and `restore`.
//! The data directory and backups are the running account's alone
//! ([`owner_only`]).

mod backup;
mod owner_only;

use std::net::SocketAddr;
use std::path::PathBuf;

use std::io::IsTerminal;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use quire_adapters::{FetchConfig, Fetcher};
use quire_app::{App, accounts};
use quire_server::AppState;
use quire_store::Db;
use tracing_subscriber::EnvFilter;

/// jemalloc with a background thread hands freed memory back to the system
/// within about a second after a large request; glibc's allocator kept
/// ~130 MB resident after a 32 MB request.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings, read at start-up: purge unused pages from a
/// background thread, dirty ones after 1 s.
#[allow(non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

/// jemalloc's `(allocated, resident)` bytes, for the memory metrics.
fn heap_figures() -> Option<(u64, u64)> {
    tikv_jemalloc_ctl::epoch::advance().ok()?;
    let allocated = tikv_jemalloc_ctl::stats::allocated::read().ok()?;
    let resident = tikv_jemalloc_ctl::stats::resident::read().ok()?;
    Some((u64::try_from(allocated).ok()?, u64::try_from(resident).ok()?))
}

#[derive(Parser)]
#[command(name = "quire", version, about = "Self-hosted documentation platform")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server.
    Serve(ServeArgs),
    /// Bring the database schema up to date and exit.
    Migrate(StorageArgs),
    /// Manage API tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Print a one-time link that signs a person in (creating them with
    /// `--name` when nobody has that email): the first admin's way in on a
    /// laptop. Valid for 15 minutes.
    SignInLink {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: Option<String>,
        /// The server's public URL the link starts with.
        #[arg(long, env = "QUIRE_PUBLIC_URL", default_value = "http://127.0.0.1:8080")]
        public_url: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
    /// Print a one-time link to set a password: a reset for a person with
    /// an account (24 hours), an invitation for an email an organization
    /// invited (7 days).
    PasswordLink {
        #[arg(long)]
        email: String,
        /// The server's public URL the link starts with.
        #[arg(long, env = "QUIRE_PUBLIC_URL", default_value = "http://127.0.0.1:8080")]
        public_url: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
    /// Manage the search index.
    Search {
        #[command(subcommand)]
        command: SearchCommand,
    },
    /// Copy the database and the blobs into a new directory, consistently,
    /// while a server runs (SQLite: `VACUUM INTO`; PostgreSQL: `pg_dump`).
    /// Only the running account can read it (0700, files 0600).
    Backup {
        /// The directory to write (created; it must be new or empty; made
        /// 0700).
        #[arg(long)]
        to: PathBuf,
        #[command(flatten)]
        storage: StorageArgs,
    },
    /// Put a backup back into an empty data directory or database (with no
    /// server running on it); the server migrates it when it starts.
    Restore {
        /// The directory `quire backup` wrote.
        #[arg(long)]
        from: PathBuf,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Subcommand)]
enum SearchCommand {
    /// Rebuild the search index of every space from its current content
    /// (safe while a server runs on the same data).
    Reindex {
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token for a user (creating the user if missing); the token is
    /// the last line printed on stdout.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        /// A label for the token, shown on the account page.
        #[arg(long)]
        label: Option<String>,
        /// Make the token even though the user belongs to an organization
        /// that enforces single sign-on (break-glass, for operators).
        #[arg(long)]
        bypass_sso: bool,
        #[command(flatten)]
        storage: StorageArgs,
    },
    /// List a user's tokens (id, creation time, label; never the token).
    List {
        #[arg(long)]
        email: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
    /// Revoke one of a user's tokens by its id (from `token list`). A server
    /// already running stops accepting it within 30 seconds.
    Revoke {
        #[arg(long)]
        email: String,
        #[arg(long)]
        id: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Args, Clone)]
struct StorageArgs {
    /// Directory for the embedded database and blobs (made 0700: only the
    /// running account reads it).
    #[arg(long, env = "QUIRE_DATA_DIR", default_value = "./quire-data")]
    data_dir: PathBuf,
    /// PostgreSQL URL (postgres://...); when absent, SQLite in the data directory is used.
    #[arg(long, env = "QUIRE_DATABASE_URL")]
    database_url: Option<String>,
    /// Where file bytes go: s3://bucket/prefix (settings from the AWS_*
    /// environment variables) or a directory; default <data dir>/blobs.
    #[arg(long, env = "QUIRE_BLOB_URL")]
    blob_url: Option<String>,
    /// Where Git Sync keeps clones between syncs; default a `quire-git`
    /// folder of the system's temporary directory.
    #[arg(long, env = "QUIRE_GIT_CACHE")]
    git_cache: Option<PathBuf>,
    /// Pages a website import reads at most.
    #[arg(long, env = "QUIRE_IMPORT_MAX_PAGES", default_value_t = quire_app::Settings::DEFAULT_IMPORT_MAX_PAGES, value_parser = clap::value_parser!(usize))]
    import_max_pages: usize,
    /// Directories PDF fonts are read from (`:`-separated); default the
    /// system's font directories and the user's.
    #[arg(long, env = "QUIRE_PDF_FONT_DIRS")]
    pdf_font_dirs: Option<String>,
    /// The `xmlsec1` command SAML responses are verified with (Debian's
    /// `xmlsec1` package); without it SAML sign-in is unavailable.
    #[arg(long, env = "QUIRE_XMLSEC1", default_value = "xmlsec1")]
    xmlsec1: PathBuf,
    /// MiB of memory this node's caches (published pages, documents, page
    /// trees, API answers, search sections) may take in all.
    #[arg(long, env = "QUIRE_CACHE_MEMORY", default_value_t = quire_core::memory::CacheBudget::DEFAULT_MIB, value_parser = clap::value_parser!(u64).range(8..=1_048_576))]
    cache_memory: u64,
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "QUIRE_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Absolute URL clients reach this server at (used in `urls` fields);
    /// defaults to http://<listen address>.
    #[arg(long, env = "QUIRE_PUBLIC_URL")]
    public_url: Option<String>,
    /// Let server-side fetches (files by URL, ...) reach loopback, private
    /// and link-local addresses; refused by default.
    #[arg(
        long,
        env = "QUIRE_ALLOW_PRIVATE_FETCH",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    allow_private_fetch: bool,
    /// The machine translation API translations run on: `libretranslate`
    /// or `openai` (any OpenAI-compatible chat-completions API).
    #[arg(long, env = "QUIRE_TRANSLATION_PROVIDER", default_value = "libretranslate")]
    translation_provider: String,
    /// The provider's base URL (`http://localhost:5000` for LibreTranslate,
    /// `http://localhost:11434/v1` for Ollama); no URL, no translations.
    #[arg(long, env = "QUIRE_TRANSLATION_URL")]
    translation_url: Option<String>,
    /// The model to ask (OpenAI-compatible providers).
    #[arg(long, env = "QUIRE_TRANSLATION_MODEL")]
    translation_model: Option<String>,
    /// Background jobs this node runs at once.
    #[arg(long, env = "QUIRE_JOB_SLOTS", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    job_slots: u16,
    /// Background jobs of one organization this node runs at once (so no
    /// organization can hold every slot); at most `--job-slots`.
    #[arg(long, env = "QUIRE_JOBS_PER_ORGANIZATION", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs_per_organization: u16,
    /// Webhook deliveries this node sends at once, beside the job slots (half
    /// of them at most for one organization).
    #[arg(long, env = "QUIRE_SEND_SLOTS", default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    send_slots: u16,
    /// The server runs behind a reverse proxy that sets `X-Forwarded-For`:
    /// its last address is the client's (for sign-in limits and sessions).
    #[arg(
        long,
        env = "QUIRE_BEHIND_PROXY",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    behind_proxy: bool,
    /// Serve Prometheus metrics at `http://<address>/metrics` (an address
    /// of its own, so they are never public by accident); off by default.
    #[arg(long, env = "QUIRE_METRICS_LISTEN")]
    metrics_listen: Option<SocketAddr>,
    /// The OpenAI-compatible chat-completions API (`http://host/v1`) that
    /// answers readers' questions on published sites from their pages, on
    /// sites whose `ai.mode` is `search` or `assistant`; without it, sites
    /// offer no answers. Its key is read from `QUIRE_ASSISTANT_API_KEY`
    /// only.
    #[arg(long, env = "QUIRE_ASSISTANT_URL")]
    assistant_url: Option<String>,
    /// The model to ask.
    #[arg(long, env = "QUIRE_ASSISTANT_MODEL", default_value = "default")]
    assistant_model: String,
    /// Write every audit-log entry to standard output too, one JSON line
    /// each, once its change committed (the log itself goes to stderr).
    #[arg(
        long,
        env = "QUIRE_AUDIT_LOG_STREAM",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    audit_log_stream: bool,
    #[command(flatten)]
    rate_limits: RateLimitArgs,
    #[command(flatten)]
    oidc: OidcArgs,
    #[command(flatten)]
    storage: StorageArgs,
}

/// Requests per minute (0: unlimited); see the README's "Rate limits".
#[derive(Args)]
struct RateLimitArgs {
    /// Per API token (and per browser session's address).
    #[arg(long, env = "QUIRE_RATE_LIMIT_TOKEN", default_value_t = quire_server::limits::RateLimits::DEFAULT.per_token)]
    rate_limit_token: u32,
    /// Per address, for API requests without valid credentials.
    #[arg(long, env = "QUIRE_RATE_LIMIT_ADDRESS", default_value_t = quire_server::limits::RateLimits::DEFAULT.per_address)]
    rate_limit_address: u32,
    /// Per address, for published sites and the web application's pages.
    #[arg(long, env = "QUIRE_RATE_LIMIT_SITES", default_value_t = quire_server::limits::RateLimits::DEFAULT.sites_per_address)]
    rate_limit_sites: u32,
    /// Per address, for sign-in, sign-in links, password changes and token
    /// creation.
    #[arg(long, env = "QUIRE_RATE_LIMIT_SIGN_IN", default_value_t = quire_server::limits::RateLimits::DEFAULT.sign_in_per_address)]
    rate_limit_sign_in: u32,
}

impl RateLimitArgs {
    fn limits(&self) -> quire_server::limits::RateLimits {
        quire_server::limits::RateLimits {
            per_token: self.rate_limit_token,
            per_address: self.rate_limit_address,
            sites_per_address: self.rate_limit_sites,
            sign_in_per_address: self.rate_limit_sign_in,
        }
    }
}

/// Sign-in with an OpenID Connect provider; the client secret is read from
/// `QUIRE_OIDC_CLIENT_SECRET` only (flags show in process lists). Register
/// `<public URL>/auth/oidc/callback` as the redirect URI.
#[derive(Args)]
struct OidcArgs {
    /// The provider's issuer URL (`https://accounts.google.com`,
    /// `https://keycloak.example.com/realms/acme`, ...).
    #[arg(long, env = "QUIRE_OIDC_ISSUER")]
    oidc_issuer: Option<String>,
    #[arg(long, env = "QUIRE_OIDC_CLIENT_ID")]
    oidc_client_id: Option<String>,
    /// What the sign-in button names.
    #[arg(long, env = "QUIRE_OIDC_NAME", default_value = "single sign-on")]
    oidc_name: String,
    /// Email domains whose people get an account on first sign-in
    /// (comma-separated); default: anyone the provider vouches for.
    #[arg(long, env = "QUIRE_OIDC_ALLOWED_DOMAINS", value_delimiter = ',')]
    oidc_allowed_domains: Vec<String>,
    /// Take emails the provider does not mark verified (Entra ID).
    #[arg(
        long,
        env = "QUIRE_OIDC_TRUST_EMAIL",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    oidc_trust_email: bool,
}

impl OidcArgs {
    fn settings(&self) -> anyhow::Result<Option<quire_app::settings::OidcSettings>> {
        let (Some(issuer), Some(client_id)) = (&self.oidc_issuer, &self.oidc_client_id) else {
            if self.oidc_issuer.is_some() || self.oidc_client_id.is_some() {
                anyhow::bail!("OpenID Connect needs both QUIRE_OIDC_ISSUER and QUIRE_OIDC_CLIENT_ID");
            }
            return Ok(None);
        };
        let client_secret = std::env::var("QUIRE_OIDC_CLIENT_SECRET")
            .ok()
            .filter(|s| !s.is_empty())
            .context("OpenID Connect needs QUIRE_OIDC_CLIENT_SECRET")?;
        Ok(Some(quire_app::settings::OidcSettings {
            issuer: issuer.trim_end_matches('/').to_owned(),
            client_id: client_id.clone(),
            client_secret,
            name: self.oidc_name.clone(),
            allowed_domains: self
                .oidc_allowed_domains
                .iter()
                .map(|d| d.trim().to_lowercase())
                .filter(|d| !d.is_empty())
                .collect(),
            trust_email: self.oidc_trust_email,
        }))
    }
}

impl ServeArgs {
    /// The chat model answering readers' questions, if configured.
    fn assistant(&self) -> anyhow::Result<Option<quire_adapters::chat::ChatModel>> {
        let Some(url) = &self.assistant_url else {
            return Ok(None);
        };
        let api_key = std::env::var("QUIRE_ASSISTANT_API_KEY").ok().filter(|k| !k.is_empty());
        let timeout = std::time::Duration::from_secs(60);
        Ok(Some(quire_adapters::chat::ChatModel::new(
            url.clone(),
            api_key,
            self.assistant_model.clone(),
            timeout,
        )?))
    }

    /// The translation provider configured, if any. Its key is read from
    /// `QUIRE_TRANSLATION_API_KEY` only (never a flag: flags show in
    /// process lists).
    fn translation(&self) -> anyhow::Result<Option<quire_adapters::translate::Provider>> {
        use quire_adapters::translate::{Provider, ProviderKind};
        let Some(url) = &self.translation_url else {
            return Ok(None);
        };
        let kind = match self.translation_provider.as_str() {
            "libretranslate" => ProviderKind::LibreTranslate,
            "openai" => ProviderKind::OpenAi,
            other => anyhow::bail!("QUIRE_TRANSLATION_PROVIDER must be libretranslate or openai, not {other:?}"),
        };
        let api_key = std::env::var("QUIRE_TRANSLATION_API_KEY")
            .ok()
            .filter(|k| !k.is_empty());
        let timeout = std::time::Duration::from_secs(120);
        Ok(Some(Provider::new(
            kind,
            url.clone(),
            api_key,
            self.translation_model.clone(),
            timeout,
        )?))
    }
}

impl StorageArgs {
    /// Makes the data directory private ([`owner_only::secure_data_dir`])
    /// when Quire keeps anything in it: the SQLite database, or the blobs
    /// when no `--blob-url` puts them elsewhere. Created when missing only
    /// if `create`.
    fn secure_data_dir(&self, create: bool) -> anyhow::Result<()> {
        if self.database_url.is_some() && self.blob_url.is_some() {
            return Ok(());
        }
        owner_only::secure_data_dir(&self.data_dir, create)
    }

    /// What `quire backup` and `quire restore` work on.
    fn backup_storage(&self) -> anyhow::Result<backup::Storage<'_>> {
        Ok(backup::Storage {
            data_dir: &self.data_dir,
            database_url: self.database_url.as_deref(),
            blobs: self.blob_store()?,
        })
    }

    /// Where file bytes go: `--blob-url`, else `<data dir>/blobs`.
    fn blob_store(&self) -> anyhow::Result<quire_store::blobs::BlobStore> {
        match &self.blob_url {
            Some(url) => quire_store::blobs::BlobStore::from_url_and_env(url, std::env::vars())
                .with_context(|| format!("blob storage {url}")),
            None => Ok(quire_store::blobs::BlobStore::Local(self.data_dir.join("blobs"))),
        }
    }

    /// The application over the configured storage; server-side fetches
    /// reach private networks only when `allow_private_fetch`.
    async fn app(&self, allow_private_fetch: bool) -> anyhow::Result<App> {
        self.app_with(allow_private_fetch, None, false).await
    }

    /// [`StorageArgs::app`] with the server's sign-in settings.
    async fn app_with(
        &self,
        allow_private_fetch: bool,
        oidc: Option<quire_app::settings::OidcSettings>,
        stream_audit: bool,
    ) -> anyhow::Result<App> {
        let blobs = self.blob_store()?;
        let fetcher = Fetcher::new(FetchConfig {
            allow_private_networks: allow_private_fetch,
            ..FetchConfig::default()
        })
        .context("starting the HTTP client for server-side fetches")?;
        let db = self.open().await?.with_audit_stream(stream_audit);
        Ok(App::with_settings(
            db,
            blobs,
            fetcher,
            std::sync::Arc::new(quire_core::SystemClock),
            quire_app::Settings {
                oidc,
                ..self.settings()
            },
        ))
    }

    /// The application's settings, from these flags and the environment.
    fn settings(&self) -> quire_app::Settings {
        let mut settings = quire_app::Settings {
            import_max_pages: self.import_max_pages.max(1),
            xmlsec1: self.xmlsec1.clone(),
            cache_budget: quire_core::memory::CacheBudget::mib(self.cache_memory),
            ..quire_app::Settings::default()
        };
        if let Some(dir) = &self.git_cache {
            settings.git_cache_dir = dir.clone();
        }
        match &self.pdf_font_dirs {
            Some(dirs) => settings.pdf_font_dirs = std::env::split_paths(dirs).collect(),
            None => {
                if let Some(home) = std::env::var_os("HOME") {
                    let home = PathBuf::from(home);
                    settings.pdf_font_dirs.push(home.join(".local/share/fonts"));
                    settings.pdf_font_dirs.push(home.join(".fonts"));
                }
            }
        }
        settings
    }

    /// Opens (creating and migrating when needed) the configured database,
    /// the data directory made private first (created for SQLite).
    async fn open(&self) -> anyhow::Result<Db> {
        self.secure_data_dir(self.database_url.is_none())?;
        let url = match &self.database_url {
            Some(url) => url.clone(),
            None => Db::sqlite_url_for_dir(&self.data_dir),
        };
        let db = Db::open(&url)
            .await
            .with_context(|| format!("opening database {}", quire_store::db::redact(&url)))?;
        Ok(db)
    }
}

/// Logs go to stderr: one JSON object per line with `QUIRE_LOG_FORMAT=json`,
/// else text, coloured only when stderr is a terminal.
fn init_logging() -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_env("QUIRE_LOG").unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match std::env::var("QUIRE_LOG_FORMAT").as_deref() {
        Ok("json") => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
        Ok("text") | Err(_) => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        Ok(other) => anyhow::bail!("QUIRE_LOG_FORMAT must be `text` or `json`, not {other:?}"),
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    owner_only::restrict_umask();
    init_logging()?;

    let command = Cli::parse().command;
    match command.audited_as() {
        // What a command changes is in the audit log, by the command line.
        Some(action) => cli_scope(action).run(run(command)).await,
        None => run(command).await,
    }
}

/// The audit scope of a command that changes something.
fn cli_scope(action: &str) -> std::sync::Arc<quire_store::audit::Scope> {
    use quire_store::audit::{Actor, Entry, Scope, Source};
    Scope::new(Entry {
        organization_id: None,
        occurred_at: quire_core::Clock::now(&quire_core::SystemClock),
        action: format!("cli {action}"),
        actor: Actor::system("cli"),
        source: Source::Script,
        target: None,
        execution_id: quire_core::id::new_id(),
        payload: serde_json::Map::new(),
        subject: None,
    })
}

impl Command {
    /// The command's name in the audit log, for those that change content
    /// or accounts.
    fn audited_as(&self) -> Option<&'static str> {
        match self {
            Command::Token {
                command: TokenCommand::Create { .. },
            } => Some("token create"),
            Command::Token {
                command: TokenCommand::Revoke { .. },
            } => Some("token revoke"),
            Command::SignInLink { .. } => Some("sign-in-link"),
            Command::PasswordLink { .. } => Some("password-link"),
            _ => None,
        }
    }
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve(args).await,
        Command::Migrate(storage) => {
            storage.open().await?;
            tracing::info!("database is up to date");
            Ok(())
        }
        Command::Backup { to, storage } => {
            storage.secure_data_dir(false)?;
            backup::backup(&storage.backup_storage()?, &to).await?;
            println!("backed up into {}", to.display());
            Ok(())
        }
        Command::Restore { from, storage } => {
            storage.secure_data_dir(false)?;
            backup::restore(&storage.backup_storage()?, &from).await?;
            println!("restored from {}", from.display());
            Ok(())
        }
        Command::Search {
            command: SearchCommand::Reindex { storage },
        } => {
            let app = storage.app(false).await?;
            let started = std::time::Instant::now();
            let (spaces, pages) = quire_app::search::reindex_all(&app).await?;
            tracing::info!(
                spaces,
                pages,
                seconds = started.elapsed().as_secs_f64(),
                "search index rebuilt"
            );
            app.db.close().await;
            Ok(())
        }
        Command::Token {
            command:
                TokenCommand::Create {
                    email,
                    name,
                    label,
                    bypass_sso,
                    storage,
                },
        } => {
            let app = storage.app(false).await?;
            let user = accounts::ensure_user(&app, &email, &name).await?;
            if !bypass_sso {
                let mut conn = app.db.read().await?;
                let blockers = quire_app::sessions::sso_blockers(&mut conn, &user.id, &[]).await?;
                if let Some(org) = blockers.first() {
                    anyhow::bail!(
                        "{} enforces single sign-on: its members get tokens on the account page after signing in \
                         through it (or pass --bypass-sso)",
                        org.title
                    );
                }
            }
            let token = accounts::create_token(&app, &user.id, label.as_deref()).await?;
            app.db.close().await;
            println!("{token}");
            Ok(())
        }
        Command::SignInLink {
            email,
            name,
            public_url,
            storage,
        } => {
            let app = storage.app(false).await?;
            let link = quire_sign_in::links::sign_in_link_for_cli(&app, &public_url, &email, name.as_deref()).await;
            app.db.close().await;
            println!("{}", link?.url);
            Ok(())
        }
        Command::PasswordLink {
            email,
            public_url,
            storage,
        } => {
            let app = storage.app(false).await?;
            let link = quire_sign_in::links::password_link_for_cli(&app, &public_url, &email).await;
            app.db.close().await;
            let link = link?;
            eprintln!("a {} link for {}", link.purpose.as_str(), link.email);
            println!("{}", link.url);
            Ok(())
        }
        Command::Token {
            command: TokenCommand::List { email, storage },
        } => {
            let app = storage.app(false).await?;
            let listed = accounts::tokens_of_email(&app, &email).await;
            app.db.close().await;
            let (_, tokens) = listed?;
            for token in tokens {
                let created = chrono::DateTime::from_timestamp_millis(token.created_at.0).unwrap_or_default();
                println!(
                    "{}\t{}\t{}",
                    token.id,
                    created.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    token.label.unwrap_or_default()
                );
            }
            Ok(())
        }
        Command::Token {
            command: TokenCommand::Revoke { email, id, storage },
        } => {
            let app = storage.app(false).await?;
            let revoked = accounts::revoke_token_of_email(&app, &email, &id).await;
            app.db.close().await;
            revoked?;
            println!("revoked {id}");
            Ok(())
        }
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let app = args
        .storage
        .app_with(args.allow_private_fetch, args.oidc.settings()?, args.audit_log_stream)
        .await?;
    app.set_translation_provider(args.translation()?);
    app.set_assistant(args.assistant()?);
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let address = listener.local_addr()?;
    let public_url = args.public_url.unwrap_or_else(|| format!("http://{address}"));
    tracing::info!(
        %address,
        %public_url,
        backend = ?app.db.backend(),
        allow_private_fetch = args.allow_private_fetch,
        "quire is listening"
    );
    match quire_sso::verifier(&app).readiness() {
        Ok(version) => tracing::info!(%version, "SAML responses are verified with xmlsec1"),
        Err(problem) => tracing::warn!(%problem, "SAML sign-in is unavailable until xmlsec1 can run"),
    }
    if let Some(oidc) = &app.settings.oidc {
        tracing::info!(
            issuer = %oidc.issuer,
            redirect_uri = %quire_sign_in::oidc::redirect_uri(&public_url),
            "OpenID Connect sign-in is on"
        );
    }
    let state = AppState {
        behind_proxy: args.behind_proxy,
        limiter: std::sync::Arc::new(quire_server::limits::Limiter::new(args.rate_limits.limits())),
        metrics: args.metrics_listen.is_some(),
        ..AppState::new(app.clone(), &public_url)
    };
    let workers = quire_app::jobs::Workers {
        slots: usize::from(args.job_slots),
        per_organization: usize::from(args.jobs_per_organization.min(args.job_slots)),
        send_slots: usize::from(args.send_slots),
        sends_per_organization: usize::from(args.send_slots.div_ceil(2)),
        ..quire_app::jobs::Workers::default()
    };
    let (stop, stopped) = tokio::sync::watch::channel(false);
    quire_metrics::report_memory_with(heap_figures);
    let metrics = match args.metrics_listen {
        Some(address) => {
            let listener = tokio::net::TcpListener::bind(address)
                .await
                .with_context(|| format!("binding {address} for metrics"))?;
            tracing::info!(address = %listener.local_addr()?, "metrics at /metrics");
            Some(tokio::spawn(quire_server::metrics::serve(
                listener,
                app.clone(),
                wait_for(stopped.clone()),
            )))
        }
        None => None,
    };
    let worker = tokio::spawn(quire_app::jobs::work(
        app.clone(),
        std::sync::Arc::new(quire_server::features::job_registry()),
        workers,
        wait_for(stopped.clone()),
    ));
    let server = quire_server::serve(listener, state, async move {
        shutdown_signal().await;
        let _ = stop.send(true);
    });
    server.await?;
    let _ = worker.await;
    if let Some(metrics) = metrics {
        let _ = metrics.await;
    }
    app.db.close().await;
    Ok(())
}

/// Completes once the watched flag turns true.
async fn wait_for(mut flag: tokio::sync::watch::Receiver<bool>) {
    let _ = flag.wait_for(|stop| *stop).await;
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
