//! Which images a book shows, decided before anything is typeset, so that
//! no image file can exhaust the memory of the typesetter or fail the book.
//!
//! Typst decodes a raster image whole and keeps it decoded for as long as a
//! page shows it, which is until the PDF is written; an image's encoded size
//! says nothing about that (a 30000×30000 grey PNG of one colour compresses
//! to under 1 MiB and decodes to 900 MB). So the size an image decodes to
//! is read from its header, without decoding it: an image of more than
//! [`MAX_IMAGE_PIXELS`] is left out, and once the book's shown images would
//! decode to more than [`MAX_BOOK_IMAGE_MEMORY`], later ones are left out.
//! Left out means shown as a placeholder, its alternative text, as images
//! Typst cannot read are; nothing is downscaled (that would mean decoding
//! the image whole first).
//!
//! SVGs are vector graphics, cheap whatever size they declare, but they may
//! link images: a link to a file (`<image href="img.png">`, common in
//! exported diagrams) cannot be loaded and would fail the whole book, so
//! such elements are cut out of the SVG; images embedded as `data:` URIs
//! stay when they are raster images within the same limits (they count
//! towards the book's budget, since they are decoded when the PDF is
//! written). SVGs of more than [`MAX_SVG_NODES`] XML nodes, or compressed
//! ones that inflate to more than [`MAX_SVG_BYTES`], are left out.

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::ops::Range;

use image::ImageDecoder;
use quire_content::document::Block;
use typst::foundations::{Bytes, Smart};
use typst::visualize::{ExchangeFormat, ImageFormat, RasterFormat, RasterImage, SvgImage, VectorFormat};

use crate::{Book, PageBody};

/// Images of more pixels than this are left out. 40 megapixels holds any
/// camera photo (24 MP) or 8K screenshot (33 MP) and decodes to at most
/// 320 MB (16-bit RGBA), which is already more than a page needs.
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;

/// At most this many bytes of decoded images per book (what their headers
/// say they decode to, counted again for each part of the book showing
/// them, since each part decodes its own): about 60 full-HD RGBA
/// screenshots. Typst holds them all until the PDF is written, and writing
/// it converts each to 8-bit colour and alpha (up to as much again), so
/// this bounds the images' share of a PDF's memory.
pub const MAX_BOOK_IMAGE_MEMORY: u64 = 512 * 1024 * 1024;

/// SVGs of more XML nodes than this are left out: usvg allows a million
/// elements after expanding `<use>`, a tree of several hundred megabytes.
pub const MAX_SVG_NODES: u32 = 200_000;

/// A compressed SVG (`.svgz`) that inflates to more than this is left out.
pub const MAX_SVG_BYTES: u64 = 20 * 1024 * 1024;

/// What a book may show of its images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Pixels per image (raster images, and those embedded in SVGs).
    pub image_pixels: u64,
    /// Decoded bytes of all images shown, counted per part.
    pub book_memory: u64,
}

/// The limits PDFs are made with.
pub const LIMITS: Limits = Limits {
    image_pixels: MAX_IMAGE_PIXELS,
    book_memory: MAX_BOOK_IMAGE_MEMORY,
};

/// The images one part shows, by file id: the bytes Typst is given (an SVG
/// without its linked images).
pub type Shown = HashMap<String, Bytes>;

/// An image that can be shown, and what it decodes to.
struct Prepared {
    bytes: Bytes,
    memory: u64,
}

/// The images each of `parts` shows (in the same order), in reading order
/// until the book's budget is spent.
pub fn select(book: &Book, parts: &[Range<usize>], limits: &Limits) -> Vec<Shown> {
    let mut prepared: HashMap<&str, Option<Prepared>> = HashMap::new();
    let mut spent: u64 = 0;
    let mut shown = Vec::with_capacity(parts.len());
    for range in parts {
        let mut part = Shown::new();
        for id in image_files(book, range.clone()) {
            if part.contains_key(id) {
                continue;
            }
            let image = prepared.entry(id).or_insert_with(|| {
                let bytes = book.files.get(id)?.bytes.as_deref()?;
                let image = prepare(bytes, limits);
                // What checking it decoded is of no use to the typesetting
                // (which decodes part by part): one image decoded at a time.
                typst::comemo::evict(0);
                image
            });
            let Some(image) = image else { continue };
            if spent.saturating_add(image.memory) > limits.book_memory {
                continue;
            }
            spent += image.memory;
            part.insert(id.to_owned(), image.bytes.clone());
        }
        shown.push(part);
    }
    shown
}

/// The files the pages of `range` show as images (with what they include),
/// in reading order.
fn image_files(book: &Book, range: Range<usize>) -> Vec<&str> {
    let mut ids = Vec::new();
    for page in book.pages.get(range).unwrap_or_default() {
        let PageBody::Document(document) = &page.body else {
            continue;
        };
        ids.extend(document.image_files());
        for block in document.walk() {
            if let Block::Include { path } = block
                && let Some(included) = book.includes.get(&(page.id.clone(), path.clone()))
            {
                ids.extend(included.image_files());
            }
        }
    }
    ids
}

