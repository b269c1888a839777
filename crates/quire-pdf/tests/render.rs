//! Books typeset into PDFs, checked with poppler's `pdftotext` and
//! `pdfinfo` (Debian's `poppler-utils`; `.ci/run` installs it).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

#[path = "support/images.rs"]
mod images;

use images::{huge_png, listed_images};
use quire_content::document::Document;
use quire_pdf::{Book, BookFile, BookPage, Fonts, PageBody};

/// A 1x1 PNG.
const PNG: [u8; 67] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00,
    0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn fonts() -> Fonts {
    Fonts::load(&[PathBuf::from("/usr/share/fonts")])
}

fn page(id: &str, title: &str, depth: usize, markdown: &str) -> BookPage {
    BookPage {
        id: id.into(),
        title: title.into(),
        description: None,
        depth,
        body: PageBody::Document(Document::from_markdown(markdown)),
    }
}

fn tool(name: &str, args: &[&str], pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("book.pdf");
    std::fs::write(&path, pdf).expect("write the PDF");
    let out = Command::new(name)
        .args(args)
        .arg(&path)
        .args(if name == "pdftotext" { vec!["-"] } else { vec![] })
        .output()
        .unwrap_or_else(|e| panic!("{name} (poppler-utils) must be installed: {e}"));
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A field of `pdfinfo`'s output.
fn field<'a>(info: &'a str, name: &str) -> &'a str {
    info.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(':')))
        .map(str::trim)
        .unwrap_or_default()
}

/// `setup: N`: the PDF page the "Setup" heading is on, from the outline.
fn xml_pages(xml: &str) -> String {
    xml.lines()
        .filter_map(|l| {
            let page = l.split("<item page=\"").nth(1)?.split('"').next()?;
            let title = l.split('>').nth(1)?.split('<').next()?;
            Some(format!("{}: {page}\n", title.to_lowercase()))
        })
        .collect()
}

/// Where the link on `text` goes, in `pdftohtml -xml` output.
fn link_target(xml: &str, text: &str) -> Option<String> {
    xml.lines()
        .find(|l| l.contains(&format!(">{text}</a>")))
        .and_then(|l| l.split("href=\"").nth(1))
        .and_then(|h| h.split('"').next())
        .map(str::to_owned)
}

fn book() -> Book {
    let mut files = HashMap::new();
    files.insert(
        "logo".to_owned(),
        BookFile {
            name: "logo.png".into(),
            bytes: Some(PNG.to_vec()),
        },
    );
    files.insert(
        "broken".to_owned(),
        BookFile {
            name: "broken.png".into(),
            bytes: Some(b"not an image".to_vec()),
        },
    );
    Book {
        title: "Handbook \"quoted\" #[x]".into(),
        subtitle: Some("Acme".into()),
        pages: vec![
            page(
                "intro",
                "Introduction",
                0,
                "Read [the setup](/pages/setup) first, or [the API](https://example.com/api).\n\n## Scope\n\nWhat $x$ #set text(red) does.\n\n![Logo](/files/logo)\n\n![Broken](/files/broken)\n",
            ),
            page(
                "setup",
                "Setup",
                1,
                "```bash\nquire serve --listen 127.0.0.1:8080\n```\n\n| Flag | Meaning |\n|---|---|\n| `--listen` | address |\n\n- [ ] open\n- [x] done\n\nBack to [the scope](/pages/intro#scope); [gone](/pages/missing).\n",
            ),
            page(
                "cjk",
                "多言語",
                0,
                "中文文本和日本語のテキスト。\n\n{% hint style=\"warning\" %}\n注意してください。\n{% endhint %}\n",
            ),
        ],
        files,
        ..Book::default()
    }
}

