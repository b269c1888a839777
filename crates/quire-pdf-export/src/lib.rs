//! PDFs of a space's content (its current revision or a change request's
//! head), whole or from one page (with its subpages, or `only` that page).
//!
//! A PDF is made once for what it is made of: the revision, the pages
//! asked for, and the versions of the OpenAPI specs its pages embed (a new
//! version makes a new PDF). That is its cache key; the PDF is stored in the
//! blob store and recorded in `pdfs`, so asking again is a lookup. Each
//! request answers a new download link that works for an hour without a
//! token (`pdf_links` keeps the SHA-256 of its random token).
//!
//! Typesetting (`quire-pdf`) is CPU-bound: it runs on the blocking pool, one
//! PDF at a time per node. Fonts are read once per process, from Typst's
//! embedded fonts and the font directories of the machine
//! (`QUIRE_PDF_FONT_DIRS`, else the usual system ones), which is where CJK
//! fonts come from.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::OnceLock;

mod routes;
pub use routes::{downloads, router};

use quire_content::document::{Block, Document};
use quire_content::tree::PageKind;
use quire_core::Timestamp;
use quire_engine::Snapshot;
use quire_pdf::{Book, BookFile, BookPage, Fonts, PageBody};
use quire_store::openapi::VersionRow;
use quire_store::pdfs::{self, PdfRow};
use quire_store::spaces::SpaceRow;

use quire_app::content::{self, Source};
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller};

/// Changes whenever the same content would be typeset differently.
const FORMAT: &str = "quire-pdf-4";
/// How long a download link works.
const LINK_LIFETIME_MS: i64 = 60 * 60 * 1000;
/// Images larger than this show their alternative text.
const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// At most this many image bytes go into one PDF; later images show their
/// alternative text. (What images decode to is bounded by `quire-pdf`:
/// [`quire_pdf::MAX_IMAGE_PIXELS`], [`quire_pdf::MAX_BOOK_IMAGE_MEMORY`].)
const MAX_BOOK_IMAGE_BYTES: u64 = 256 * 1024 * 1024;

static FONTS: OnceLock<Fonts> = OnceLock::new();
static TYPESETTING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// The fonts of the directories the settings name, read once per process.
fn fonts(dirs: &[PathBuf]) -> &'static Fonts {
    FONTS.get_or_init(|| Fonts::load(dirs))
}

/// What the caller asked for.
#[derive(Debug, Clone, Default)]
pub struct PdfRequest {
    /// Start from this page (with its subpages).
    pub page: Option<String>,
    /// Only that page.
    pub only: bool,
}

/// A download link: `/~pdf/{token}`.
#[derive(Debug, Clone)]
pub struct PdfLink {
    pub token: String,
    pub expires_at: Timestamp,
}

/// The pages a PDF holds, in order, with their depth below the first.
fn pages_of(snapshot: &Snapshot, request: &PdfRequest) -> AppResult<Vec<(String, usize)>> {
    let walk = snapshot.tree.walk();
    let Some(start) = &request.page else {
        if request.only {
            return Err(AppError::invalid(
                "`only` needs `page`: the id of the page to make a PDF of",
            ));
        }
        return Ok(walk);
    };
    content::require_page(snapshot, start)?;
    let at = walk.iter().position(|(id, _)| id == start).unwrap_or_default();
    let base = walk[at].1;
    if request.only {
        return Ok(vec![(start.clone(), 0)]);
    }
    Ok(std::iter::once((start.clone(), 0))
        .chain(
            walk[at + 1..]
                .iter()
                .take_while(|(_, depth)| *depth > base)
                .map(|(id, depth)| (id.clone(), depth - base)),
        )
        .collect())
}

/// A PDF of the content `source` names: made (or found) and a new link to
/// it.
pub async fn export(
    app: &App,
    caller: &Caller,
    space_id: &str,
    source: &Source,
    request: &PdfRequest,
) -> AppResult<PdfLink> {
    let (space, snapshot) = content::open(app, caller, space_id, source).await?;
    let pages = pages_of(&snapshot, request)?;
    let documents = documents_of(app, &snapshot, &pages).await?;
    let includes = includes_of(app, &snapshot, &pages, &documents).await?;
    let specs = specs_of(app, &space, &documents).await?;
    let key = cache_key(&snapshot, request, &specs, &[]);
    let title = title_of(&space, &snapshot, request);
    make(
        app, &space, &snapshot, &pages, documents, includes, &specs, &key, &title,
    )
    .await?;
    link(app, &key, &title).await
}