/// The bytes to show for an image file, if Typst can read it and it is
/// within the limits per image.
fn prepare(bytes: &[u8], limits: &Limits) -> Option<Prepared> {
    match ImageFormat::detect(bytes)? {
        ImageFormat::Raster(RasterFormat::Exchange(format)) => {
            let memory = raster_size(bytes, format, limits)?;
            let bytes = Bytes::new(bytes.to_vec());
            // Decoded now (once the size is known to be bearable), so a
            // broken image shows its alternative text instead of failing
            // the book.
            RasterImage::new(bytes.clone(), format, Smart::Auto).ok()?;
            Some(Prepared { bytes, memory })
        }
        ImageFormat::Vector(VectorFormat::Svg) => {
            let (text, memory) = clean_svg(bytes, limits)?;
            let bytes = Bytes::from_string(text);
            SvgImage::new(bytes.clone()).ok()?;
            Some(Prepared { bytes, memory })
        }
        _ => None,
    }
}

/// The bytes a raster image decodes to, read from its header, if it has
/// at most `limits.image_pixels` pixels.
fn raster_size(bytes: &[u8], format: ExchangeFormat, limits: &Limits) -> Option<u64> {
    fn size(decoder: impl ImageDecoder) -> (u64, u64) {
        let (width, height) = decoder.dimensions();
        (u64::from(width) * u64::from(height), decoder.total_bytes())
    }
    let cursor = Cursor::new(bytes);
    let (pixels, memory) = match format {
        ExchangeFormat::Png => size(image::codecs::png::PngDecoder::new(cursor).ok()?),
        ExchangeFormat::Jpg => size(image::codecs::jpeg::JpegDecoder::new(cursor).ok()?),
        ExchangeFormat::Gif => size(image::codecs::gif::GifDecoder::new(cursor).ok()?),
        ExchangeFormat::Webp => size(image::codecs::webp::WebPDecoder::new(cursor).ok()?),
    };
    (pixels <= limits.image_pixels).then_some(memory)
}

/// An SVG's text without the images it links (elements `image` and
/// `feImage` whose `href` is not an acceptable `data:` URI), and the bytes
/// the images it embeds decode to; `None` when it is not a readable SVG
/// within the limits.
fn clean_svg(bytes: &[u8], limits: &Limits) -> Option<(String, u64)> {
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut inflated = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(MAX_SVG_BYTES + 1)
            .read_to_end(&mut inflated)
            .ok()?;
        if inflated.len() as u64 > MAX_SVG_BYTES {
            return None;
        }
        String::from_utf8(inflated).ok()?
    } else {
        std::str::from_utf8(bytes).ok()?.to_owned()
    };
    let (cuts, memory) = linked_images(&text, limits)?;
    if cuts.is_empty() {
        return Some((text, memory));
    }
    let mut cleaned = String::with_capacity(text.len());
    let mut at = 0;
    for cut in cuts {
        if cut.start < at {
            // Inside an element already cut.
            continue;
        }
        cleaned.push_str(text.get(at..cut.start)?);
        at = cut.end;
    }
    cleaned.push_str(text.get(at..)?);
    // An element not cut where it was found (say, one an entity expands
    // to) leaves the SVG unshowable rather than failing the book.
    let (left, memory) = linked_images(&cleaned, limits)?;
    left.is_empty().then_some((cleaned, memory))
}

/// Where the elements to cut out of an SVG are (in document order), and the
/// bytes its embedded images decode to.
fn linked_images(text: &str, limits: &Limits) -> Option<(Vec<Range<usize>>, u64)> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_SVG_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let document = roxmltree::Document::parse_with_options(text, options).ok()?;
    let mut cuts = Vec::new();
    let mut memory: u64 = 0;
    for node in document.descendants().filter(|n| n.is_element()) {
        if !matches!(node.tag_name().name(), "image" | "feImage") {
            continue;
        }
        let href = node
            .attribute(("http://www.w3.org/1999/xlink", "href"))
            .or_else(|| node.attribute("href"));
        let Some(href) = href else { continue };
        match embedded_size(href, limits) {
            Some(size) => memory = memory.saturating_add(size),
            None => cuts.push(node.range()),
        }
    }
    Some((cuts, memory))
}