#[test]
fn a_book_is_a_pdf_with_contents_outline_and_text() {
    let fonts = fonts();
    let pdf = quire_pdf::render(&book(), &fonts).expect("the book typesets");
    if let Ok(path) = std::env::var("QUIRE_PDF_KEEP") {
        std::fs::write(path, &pdf).expect("keep the PDF");
    }
    assert!(pdf.starts_with(b"%PDF-"));
    let info = tool("pdfinfo", &[], &pdf);
    assert_eq!(field(&info, "Title"), "Handbook \"quoted\" #[x]", "{info}");
    let pages: usize = field(&info, "Pages").parse().expect("a page count");
    assert!(pages >= 4, "title, contents, and the pages: {pages}");
    let text = tool("pdftotext", &["-layout"], &pdf);
    assert!(text.contains("Contents"), "{text}");
    assert!(
        text.contains("quire serve --listen 127.0.0.1:8080"),
        "code is kept: {text}"
    );
    assert!(text.contains("#set text(red)"), "page text is text, not markup: {text}");
    assert!(text.contains("中文文本"), "CJK text is set: {text}");
    let fonts_used = tool("pdffonts", &[], &pdf);
    assert!(fonts_used.contains("CJK"), "in a CJK font, embedded: {fonts_used}");
    assert!(
        fonts_used.lines().skip(2).all(|l| l.contains(" yes ")),
        "every font embedded as a subset: {fonts_used}"
    );
    assert!(
        text.contains("[image: Broken]"),
        "a broken image shows its alt text: {text}"
    );
    // Bookmarks: pages, with their headings under them.
    let xml = tool("pdftohtml", &["-xml", "-stdout", "-i", "-q"], &pdf);
    let outline = &xml[xml.find("<outline>").expect("an outline")..];
    for entry in ["Introduction</item>", "Scope</item>", "Setup</item>", "多言語</item>"] {
        assert!(outline.contains(entry), "{entry} in {outline}");
    }
    // Links: to a page of the book, to a heading, to the web; a link to a
    // page not in the book is text.
    let link_to = |text: &str| link_target(&xml, text);
    let pages = xml_pages(&xml);
    let setup_page = field(&pages, "setup");
    assert_eq!(
        link_to("the setup").as_deref(),
        Some(format!("book.html#{setup_page}").as_str()),
        "{xml}"
    );
    assert!(
        link_to("the scope").is_some_and(|h| h.starts_with("book.html#")),
        "{xml}"
    );
    assert_eq!(link_to("the API").as_deref(), Some("https://example.com/api"));
    assert!(link_to("gone").is_none());
    // The image is in the PDF.
    let images = tool("pdfimages", &["-list"], &pdf);
    let shown: Vec<&str> = images
        .lines()
        .skip(2)
        .filter(|l| l.split_whitespace().nth(2) == Some("image"))
        .collect();
    assert_eq!(shown.len(), 1, "one image: {images}");
}

#[test]
fn hostile_content_is_text_and_always_typesets() {
    let nasty = [
        "\"]) #panic(\"no\") [(\"",
        "\\\\ \\\" \\n <label> @ref $ x^2 $ * _ ` ~ -- ---",
        "#let x = 1 #x #{ 1 + 1 } #(panic()) // comment /* block",
        "`\"]) #panic()` and **`\\`** and [link](javascript:alert(1)) and [x](/pages/nope#a+b)",
        "| a | b |\n|---|---|\n| ] | [ |\n| #panic() | \"\\ |",
        "```\"])\n#panic()\n```",
        "> > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > deep",
        "\u{0}\u{7}\u{1b}[31m control \u{202e} bidi \u{feff} bom",
        "## Same\n\n## Same\n\n## Same\n",
        "$$\n\\frac{1}{2} \"])\n$$\n",
        "![alt \"]) #panic()](/files/nope) ![](https://example.com/x.png)",
    ];
    let mut nasty: Vec<String> = nasty.iter().map(|s| s.to_string()).collect();
    nasty.push((0..30).map(|i| format!("{}- level {i}\n", "  ".repeat(i))).collect());
    nasty.push(format!("{}deep", "> - ".repeat(30)));
    nasty.push(format!("{}deep", "1. > ".repeat(30)));
    let pages = nasty
        .iter()
        .enumerate()
        .map(|(i, markdown)| page(&format!("p{i}"), &format!("{markdown} title"), i % 3, markdown))
        .collect();
    let book = Book {
        title: "#panic(\"title\")".into(),
        pages,
        ..Book::default()
    };
    let pdf = quire_pdf::render(&book, &Fonts::embedded()).expect("hostile content typesets");
    let text = tool("pdftotext", &[], &pdf);
    assert!(text.contains("#panic(\"no\")"), "{text}");
    assert!(text.contains("#let x = 1"), "{text}");
}

