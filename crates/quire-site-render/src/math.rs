//! Math (`$$…$$` blocks and inline formulas) as MathML, which browsers
//! lay out themselves: no script and no font to fetch, as GitBook's KaTeX
//! shows it without its JavaScript. A formula is parsed by
//! `pulldown-latex` (LaTeX math, KaTeX's commands); colours become numbers
//! and text is escaped, so nothing of the formula reaches an attribute.
//! A formula the parser refuses is shown as written, as code.

use crate::html::escape;

/// The MathML of `formula`, displayed as a block or inline; the formula as
/// escaped code when it cannot be read.
pub fn mathml(formula: &str, block: bool) -> String {
    let storage = pulldown_latex::Storage::new();
    let parser = pulldown_latex::Parser::new(formula, &storage);
    let config = pulldown_latex::RenderConfig {
        display_mode: if block {
            pulldown_latex::config::DisplayMode::Block
        } else {
            pulldown_latex::config::DisplayMode::Inline
        },
        ..Default::default()
    };
    let mut out = String::new();
    match pulldown_latex::push_mathml(&mut out, parser, config) {
        Ok(()) if !out.contains("<merror") => out,
        _ if block => format!("<pre class=\"math\">{}</pre>", escape(formula)),
        _ => format!("<code class=\"math\">{}</code>", escape(formula)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_become_mathml() {
        let block = mathml(r"\frac{a}{b} + \sqrt{x^2}", true);
        assert!(block.starts_with("<math display=\"block\""), "{block}");
        assert!(block.contains("<mfrac>") && block.contains("<msqrt>"), "{block}");
        let inline = mathml("E = mc^2", false);
        assert!(
            inline.starts_with("<math") && !inline.contains("display=\"block\""),
            "{inline}"
        );
    }

    #[test]
    fn hostile_formulas_stay_text() {
        for hostile in [
            r#"\text{<script>alert(1)</script>}"#,
            r#"\text{" onmouseover="alert(1)}"#,
            r#"\color{red" onload="x}{a}"#,
            r"\href{javascript:alert(1)}{x}",
            "</math><img src=x onerror=alert(1)>",
        ] {
            let html = mathml(hostile, true);
            // Whatever the formula says is text: no tag holds a handler,
            // a link or a script.
            let tags: Vec<&str> = html.split('<').skip(1).filter_map(|t| t.split('>').next()).collect();
            for tag in tags {
                let name = tag
                    .trim_start_matches('/')
                    .split_whitespace()
                    .next()
                    .unwrap_or_default();
                assert!(!["script", "img", "a", "iframe"].contains(&name), "{hostile}: {html}");
                assert!(!tag.contains(" on") && !tag.contains("href"), "{hostile}: {html}");
            }
        }
        // Unreadable math is shown as written.
        assert_eq!(mathml(r"\frac{", false), r#"<code class="math">\frac{</code>"#);
    }
}