/// A PDF of a published space as one reader may read it: the pages
/// `visible` admits (from the request's page, or the whole space), each
/// conditional block kept or dropped as `shows` says. The outcome of every
/// condition is part of what the PDF is made for, so readers who see the
/// same share one PDF and no reader is given another's; what a reader
/// claims about themselves makes at most as many PDFs as the conditions
/// have outcomes. Answers its file name and bytes.
pub async fn published(
    app: &App,
    space: &SpaceRow,
    snapshot: &Snapshot,
    request: &PdfRequest,
    visible: &(dyn Fn(&str) -> bool + Sync),
    shows: &(dyn Fn(&str) -> bool + Sync),
) -> AppResult<(String, Vec<u8>)> {
    if request.page.as_ref().is_some_and(|page| !visible(page)) {
        return Err(AppError::not_found("page", request.page.as_deref().unwrap_or_default()));
    }
    let pages: Vec<(String, usize)> = pages_of(snapshot, request)?
        .into_iter()
        .filter(|(id, _)| visible(id))
        .collect();
    let mut documents = documents_of(app, snapshot, &pages).await?;
    let mut includes = includes_of(app, snapshot, &pages, &documents).await?;
    let outcomes = std::sync::Mutex::new(BTreeSet::new());
    let record = |condition: &str| {
        let holds = shows(condition);
        if let Ok(mut outcomes) = outcomes.lock() {
            outcomes.insert(format!("{holds}:{condition}"));
        }
        holds
    };
    for document in documents.values_mut().chain(includes.values_mut()) {
        document.retain_conditions(&record);
    }
    let mut seen: Vec<String> = pages.iter().map(|(id, _)| id.clone()).collect();
    seen.extend(outcomes.into_inner().unwrap_or_default());
    let specs = specs_of(app, space, &documents).await?;
    let key = cache_key(snapshot, request, &specs, &seen);
    let title = title_of(space, snapshot, request);
    make(app, space, snapshot, &pages, documents, includes, &specs, &key, &title).await?;
    let row = {
        let mut conn = app.db.read().await?;
        pdfs::get(&mut conn, &key).await?
    };
    let Some(row) = row else {
        return Err(AppError::from(anyhow::anyhow!("the PDF just made is not stored")));
    };
    let bytes = app.engine.files.blob(&row.blob).await?;
    Ok((format!("{}.pdf", file_stem(&title)), bytes))
}

/// The title of a PDF: its first page's, or the space's.
fn title_of(space: &SpaceRow, snapshot: &Snapshot, request: &PdfRequest) -> String {
    match &request.page {
        Some(page) => snapshot.tree.pages[page].meta.title.clone(),
        None => space.title.clone(),
    }
}

/// The documents of the pages, as the PDF shows them (title heading
/// removed, image paths resolved to files).
async fn documents_of(
    app: &App,
    snapshot: &Snapshot,
    pages: &[(String, usize)],
) -> AppResult<HashMap<String, Document>> {
    let hashes: Vec<String> = pages
        .iter()
        .filter_map(|(id, _)| snapshot.tree.pages[id].meta.document.clone())
        .collect();
    let texts = app.engine.revisions.documents(&hashes).await?;
    let mut documents: HashMap<String, Document> = HashMap::with_capacity(pages.len());
    for (id, _) in pages {
        let meta = &snapshot.tree.pages[id].meta;
        if let (PageKind::Document, Some(text)) = (&meta.kind, meta.document.as_ref().and_then(|h| texts.get(h))) {
            let mut document = Document::from_markdown(text);
            document.remove_title_heading(&meta.title);
            document.resolve_image_paths(&|path| match quire_engine::links::resolve(snapshot, id, path, "") {
                Some(quire_engine::links::Target::File(file)) => Some(file),
                _ => None,
            });
            documents.insert(id.clone(), document);
        }
    }
    Ok(documents)
}

/// The spec versions embedded operations come from (part of the key).
async fn specs_of(
    app: &App,
    space: &SpaceRow,
    documents: &HashMap<String, Document>,
) -> AppResult<BTreeMap<String, Option<VersionRow>>> {
    let mut specs: BTreeMap<String, Option<VersionRow>> = BTreeMap::new();
    for document in documents.values() {
        for block in document.walk() {
            if let Block::OpenApiOperation(pointer) = block
                && !specs.contains_key(&pointer.spec)
            {
                let version = quire_specs::latest_for_pages(app, &space.organization_id, &pointer.spec).await?;
                specs.insert(pointer.spec.clone(), version);
            }
        }
    }
    Ok(specs)
}