/// The bytes an image embedded as a `data:` URI decodes to, if it is a
/// raster image within the limits.
fn embedded_size(href: &str, limits: &Limits) -> Option<u64> {
    let url = data_url::DataUrl::process(href.trim()).ok()?;
    let (bytes, _) = url.decode_to_vec().ok()?;
    match ImageFormat::detect(&bytes)? {
        ImageFormat::Raster(RasterFormat::Exchange(format)) => raster_size(&bytes, format, limits),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BookFile, BookPage};
    use quire_content::document::Document;

    /// A PNG of `width`×`height` 8-bit grey pixels, its header honest and
    /// its data compressed (and valid).
    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut raw = Vec::new();
        for _ in 0..height {
            raw.push(0u8);
            raw.extend(std::iter::repeat_n(0u8, width as usize));
        }
        let mut data = Vec::new();
        let mut encoder = flate2::write::ZlibEncoder::new(&mut data, flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &raw).expect("compress");
        encoder.finish().expect("compress");
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut chunk = |kind: &[u8], body: &[u8]| {
            out.extend((body.len() as u32).to_be_bytes());
            let mut crc = flate2::Crc::new();
            crc.update(kind);
            crc.update(body);
            out.extend(kind);
            out.extend(body);
            out.extend(crc.sum().to_be_bytes());
        };
        let mut header = Vec::new();
        header.extend(width.to_be_bytes());
        header.extend(height.to_be_bytes());
        header.extend([8, 0, 0, 0, 0]);
        chunk(b"IHDR", &header);
        chunk(b"IDAT", &data);
        chunk(b"IEND", &[]);
        out
    }

    fn book(files: &[(&str, Vec<u8>)], pages: &[&str]) -> Book {
        Book {
            title: "Images".into(),
            pages: pages
                .iter()
                .enumerate()
                .map(|(n, markdown)| BookPage {
                    id: format!("p{n}"),
                    title: format!("Page {n}"),
                    description: None,
                    depth: 0,
                    body: PageBody::Document(Document::from_markdown(markdown)),
                })
                .collect(),
            files: files
                .iter()
                .map(|(id, bytes)| {
                    (
                        (*id).to_owned(),
                        BookFile {
                            name: format!("{id}.png"),
                            bytes: Some(bytes.clone()),
                        },
                    )
                })
                .collect(),
            ..Book::default()
        }
    }

    fn ids(shown: &Shown) -> Vec<&str> {
        let mut ids: Vec<&str> = shown.keys().map(String::as_str).collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn images_over_the_pixel_limit_or_the_book_budget_are_left_out() {
        let limits = Limits {
            image_pixels: 100 * 100,
            book_memory: 3 * 80 * 80,
        };
        let book = book(
            &[("small", png(80, 80)), ("wide", png(101, 100)), ("other", png(80, 80))],
            &[
                "![a](/files/small) ![b](/files/wide) ![a again](/files/small)",
                "![c](/files/other)",
            ],
        );
        let shown = select(&book, &[0..1, 1..2], &limits);
        assert_eq!(ids(&shown[0]), vec!["small"], "the wide one is over the limit");
        assert_eq!(ids(&shown[1]), vec!["other"]);
        // Counted per part: the same image in a third part is over budget.
        let again = self::book(
            &[("small", png(80, 80))],
            &[
                "![a](/files/small)",
                "![a](/files/small)",
                "![a](/files/small)",
                "![a](/files/small)",
            ],
        );
        let shown = select(&again, &[0..1, 1..2, 2..3, 3..4], &limits);
        let counts: Vec<usize> = shown.iter().map(HashMap::len).collect();
        assert_eq!(counts, vec![1, 1, 1, 0]);
    }

    #[test]
    fn the_size_of_a_huge_png_is_read_from_its_header() {
        // 60000×1: a row of 60000 pixels, cheap to make, over 40000.
        let limits = Limits {
            image_pixels: 40_000,
            book_memory: u64::MAX,
        };
        assert_eq!(raster_size(&png(60_000, 1), ExchangeFormat::Png, &limits), None);
        assert_eq!(raster_size(&png(200, 200), ExchangeFormat::Png, &limits), Some(40_000));
        assert_eq!(raster_size(b"\x89PNG\r\n\x1a\n", ExchangeFormat::Png, &limits), None);
    }

    #[test]
    fn linked_images_are_cut_out_of_svgs_and_embedded_ones_kept() {
        use base64::Engine as _;
        let small = base64::engine::general_purpose::STANDARD.encode(png(10, 10));
        let huge = base64::engine::general_purpose::STANDARD.encode(png(300, 300));
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
<rect width="10" height="10"/>
<image href="img.png" width="10" height="10"/>
<image xlink:href="../secret.png" width="10" height="10"></image>
<image href="data:image/png;base64,{small}" width="10" height="10"/>
<image href="data:image/png;base64,{huge}" width="10" height="10"/>
<filter id="f"><feImage href="https://example.com/x.png"/></filter>
<text x="1" y="9">kept</text>
</svg>"#
        );
        let limits = Limits {
            image_pixels: 200 * 200,
            book_memory: u64::MAX,
        };
        let (cleaned, memory) = clean_svg(svg.as_bytes(), &limits).expect("a readable SVG");
        assert!(!cleaned.contains("img.png") && !cleaned.contains("secret") && !cleaned.contains("example.com"));
        assert!(cleaned.contains(&small) && !cleaned.contains(&huge), "{cleaned}");
        assert!(
            cleaned.contains("<rect") && cleaned.contains(">kept</text>"),
            "{cleaned}"
        );
        assert_eq!(memory, 100);
        assert!(SvgImage::new(Bytes::from_string(cleaned)).is_ok());
        assert!(clean_svg(b"<svg", &limits).is_none());
        let many = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg">{}</svg>"#,
            "<g/>".repeat(MAX_SVG_NODES as usize)
        );
        assert!(clean_svg(many.as_bytes(), &limits).is_none(), "too many nodes");
    }
}
