//! Colours a site chose, made readable: an accent is text (links, the
//! current page) on the page's background and on hints' backgrounds, so
//! it must reach WCAG AA's 4.5:1 on each. A colour that does not is mixed
//! with white (dark theme) or black (light theme) until it does, the way
//! GitBook derives its dark shades from one primary colour; a colour that
//! does is kept as chosen.

/// WCAG AA's contrast for normal text.
pub const AA: f64 = 4.5;

/// The backgrounds an accent is read on in each theme (the page's, and
/// the info hint's, the darkest of the tinted ones): `site.css`'s
/// `--bg` and `--info`.
const LIGHT_BACKGROUNDS: [&str; 2] = ["#ffffff", "#ddf4ff"];
const DARK_BACKGROUNDS: [&str; 2] = ["#0d1117", "#0c2d6b"];

/// `#rgb` or `#rrggbb` as red, green and blue.
fn rgb(hex: &str) -> Option<[u8; 3]> {
    let hex = hex.strip_prefix('#')?;
    let digits: Vec<u8> = match hex.len() {
        3 => hex
            .chars()
            .map(|c| c.to_digit(16).map(|d| (d * 17) as u8))
            .collect::<Option<_>>()?,
        6 => (0..3)
            .map(|i| u8::from_str_radix(hex.get(i * 2..i * 2 + 2)?, 16).ok())
            .collect::<Option<_>>()?,
        _ => return None,
    };
    Some([digits[0], digits[1], digits[2]])
}

/// Relative luminance (WCAG 2).
fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The contrast ratio of two colours (1 to 21).
pub fn contrast(a: &str, b: &str) -> Option<f64> {
    let (la, lb) = (luminance(rgb(a)?), luminance(rgb(b)?));
    let (hi, lo) = if la > lb { (la, lb) } else { (lb, la) };
    Some((hi + 0.05) / (lo + 0.05))
}

/// `color` as an accent readable in the theme (`dark` or light): as it is
/// when it reaches 4.5:1 on every background of the theme, else mixed
/// towards white (dark) or black (light) by the least step that does. A
/// colour that cannot be read is `None`.
pub fn readable_accent(color: &str, dark: bool) -> Option<String> {
    let base = rgb(color)?;
    let (backgrounds, toward) = if dark {
        (DARK_BACKGROUNDS, 255.0)
    } else {
        (LIGHT_BACKGROUNDS, 0.0)
    };
    for step in 0..=20 {
        let share = f64::from(step) / 20.0;
        let mixed = base.map(|c| (f64::from(c) + (toward - f64::from(c)) * share).round() as u8);
        let hex = format!("#{:02x}{:02x}{:02x}", mixed[0], mixed[1], mixed[2]);
        if backgrounds.iter().all(|bg| contrast(&hex, bg).is_some_and(|c| c >= AA)) {
            return Some(if step == 0 { color.to_owned() } else { hex });
        }
    }
    None
}

/// The text colour that reads best on `background`: white or near-black
/// (`#ffffff` or `#111827`), as GitBook picks for a coloured header.
pub fn text_on(background: &str) -> &'static str {
    let white = contrast(background, "#ffffff").unwrap_or(0.0);
    let black = contrast(background, "#111827").unwrap_or(0.0);
    if white >= black { "#ffffff" } else { "#111827" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_on_a_background_is_the_more_readable_of_white_and_black() {
        assert_eq!(text_on("#0b3d91"), "#ffffff");
        assert_eq!(text_on("#ffe58f"), "#111827");
    }

    #[test]
    fn contrast_is_wcags() {
        assert!((contrast("#000", "#fff").unwrap() - 21.0).abs() < 0.01);
        assert!((contrast("#777777", "#ffffff").unwrap() - 4.48).abs() < 0.01);
        assert_eq!(contrast("red", "#fff"), None);
    }

    #[test]
    fn accents_reach_aa_on_every_background_of_their_theme() {
        // GitBook's default primary colour: fine on white, too dark at night.
        let dark = readable_accent("#346DDB", true).unwrap();
        assert_ne!(dark, "#346DDB");
        for bg in DARK_BACKGROUNDS {
            assert!(contrast(&dark, bg).unwrap() >= AA, "{dark} on {bg}");
        }
        let light = readable_accent("#346DDB", false).unwrap();
        for bg in LIGHT_BACKGROUNDS {
            assert!(contrast(&light, bg).unwrap() >= AA, "{light} on {bg}");
        }
        // A colour that reads already is kept as chosen.
        assert_eq!(readable_accent("#0550ae", false).as_deref(), Some("#0550ae"));
        assert_eq!(readable_accent("#ffd33d", true).as_deref(), Some("#ffd33d"));
        // A pale yellow is darkened for white pages.
        let yellow = readable_accent("#ffee00", false).unwrap();
        assert!(contrast(&yellow, "#ffffff").unwrap() >= AA);
        assert_eq!(readable_accent("nope", false), None);
    }
}
