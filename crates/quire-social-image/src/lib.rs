//! Social preview images of published pages, without I/O: the picture a
//! link to a page shows where it is shared (`og:image`, `twitter:image`),
//! drawn as GitBook draws its own (1200×630: the site's name beside its
//! initial on the accent colour at the top, the page's title in the accent
//! colour and its description at the bottom, a glow of the accent from the
//! top right corner, on white or, for a dark site, on `#111827`).
//!
//! [`render`] writes the [`Card`] as an SVG (every text escaped, titles
//! wrapped to at most three lines and descriptions to two, measured with
//! the font's advances, an ellipsis where they go on) and rasterizes it with
//! resvg into a PNG. Text is set in Libertinus Serif (Latin, Greek,
//! Cyrillic, Hebrew), and in DejaVu Sans Mono what it lacks (Arabic,
//! symbols): two of the fonts Typst embeds (`typst-assets`), loaded once, so
//! no system font is read. A character neither has (Chinese, Japanese,
//! Korean, emoji) is left out.

use std::sync::{Arc, LazyLock};

use resvg::{tiny_skia, usvg};
use usvg::fontdb;

/// The image's width, in pixels.
pub const WIDTH: u32 = 1200;
/// The image's height, in pixels.
pub const HEIGHT: u32 = 630;

/// What a page's image shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Card {
    /// The site's title, at the top.
    pub site_title: String,
    /// The page's title, large, in the accent colour.
    pub page_title: String,
    /// The page's description, under its title.
    pub description: Option<String>,
    /// The accent colour, `#rrggbb` (anything else draws GitBook's
    /// default blue).
    pub accent: String,
    /// A dark background (the site's default theme is dark).
    pub dark: bool,
}

/// Why a card could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the card's SVG could not be read: {0}")]
    Svg(#[from] usvg::Error),
    #[error("the card could not be drawn")]
    Canvas,
    #[error("the card could not be encoded as PNG: {0}")]
    Png(String),
}