/// A book of several parts (typeset one by one): links across parts, the
/// table of contents' page numbers and the bookmarks are those of the one
/// document they make.
#[test]
fn a_long_book_is_one_document_across_its_parts() {
    let mut pages = Vec::new();
    for i in 0..95 {
        let mut markdown = format!("Page {i:02} text.\n\n## Part {i:02} detail\n\nMore words.\n");
        match i {
            5 => markdown.push_str("\nForward to [ninety](/pages/p90).\n"),
            90 => markdown.push_str("\nBack to [five](/pages/p5) and [its detail](/pages/p5#part-05-detail).\n"),
            12 => markdown.push_str("\nNear to [eleven](/pages/p11).\n"),
            _ => {}
        }
        pages.push(page(
            &format!("p{i}"),
            &format!("Page {i:02}"),
            usize::from(i % 10 != 0),
            &markdown,
        ));
    }
    let book = Book {
        title: "Long".into(),
        pages,
        ..Book::default()
    };
    let pdf = quire_pdf::render(&book, &fonts()).expect("the book typesets");
    let xml = tool("pdftohtml", &["-xml", "-stdout", "-i", "-q"], &pdf);
    let outline = xml_pages(&xml);
    let physical = |title: &str| -> usize {
        field(&outline, title)
            .parse()
            .unwrap_or_else(|_| panic!("{title} in {outline}"))
    };
    for title in ["page 00", "page 05", "page 45", "page 90", "page 94", "part 90 detail"] {
        physical(title);
    }
    let link_to = |text: &str| link_target(&xml, text).unwrap_or_else(|| panic!("a link on {text}"));
    assert_eq!(link_to("ninety"), format!("book.html#{}", physical("page 90")));
    assert_eq!(link_to("five"), format!("book.html#{}", physical("page 05")));
    assert_eq!(
        link_to("its detail"),
        format!("book.html#{}", physical("part 05 detail"))
    );
    assert_eq!(link_to("eleven"), format!("book.html#{}", physical("page 11")));
    // The printed numbers start after the title page and the contents.
    let front = physical("page 00") - 1;
    let text = tool("pdftotext", &["-layout", "-f", "1", "-l", &front.to_string()], &pdf);
    for title in ["Page 45", "Page 90", "Page 94"] {
        let line = text
            .lines()
            .find(|l| l.contains(title))
            .unwrap_or_else(|| panic!("{title} in the contents: {text}"));
        let number: usize = line
            .split_whitespace()
            .last()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a number on {line:?}"));
        assert_eq!(number, physical(&title.to_lowercase()) - front, "{line}");
        let printed = tool(
            "pdftotext",
            &[
                "-layout",
                "-f",
                &physical(&title.to_lowercase()).to_string(),
                "-l",
                &physical(&title.to_lowercase()).to_string(),
            ],
            &pdf,
        );
        assert!(
            printed.trim_end().ends_with(&number.to_string()),
            "the page shows {number}: {printed}"
        );
    }
}

/// The images `pdfimages -list` finds (not their masks): width and height.
fn images(pdf: &[u8]) -> Vec<(u32, u32)> {
    listed_images(&tool("pdfimages", &["-list"], pdf))
}

/// Images that decode to more than the limits show their alternative text;
/// their size is read from their header, never by decoding them.
#[test]
fn images_of_too_many_pixels_show_their_alternative_text() {
    let huge = huge_png(30_000);
    assert!(huge.len() < 1024 * 1024, "{} bytes", huge.len());
    let mut files = HashMap::new();
    for (id, bytes) in [("huge", huge.clone()), ("huge2", huge), ("logo", PNG.to_vec())] {
        files.insert(
            id.to_owned(),
            BookFile {
                name: format!("{id}.png"),
                bytes: Some(bytes),
            },
        );
    }
    let book = Book {
        title: "Pixels".into(),
        pages: vec![page(
            "p",
            "Pixels",
            0,
            "Before.\n\n![Huge diagram](/files/huge)\n\n![Huge again](/files/huge2)\n\n![Logo](/files/logo)\n\nAfter.\n",
        )],
        files,
        ..Book::default()
    };
    let pdf = quire_pdf::render(&book, &Fonts::embedded()).expect("the book typesets");
    let text = tool("pdftotext", &[], &pdf);
    assert!(
        text.contains("[image: Huge diagram]") && text.contains("[image: Huge again]"),
        "{text}"
    );
    assert!(text.contains("Before.") && text.contains("After."), "{text}");
    assert_eq!(images(&pdf), vec![(1, 1)], "only the logo");
}

/// An SVG linking an image file (as exported diagrams do) shows without
/// it; images embedded in it as `data:` URIs are kept.
#[test]
fn svgs_show_without_the_images_they_link() {
    use base64::Engine as _;
    let embedded = base64::engine::general_purpose::STANDARD.encode(PNG);
    let svg = format!(
        r#"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100" viewBox="0 0 200 100">
  <rect x="1" y="1" width="198" height="98" fill="none" stroke="black"/>
  <image href="img.png" x="10" y="10" width="50" height="50"/>
  <image xlink:href="0" x="10" y="10" width="50" height="50"/>
  <image href="data:image/png;base64,{embedded}" x="120" y="10" width="50" height="50"/>
  <text x="70" y="50" font-size="14">Diagram label</text>
</svg>"#
    );
    let mut files = HashMap::new();
    files.insert(
        "diagram".to_owned(),
        BookFile {
            name: "diagram.svg".into(),
            bytes: Some(svg.into_bytes()),
        },
    );
    let book = Book {
        title: "Diagrams".into(),
        pages: vec![page(
            "p",
            "Diagrams",
            0,
            "![The diagram](/files/diagram)\n\nBelow it.\n",
        )],
        files,
        ..Book::default()
    };
    let pdf = quire_pdf::render(&book, &Fonts::embedded()).expect("the book typesets");
    let text = tool("pdftotext", &[], &pdf);
    assert!(text.contains("Diagram label") && text.contains("Below it."), "{text}");
    assert!(!text.contains("[image: The diagram]"), "the SVG is shown: {text}");
    assert_eq!(images(&pdf), vec![(1, 1)], "the embedded image");
}
