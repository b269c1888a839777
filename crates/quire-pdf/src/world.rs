//! The Typst compiler's view of one part of a book (its `World`): the
//! markup as `/part-{n}.typ`, images as `/img/{n}`, and the fonts. Fonts are Typst's
//! embedded ones (Libertinus Serif, New Computer Modern, DejaVu Sans Mono)
//! plus the font files of the directories [`Fonts::load`] is given (where
//! CJK fonts come from, e.g. Debian's `fonts-noto-cjk`); a font file is
//! read once, the first time a book needs one of its faces.
//!
//! File ids are interned by Typst for the life of the process, so the paths
//! used are the same for every book (`/part-0.typ`, `/img/0`, …).

use std::path::{Path, PathBuf};
use std::sync::{LazyLock, OnceLock};

use typst::diag::{FileError, FileResult};
use typst::ecow::EcoVec;
use typst::foundations::{Bytes, Datetime, Label, Smart};
use typst::introspection::Introspector as _;
use typst::layout::Point;
use typst::model::DocumentInfo;
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook, FontInfo};
use typst::utils::LazyHash;
use typst::utils::PicoStr;
use typst::{Library, LibraryExt, World};
use typst_layout::{Page, PagedDocument};

use crate::PdfError;

/// Where a face's bytes are.
enum FontFile {
    Embedded(&'static [u8]),
    /// A file on disk, read the first time one of its faces is used.
    Disk {
        path: PathBuf,
        bytes: OnceLock<Option<Bytes>>,
    },
}

struct Face {
    file: usize,
    index: u32,
    font: OnceLock<Option<Font>>,
}

/// The fonts PDFs are set in: load once, share between books.
pub struct Fonts {
    book: LazyHash<FontBook>,
    files: Vec<FontFile>,
    faces: Vec<Face>,
}

impl std::fmt::Debug for Fonts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fonts").field("faces", &self.faces.len()).finish()
    }
}

fn is_font_file(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("ttf" | "otf" | "ttc" | "otc")
    )
}

fn font_files(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() && depth < 8 {
            font_files(&path, out, depth + 1);
        } else if is_font_file(&path) {
            out.push(path);
        }
    }
}

impl Fonts {
    /// Typst's embedded fonts only.
    pub fn embedded() -> Fonts {
        Fonts::load(&[])
    }

    /// The embedded fonts, then every font file under `dirs`.
    pub fn load(dirs: &[PathBuf]) -> Fonts {
        let mut book = FontBook::new();
        let mut files = Vec::new();
        let mut faces = Vec::new();
        for data in typst_assets::fonts() {
            let file = files.len();
            files.push(FontFile::Embedded(data));
            for (index, info) in FontInfo::iter(data).enumerate() {
                book.push(info);
                faces.push(Face {
                    file,
                    index: index as u32,
                    font: OnceLock::new(),
                });
            }
        }
        let mut paths = Vec::new();
        for dir in dirs {
            font_files(dir, &mut paths, 0);
        }
        for path in paths {
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            let file = files.len();
            let mut any = false;
            for (index, info) in FontInfo::iter(&data).enumerate() {
                book.push(info);
                faces.push(Face {
                    file,
                    index: index as u32,
                    font: OnceLock::new(),
                });
                any = true;
            }
            if any {
                files.push(FontFile::Disk {
                    path,
                    bytes: OnceLock::new(),
                });
            }
        }
        Fonts {
            book: LazyHash::new(book),
            files,
            faces,
        }
    }

    /// Whether a face of `family` (as fonts name it, case-insensitively)
    /// is known.
    pub fn has_family(&self, family: &str) -> bool {
        self.book.contains_family(&family.to_lowercase())
    }

    fn font(&self, index: usize) -> Option<Font> {
        let face = self.faces.get(index)?;
        face.font
            .get_or_init(|| {
                let bytes = match self.files.get(face.file)? {
                    FontFile::Embedded(data) => Bytes::new(*data),
                    FontFile::Disk { path, bytes } => {
                        bytes.get_or_init(|| std::fs::read(path).ok().map(Bytes::new)).clone()?
                    }
                };
                Font::new(bytes, face.index)
            })
            .clone()
    }
}

static LIBRARY: LazyLock<LazyHash<Library>> = LazyLock::new(|| LazyHash::new(Library::default()));

fn file_id(path: &str) -> FileId {
    let vpath = VirtualPath::new(path).unwrap_or_else(|_| VirtualPath::new("/main.typ").expect("a valid path"));
    RootedPath::new(VirtualRoot::Project, vpath).intern()
}

struct BookWorld<'a> {
    fonts: &'a Fonts,
    main: Source,
    images: Vec<(FileId, Bytes)>,
}

impl World for BookWorld<'_> {
    fn library(&self) -> &LazyHash<Library> {
        &LIBRARY
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &self.fonts.book
    }

    fn main(&self) -> FileId {
        self.main.id()
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.main.id() {
            Ok(self.main.clone())
        } else {
            Err(FileError::AccessDenied)
        }
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        if id == self.main.id() {
            return Ok(Bytes::from_string(self.main.clone()));
        }
        self.images
            .iter()
            .find(|(image, _)| *image == id)
            .map(|(_, bytes)| bytes.clone())
            .ok_or(FileError::AccessDenied)
    }

    fn font(&self, index: usize) -> Option<Font> {
        self.fonts.font(index)
    }

    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        None
    }
}

fn messages(errors: &[typst::diag::SourceDiagnostic]) -> String {
    errors
        .iter()
        .map(|e| e.message.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Typesets one part of a book (`part` names its source file, so the
/// elements of different parts never share a location).
pub fn typeset(text: &str, images: &[Bytes], fonts: &Fonts, part: usize) -> Result<PagedDocument, PdfError> {
    let world = BookWorld {
        fonts,
        main: Source::new(file_id(&format!("/part-{part}.typ")), text.to_owned()),
        images: images
            .iter()
            .enumerate()
            .map(|(n, bytes)| (file_id(&format!("/img/{n}")), bytes.clone()))
            .collect(),
    };
    let compiled = typst::compile::<PagedDocument>(&world).output;
    // What the compiler memoized is of no use to the next part.
    typst::comemo::evict(0);
    compiled.map_err(|errors| PdfError::Typeset(messages(&errors)))
}

/// Where each label of a typeset part is: its page in the part (from 1)
/// and point.
pub fn positions(document: &PagedDocument, labels: &[String]) -> Vec<(String, usize, Point)> {
    let introspector = document.introspector();
    labels
        .iter()
        .filter_map(|name| {
            let label = Label::new(PicoStr::intern(name))?;
            let location = introspector.query_label(label).ok()?.location()?;
            let position = introspector.position(location)?;
            Some((name.clone(), position.page.get(), position.point))
        })
        .collect()
}

/// The PDF of pages typeset part by part, as one document: its bookmarks
/// and internal links resolved across all of them.
pub fn export(pages: EcoVec<Page>, info: DocumentInfo, ident: &str) -> Result<Vec<u8>, PdfError> {
    let document = PagedDocument::new(pages, info);
    let options = typst_pdf::PdfOptions {
        ident: Smart::Custom(ident.to_owned()),
        ..typst_pdf::PdfOptions::default()
    };
    let pdf = typst_pdf::pdf(&document, &options).map_err(|errors| PdfError::Export(messages(&errors)));
    drop(document);
    typst::comemo::evict(0);
    pdf
}