/// The card as a PNG of [`WIDTH`]×[`HEIGHT`].
pub fn render(card: &Card) -> Result<Vec<u8>, Error> {
    let svg = svg(card);
    let options = usvg::Options {
        fontdb: FONTS.db.clone(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(&svg, &options)?;
    let mut pixmap = tiny_skia::Pixmap::new(WIDTH, HEIGHT).ok_or(Error::Canvas)?;
    resvg::render(&tree, tiny_skia::Transform::identity(), &mut pixmap.as_mut());
    encode(&pixmap)
}

/// The pixmap as an RGB PNG (the card is opaque: its alpha is left out),
/// compressed at png's balanced level (some 110 KB in 25 ms; its fast
/// level doubles the size).
fn encode(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, Error> {
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|pixel| [pixel[0], pixel[1], pixel[2]])
        .collect();
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let png_error = |e: png::EncodingError| Error::Png(e.to_string());
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(&rgb).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(out)
}

/// The families text is set in, in order: a character is drawn with the
/// first that has it (Libertinus Serif: Latin, Greek, Cyrillic, Hebrew;
/// DejaVu Sans Mono: Arabic, arrows, symbols); one none has is left out.
const FAMILIES: [&str; 2] = ["Libertinus Serif", "DejaVu Sans Mono"];
/// GitBook's default accent.
const DEFAULT_ACCENT: &str = "#346ddb";
/// The margin around everything (GitBook's `p-20`).
const MARGIN: f32 = 80.0;
/// The bottom of the title and description.
const BOTTOM: f32 = HEIGHT as f32 - MARGIN;
/// The width of the title's lines, and of the description's (GitBook's
/// 75%).
const TITLE_WIDTH: f32 = WIDTH as f32 - 2.0 * MARGIN;
const DESCRIPTION_WIDTH: f32 = TITLE_WIDTH * 0.75;
/// The site's initial, in a square of this side, then its title.
const ICON: f32 = 48.0;
const SITE_SIZE: f32 = 36.0;
/// The title's size on one or two lines (GitBook's `text-8xl`), and on
/// three.
const TITLE_SIZE: f32 = 96.0;
const TITLE_SMALL: f32 = 72.0;
const DESCRIPTION_SIZE: f32 = 36.0;
/// Between the title and the description (GitBook's `mt-8`).
const DESCRIPTION_GAP: f32 = 32.0;

/// The fonts: a database for resvg, and the faces of [`FAMILIES`], regular
/// and bold, text is measured with.
struct Fonts {
    db: Arc<fontdb::Database>,
    faces: Vec<[Option<ttf_parser::Face<'static>>; 2]>,
}

static FONTS: LazyLock<Fonts> = LazyLock::new(|| {
    let mut db = fontdb::Database::new();
    let mut faces: Vec<[Option<ttf_parser::Face<'static>>; 2]> = FAMILIES.iter().map(|_| [None, None]).collect();
    for data in typst_assets::fonts() {
        for id in db.load_font_source(fontdb::Source::Binary(Arc::new(data))) {
            let Some(info) = db.face(id) else { continue };
            let Some(family) = FAMILIES
                .iter()
                .position(|name| info.families.iter().any(|(family, _)| family == name))
            else {
                continue;
            };
            let weight = match info.weight {
                _ if info.style != fontdb::Style::Normal => continue,
                fontdb::Weight::NORMAL => 0,
                fontdb::Weight::BOLD => 1,
                _ => continue,
            };
            faces[family][weight] = ttf_parser::Face::parse(data, info.index).ok();
        }
    }
    db.set_serif_family(FAMILIES[0]);
    db.set_sans_serif_family(FAMILIES[0]);
    Fonts {
        db: Arc::new(db),
        faces,
    }
});

/// Which of [`FAMILIES`] draws `c`, and its advance there (in ems).
fn face_for(c: char, bold: bool) -> Option<(usize, f32)> {
    FONTS.faces.iter().enumerate().find_map(|(family, faces)| {
        let face = faces[usize::from(bold)].as_ref()?;
        let advance = face.glyph_hor_advance(face.glyph_index(c)?)?;
        Some((family, f32::from(advance) / f32::from(face.units_per_em())))
    })
}

/// The card as an SVG document.
fn svg(card: &Card) -> String {
    let accent = color(&card.accent).unwrap_or(DEFAULT_ACCENT.to_owned());
    let (background, body) = if card.dark {
        ("#111827", "#ffffff")
    } else {
        ("#ffffff", "#111827")
    };
    let on_accent = text_on(&accent);
    let site_title = clean(&card.site_title);
    let initial: String = site_title
        .chars()
        .find(|c| c.is_alphanumeric())
        .into_iter()
        .flat_map(char::to_uppercase)
        .collect();
    let site_line = wrap(&site_title, true, SITE_SIZE, TITLE_WIDTH - ICON - 16.0, 1);

    // The title on at most two lines at full size, else three smaller.
    let page_title = clean(&card.page_title);
    let (mut title_size, mut title) = (TITLE_SIZE, wrap(&page_title, true, TITLE_SIZE, TITLE_WIDTH, 2));
    if title.cut {
        title_size = TITLE_SMALL;
        title = wrap(&page_title, true, TITLE_SMALL, TITLE_WIDTH, 3);
    }
    let description = card
        .description
        .as_deref()
        .map(|d| wrap(&clean(d), false, DESCRIPTION_SIZE, DESCRIPTION_WIDTH, 2))
        .map(|w| w.lines)
        .unwrap_or_default();

    let mut out = String::with_capacity(4096);
    out.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"{}\">\
         <defs><radialGradient id=\"glow\" cx=\"1\" cy=\"0\" r=\"1\">\
         <stop offset=\"0\" stop-color=\"{accent}\"/><stop offset=\"1\" stop-color=\"{accent}\" stop-opacity=\"0\"/>\
         </radialGradient></defs>\
         <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"{background}\"/>\
         <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"url(#glow)\" opacity=\"0.5\"/>\
         <rect x=\"{MARGIN}\" y=\"{MARGIN}\" width=\"{ICON}\" height=\"{ICON}\" rx=\"10\" fill=\"{accent}\"/>",
        FAMILIES[0]
    ));
    let middle = MARGIN + ICON / 2.0;
    let bold = |size, fill| Style {
        size,
        bold: true,
        fill,
        centred: false,
    };
    if !initial.is_empty() {
        let style = Style {
            centred: true,
            ..bold(28.0, on_accent)
        };
        text(&mut out, MARGIN + ICON / 2.0, baseline(middle, 28.0), &style, &initial);
    }
    for line in &site_line.lines {
        let y = baseline(middle, SITE_SIZE);
        text(&mut out, MARGIN + ICON + 16.0, y, &bold(SITE_SIZE, body), line);
    }

    // Title and description from the bottom up.
    let title_height = title_size * 1.1;
    let description_height = DESCRIPTION_SIZE * 1.3;
    let mut top = BOTTOM - title.lines.len() as f32 * title_height;
    if !description.is_empty() {
        top -= DESCRIPTION_GAP + description.len() as f32 * description_height;
    }
    for line in &title.lines {
        let y = baseline(top + title_height / 2.0, title_size);
        text(&mut out, MARGIN, y, &bold(title_size, &accent), line);
        top += title_height;
    }
    top += DESCRIPTION_GAP;
    let regular = Style {
        bold: false,
        ..bold(DESCRIPTION_SIZE, body)
    };
    for line in &description {
        let y = baseline(top + description_height / 2.0, DESCRIPTION_SIZE);
        text(&mut out, MARGIN, y, &regular, line);
        top += description_height;
    }
    out.push_str("</svg>");
    out
}

/// The baseline that centres capitals of `size` on `middle`.
fn baseline(middle: f32, size: f32) -> f32 {
    middle + size * 0.33
}

/// How a line of text is drawn.
struct Style<'a> {
    size: f32,
    bold: bool,
    /// Its colour (`#rrggbb`).
    fill: &'a str,
    /// Centred on its `x` (else starting there).
    centred: bool,
}

/// A `<text>` element of one line, its text escaped.
fn text(out: &mut String, x: f32, y: f32, style: &Style<'_>, text: &str) {
    let Style {
        size,
        bold,
        fill,
        centred,
    } = *style;
    out.push_str(&format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" font-weight=\"{}\" fill=\"{fill}\"{}>",
        if bold { 700 } else { 400 },
        if centred { " text-anchor=\"middle\"" } else { "" }
    ));
    // Runs of another family than the first in their own `<tspan>`: each
    // drawn with the font it was measured with.
    let mut family = 0;
    for c in text.chars() {
        let Some((of, _)) = face_for(c, bold) else { continue };
        if of != family && !c.is_whitespace() {
            if family != 0 {
                out.push_str("</tspan>");
            }
            if of != 0 {
                out.push_str(&format!("<tspan font-family=\"{}\">", FAMILIES[of]));
            }
            family = of;
        }
        escape_into(out, c);
    }
    if family != 0 {
        out.push_str("</tspan>");
    }
    out.push_str("</text>");
}

/// `c` escaped for XML (content and attribute values).
fn escape_into(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&apos;"),
        c => out.push(c),
    }
}