/// Reusable content the pages include, one level deep, by (page, path).
async fn includes_of(
    app: &App,
    snapshot: &Snapshot,
    pages: &[(String, usize)],
    documents: &HashMap<String, Document>,
) -> AppResult<BTreeMap<(String, String), Document>> {
    let mut includes = BTreeMap::new();
    for (id, _) in pages {
        let Some(document) = documents.get(id) else { continue };
        let paths: BTreeSet<String> = document
            .walk()
            .filter_map(|b| match b {
                Block::Include { path } => Some(path.clone()),
                _ => None,
            })
            .collect();
        for path in paths {
            if let Some(reusable) = snapshot.included_by(id, &path) {
                let text = app.engine.revisions.document(&reusable.document).await?;
                includes.insert((id.clone(), path), Document::from_markdown(&text));
            }
        }
    }
    Ok(includes)
}

/// Makes and stores the PDF of `key` unless it is stored already.
#[allow(clippy::too_many_arguments)]
async fn make(
    app: &App,
    space: &SpaceRow,
    snapshot: &Snapshot,
    pages: &[(String, usize)],
    documents: HashMap<String, Document>,
    includes: BTreeMap<(String, String), Document>,
    specs: &BTreeMap<String, Option<VersionRow>>,
    key: &str,
    title: &str,
) -> AppResult<()> {
    if is_made(app, key).await? {
        return Ok(());
    }
    // One book at a time per node: gathered, typeset and stored under the
    // permit, and looked up again once it is held, since a request for the
    // same content may have made it meanwhile.
    let _permit = TYPESETTING
        .acquire()
        .await
        .map_err(|e| AppError::from(anyhow::anyhow!("the typesetting queue closed: {e}")))?;
    if is_made(app, key).await? {
        return Ok(());
    }
    let book = book(app, space, snapshot, pages, documents, includes, specs, title).await?;
    let started = std::time::Instant::now();
    let bytes = typeset(book, app.settings.pdf_font_dirs.clone()).await?;
    tracing::info!(
        space = %space.id,
        revision = %snapshot.revision.id,
        pages = pages.len(),
        bytes = bytes.len(),
        ms = started.elapsed().as_millis() as u64,
        "PDF typeset"
    );
    let blob = app.engine.files.put_blob(&bytes).await?;
    let mut tx = app.db.write().await?;
    pdfs::put(
        &mut tx,
        &PdfRow {
            cache_key: key.to_owned(),
            space_id: space.id.clone(),
            revision_id: snapshot.revision.id.clone(),
            blob,
            size: bytes.len() as i64,
            created_at: app.now(),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// A file name's stem from a title.
fn file_stem(title: &str) -> String {
    let slug = quire_content::markdown::slugify(title);
    if slug.is_empty() { "document".into() } else { slug }
}

/// Whether the PDF of this key is stored.
async fn is_made(app: &App, key: &str) -> AppResult<bool> {
    let mut conn = app.db.read().await?;
    Ok(pdfs::get(&mut conn, key).await?.is_some())
}

/// A new download link to the stored PDF of this key.
async fn link(app: &App, key: &str, title: &str) -> AppResult<PdfLink> {
    let token = quire_core::id::random_alphanumeric(40);
    let now = app.now();
    let expires_at = Timestamp(now.0 + LINK_LIFETIME_MS);
    let slug = file_stem(title);
    let mut tx = app.db.write().await?;
    pdfs::add_link(
        &mut tx,
        &quire_app::accounts::hash_token(&token),
        key,
        &format!("{slug}.pdf"),
        expires_at,
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(PdfLink { token, expires_at })
}

/// The PDF a download link points at, with its file name: 404 once the link
/// expired.
pub async fn download(app: &App, token: &str) -> AppResult<(String, Vec<u8>)> {
    let found = {
        let mut conn = app.db.read().await?;
        pdfs::by_link(&mut conn, &quire_app::accounts::hash_token(token), app.now()).await?
    };
    let Some((blob, file_name)) = found else {
        return Err(AppError::not_found("PDF link", "(expired or unknown)"));
    };
    let bytes = app.engine.files.blob(&blob).await?;
    Ok((file_name, bytes))
}

/// What a PDF is made of: the revision, the pages asked for, the spec
/// versions, and for a reader's PDF the pages they see and the conditions'
/// outcomes (`seen`).
fn cache_key(
    snapshot: &Snapshot,
    request: &PdfRequest,
    specs: &BTreeMap<String, Option<VersionRow>>,
    seen: &[String],
) -> String {
    let mut hasher = quire_core::digest::Hasher::new();
    for part in [
        FORMAT,
        snapshot.revision.id.as_str(),
        request.page.as_deref().unwrap_or(""),
        if request.only { "only" } else { "tree" },
    ] {
        hasher.part(part.as_bytes());
    }
    for (spec, version) in specs {
        hasher.part(spec.as_bytes());
        hasher.part(version.as_ref().map(|v| v.id.as_str()).unwrap_or("-").as_bytes());
    }
    if !seen.is_empty() {
        hasher.part(b"seen");
        for part in seen {
            hasher.part(part.as_bytes());
        }
    }
    hasher.hex()
}

/// Everything the PDF shows, gathered.
#[allow(clippy::too_many_arguments)]
async fn book(
    app: &App,
    space: &SpaceRow,
    snapshot: &Snapshot,
    pages: &[(String, usize)],
    mut documents: HashMap<String, Document>,
    includes: BTreeMap<(String, String), Document>,
    specs: &BTreeMap<String, Option<VersionRow>>,
    title: &str,
) -> AppResult<Book> {
    let mut book = Book {
        title: title.to_owned(),
        subtitle: (title != space.title).then(|| space.title.clone()),
        ..Book::default()
    };
    for (_, file) in &snapshot.files {
        book.files.insert(
            file.id.clone(),
            BookFile {
                name: file.name.clone(),
                bytes: None,
            },
        );
    }
    book.includes = includes.into_iter().collect();
    // Images, by file, within the limits.
    let mut image_bytes = 0;
    let wanted: BTreeSet<String> = documents
        .values()
        .chain(book.includes.values())
        .flat_map(|d| d.image_files())
        .map(str::to_owned)
        .collect();
    for id in wanted {
        let Some(file) = snapshot.file(&id) else { continue };
        if file.size > MAX_IMAGE_BYTES || image_bytes + file.size > MAX_BOOK_IMAGE_BYTES {
            continue;
        }
        image_bytes += file.size;
        let bytes = app.engine.files.bytes(file).await?;
        if let Some(entry) = book.files.get_mut(&id) {
            entry.bytes = Some(bytes);
        }
    }
    // Operations, from each spec's version parsed once.
    let parsed: HashMap<&str, quire_openapi::Spec> = specs
        .iter()
        .filter_map(|(spec, version)| Some((spec.as_str(), quire_openapi::parse(&version.as_ref()?.content).ok()?)))
        .collect();
    for document in documents.values().chain(book.includes.values()) {
        for block in document.walk() {
            if let Block::OpenApiOperation(pointer) = block
                && !book.operations.contains_key(pointer)
                && let Some(operation) = parsed
                    .get(pointer.spec.as_str())
                    .and_then(|spec| spec.operation(&pointer.path, &pointer.method))
            {
                book.operations.insert(pointer.clone(), operation);
            }
        }
    }
    for (id, depth) in pages {
        let meta = &snapshot.tree.pages[id].meta;
        let body = match &meta.kind {
            PageKind::Document => PageBody::Document(documents.remove(id).unwrap_or_default()),
            PageKind::Group => PageBody::Group,
            PageKind::Link { target } => PageBody::Link(target.clone()),
        };
        book.pages.push(BookPage {
            id: id.clone(),
            title: meta.title.clone(),
            description: meta.description.clone(),
            depth: *depth,
            body,
        });
    }
    Ok(book)
}

/// Typesets on the blocking pool, with the fonts of `font_dirs`.
async fn typeset(book: Book, font_dirs: Vec<PathBuf>) -> AppResult<Vec<u8>> {
    let done = tokio::task::spawn_blocking(move || quire_pdf::render(&book, fonts(&font_dirs)))
        .await
        .map_err(|e| AppError::from(anyhow::anyhow!("typesetting stopped: {e}")))?;
    done.map_err(|e| AppError::from(anyhow::anyhow!(e)))
}