/// `text` with control characters (line breaks, tabs) as spaces, what no
/// font here draws left out (with what XML may not hold), and its spaces
/// collapsed.
fn clean(text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .filter(|c| c.is_whitespace() || face_for(*c, false).is_some() || face_for(*c, true).is_some())
        .collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `color` if it is `#rrggbb` (or `#rgb`), in lower case.
fn color(color: &str) -> Option<String> {
    let hex = color.trim().strip_prefix('#')?;
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    match hex.len() {
        6 => Some(format!("#{}", hex.to_ascii_lowercase())),
        3 => Some(format!(
            "#{}",
            hex.chars()
                .flat_map(|c| [c, c])
                .collect::<String>()
                .to_ascii_lowercase()
        )),
        _ => None,
    }
}

/// White or near-black, whichever reads better on `background`
/// (`#rrggbb`).
fn text_on(background: &str) -> &'static str {
    let channel = |i: usize| {
        let v = f64::from(u8::from_str_radix(background.get(i..i + 2).unwrap_or("00"), 16).unwrap_or(0)) / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    // Contrast with white against contrast with #111827 (luminance 0.0118).
    if 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.0618 {
        "#ffffff"
    } else {
        "#111827"
    }
}

/// Lines of a text, and whether the text was cut short.
struct Wrapped {
    lines: Vec<String>,
    cut: bool,
}

/// The width of `text` at `size`, by the advances of the fonts that draw
/// it.
fn width(text: &str, bold: bool, size: f32) -> f32 {
    text.chars()
        .filter_map(|c| face_for(c, bold))
        .map(|(_, advance)| advance)
        .sum::<f32>()
        * size
}

/// `text` in lines of at most `max_width` at `size`, at most `max_lines` of
/// them, broken between words (inside a word too long for a line); the
/// last line ends with an ellipsis when the text goes on.
fn wrap(text: &str, bold: bool, size: f32, max_width: f32, max_lines: usize) -> Wrapped {
    let fits = |line: &str| width(line, bold, size) <= max_width;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let joined = if line.is_empty() {
            word.to_owned()
        } else {
            format!("{line} {word}")
        };
        if fits(&joined) {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        line = word.to_owned();
        // A word wider than a line is broken where it reaches the edge.
        while !fits(&line) {
            let mut head = String::new();
            for c in line.chars() {
                head.push(c);
                if !fits(&head) {
                    head.pop();
                    break;
                }
            }
            if head.is_empty() {
                head = line.chars().take(1).collect();
            }
            line = line[head.len()..].to_owned();
            lines.push(head);
        }
        if lines.len() > max_lines {
            break;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    let cut = lines.len() > max_lines;
    if cut {
        lines.truncate(max_lines);
        if let Some(last) = lines.last_mut() {
            loop {
                let shortened = format!("{}…", last.trim_end());
                if fits(&shortened) || last.is_empty() {
                    *last = shortened;
                    break;
                }
                last.pop();
            }
        }
    }
    Wrapped { lines, cut }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(title: &str) -> Card {
        Card {
            site_title: "Acme Docs".into(),
            page_title: title.into(),
            description: Some("How to install, configure and run Acme on your own servers.".into()),
            accent: "#346DDB".into(),
            dark: false,
        }
    }

    /// The PNG's width and height, decoded.
    fn decoded(png_bytes: &[u8]) -> (u32, u32) {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
        let frame = reader.next_frame(&mut pixels).expect("a frame");
        (frame.width, frame.height)
    }

    #[test]
    fn a_card_is_a_png_of_1200_by_630() {
        let bytes = render(&card("Getting started")).expect("rendered");
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(decoded(&bytes), (WIDTH, HEIGHT));
        let dark = render(&Card {
            dark: true,
            description: None,
            ..card("Getting started")
        })
        .expect("rendered");
        assert_eq!(decoded(&dark), (WIDTH, HEIGHT));
    }

    #[test]
    fn markup_in_titles_is_text() {
        let title = "<script>alert(\"x\") & 'y'</script> ]]> <!--";
        let mut markup = card(title);
        markup.site_title = "A & B <docs>".into();
        markup.description = Some("\"quoted\" & <b>bold</b>\u{0}\u{1b}\u{FFFF}".into());
        markup.accent = "red\"/><script>".into();
        let svg = svg(&markup);
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(svg.contains("&lt;script&gt;alert(&quot;x&quot;) &amp;"), "{svg}");
        assert!(svg.contains("&apos;y&apos;&lt;/script&gt; ]]&gt; &lt;!--"), "{svg}");
        assert!(svg.contains(DEFAULT_ACCENT));
        let bytes = render(&markup).expect("rendered");
        assert_eq!(decoded(&bytes), (WIDTH, HEIGHT));
    }

    #[test]
    fn long_titles_and_descriptions_are_cut_with_an_ellipsis() {
        let long = "A very long title about configuring everything ".repeat(20);
        let mut long_card = card(&long);
        long_card.description = Some("word ".repeat(400));
        let svg = svg(&long_card);
        assert_eq!(svg.matches("font-size=\"72\"").count(), 3, "{svg}");
        assert_eq!(svg.matches("font-size=\"36\" font-weight=\"400\"").count(), 2, "{svg}");
        assert_eq!(svg.matches('…').count(), 2, "{svg}");
        assert_eq!(decoded(&render(&long_card).expect("rendered")), (WIDTH, HEIGHT));
        // One word longer than a line, and text no font here has.
        let unbroken = card(&"x".repeat(500));
        assert_eq!(decoded(&render(&unbroken).expect("rendered")), (WIDTH, HEIGHT));
        let foreign = card("導入ガイド — Руководство — مقدمة");
        assert_eq!(decoded(&render(&foreign).expect("rendered")), (WIDTH, HEIGHT));
    }

    #[test]
    fn characters_are_drawn_with_a_font_that_has_them() {
        let svg = svg(&card("導入: Руководство ✓ مقدمة"));
        assert!(!svg.contains('導'), "no font here has it: {svg}");
        assert!(
            svg.contains(">: Руководство <tspan font-family=\"DejaVu Sans Mono\">✓ مقدمة</tspan></text>"),
            "{svg}"
        );
        // Measured as drawn: the fallback's advances, nothing for what is
        // left out.
        assert!(width("✓", true, 100.0) > 50.0);
        assert_eq!(clean("導入 ガイド"), "");
    }

    #[test]
    fn short_titles_are_large_and_whole() {
        let wrapped = wrap("Getting started", true, TITLE_SIZE, TITLE_WIDTH, 2);
        assert_eq!(wrapped.lines, vec!["Getting started".to_owned()]);
        assert!(!wrapped.cut);
        let two = wrap("word ".repeat(12).trim(), true, TITLE_SIZE, TITLE_WIDTH, 2);
        assert!(two.lines.len() <= 2);
        for line in &two.lines {
            assert!(width(line, true, TITLE_SIZE) <= TITLE_WIDTH);
        }
        assert!(
            FONTS.faces.iter().flatten().all(Option::is_some),
            "Libertinus Serif and DejaVu Sans Mono are embedded"
        );
    }

    #[test]
    fn colours_are_checked_and_text_reads_on_them() {
        assert_eq!(color("#346DDB").as_deref(), Some("#346ddb"));
        assert_eq!(color("#abc").as_deref(), Some("#aabbcc"));
        assert_eq!(color("red"), None);
        assert_eq!(color("#12345g"), None);
        assert_eq!(text_on("#346ddb"), "#ffffff");
        assert_eq!(text_on("#fde047"), "#111827");
    }

    /// How long a card takes (`cargo test --release -p quire-social-image
    /// -- --nocapture timing`).
    #[test]
    fn timing() {
        let card = card("Configuring single sign-on with SAML and OpenID Connect");
        render(&card).expect("rendered");
        let runs = 10;
        let start = std::time::Instant::now();
        let mut bytes = 0;
        for _ in 0..runs {
            bytes = render(&card).expect("rendered").len();
        }
        println!(
            "one card: {:.1} ms, {bytes} bytes",
            start.elapsed().as_secs_f64() * 1000.0 / f64::from(runs)
        );
        // `SOCIAL_IMAGE_SAMPLES=dir` writes sample cards there to look at.
        if let Some(dir) = std::env::var_os("SOCIAL_IMAGE_SAMPLES") {
            let long = Card {
                page_title: "A very long title about configuring everything ".repeat(4),
                description: Some("word ".repeat(100)),
                ..card.clone()
            };
            let foreign = Card {
                page_title: "導入ガイド — Руководство — مقدمة".into(),
                ..card.clone()
            };
            let dark = Card {
                dark: true,
                accent: "#fde047".into(),
                ..card.clone()
            };
            for (name, card) in [("card", &card), ("long", &long), ("dark", &dark), ("foreign", &foreign)] {
                let path = std::path::Path::new(&dir).join(format!("{name}.png"));
                std::fs::write(path, render(card).expect("rendered")).expect("written");
            }
        }
    }
}
