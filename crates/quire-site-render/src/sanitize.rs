//! GitBook's HTML on a published page. Pages written by GitBook carry HTML
//! where markdown has no form (tables with widths, card tables, `<mark>`
//! colours, `<kbd>`, `<picture>`, button links…). It is never escaped into
//! text and never trusted raw: card tables are laid out as cards, icon
//! tags become icons, and everything then goes through ammonia's allow-list
//! (no script, no event handler, no `javascript:` URL, no style but text
//! colours), with relative links and images resolved as the page's
//! markdown links are (a target that cannot be resolved loses its URL).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use quire_content::document::html::{attributes, icon_tag, start_tag};

use crate::html::escape;

/// Attributes that hold a URL.
const URL_ATTRIBUTES: [&str; 3] = ["href", "src", "srcset"];

/// `html` made safe to show; `resolve` gives the site URL for a URL
/// written in the page (`None`: a broken link).
pub fn clean(html: &str, resolve: &dyn Fn(&str) -> Option<String>) -> String {
    let html = if html.contains("data-view=\"cards\"") {
        Cow::Owned(lay_out_cards(html))
    } else {
        Cow::Borrowed(html)
    };
    let html = icons(&html);
    let mut urls: HashMap<String, Option<String>> = HashMap::new();
    for value in url_values(&html) {
        urls.entry(value).or_insert_with_key(|value| resolve(value));
    }
    builder(urls).clean(&html).to_string()
}

fn builder(urls: HashMap<String, Option<String>>) -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        .add_tags(["picture", "source"])
        .add_clean_content_tags(["button", "select"])
        .add_tag_attributes("a", ["id", "aria-label"])
        .add_tag_attributes("td", ["align", "width"])
        .add_tag_attributes("th", ["align", "width"])
        .add_tag_attributes("p", ["align"])
        .add_tag_attributes("img", ["loading", "decoding"])
        .add_tag_attributes("source", ["srcset", "media"])
        .add_tag_attributes("details", ["open"])
        .add_tag_attributes("mark", ["style"])
        .add_tag_attributes("span", ["aria-hidden", "data-icon"])
        .filter_style_properties(HashSet::from(["color", "background-color"]))
        .add_allowed_classes("a", ["button", "primary", "secondary", "broken", "card-link"])
        .add_allowed_classes("div", ["cards", "large", "card", "card-body", "table"])
        .add_allowed_classes("img", ["card-cover"])
        .add_allowed_classes("span", ["icon", "broken", "expression"])
        .add_allowed_classes("code", ["math"])
        .attribute_filter(move |_element, attribute, value| {
            // An icon's placeholder names an icon, and only that.
            if attribute == "data-icon" && !crate::icon::is_name(value) {
                return None;
            }
            if !URL_ATTRIBUTES.contains(&attribute) {
                return Some(Cow::Borrowed(value));
            }
            match urls.get(value) {
                Some(Some(url)) => Some(Cow::Owned(url.clone())),
                Some(None) => None,
                None => Some(Cow::Borrowed(value)),
            }
        });
    builder
}

/// Every URL attribute value written in `html` (entities decoded, as the
/// sanitizer sees them).
fn url_values(html: &str) -> Vec<String> {
    let mut values = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').map_or(rest.len(), |end| start + end + 1);
        if let Some((_, attrs)) = start_tag(&rest[start..end]) {
            values.extend(
                attrs
                    .into_iter()
                    .filter(|(name, _)| URL_ATTRIBUTES.contains(&name.as_str()))
                    .map(|(_, value)| value),
            );
        }
        rest = &rest[end..];
    }
    values
}

/// GitBook's icon tags (`<i class="fa-github">:github:</i>`) as icons (a
/// known icon's placeholder, drawn after sanitizing: `crate::icon`); the
/// name written inside is not text of the page.
fn icons(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<i ") {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let tag_end = after.find('>').map_or(after.len(), |end| end + 1);
        let close = after.find("</i>");
        match (icon_tag(&after[..tag_end]), close) {
            (Some(name), Some(close)) if close >= tag_end && !after[tag_end..close].contains('<') => {
                crate::icon::push_placeholder(&mut out, &name);
                rest = &after[close + "</i>".len()..];
            }
            _ => {
                out.push_str(&after[..tag_end]);
                rest = &after[tag_end..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// What a column of a card table holds (its header's `data-*`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CardColumn {
    Shown,
    Target,
    Cover,
    /// Hidden, or the dark-mode cover (not shown).
    Hidden,
}

/// Every `<table data-view="cards">` of `html` as a grid of cards: the
/// shown columns' cells make a card's body, the target column its link,
/// the cover column its image. Other HTML stays as it is.
fn lay_out_cards(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<table") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("</table>").map(|end| start + end + "</table>".len()) else {
            break;
        };
        let table = &rest[start..end];
        match cards(table) {
            Some(cards) => out.push_str(&cards),
            None => out.push_str(table),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// One card table as cards; `None` when it is another table.
fn cards(table: &str) -> Option<String> {
    let open_end = table.find('>')? + 1;
    let (_, table_attrs) = start_tag(&table[..open_end])?;
    let attr = |attrs: &[(String, String)], key: &str| attrs.iter().any(|(k, _)| k == key);
    if !table_attrs.iter().any(|(k, v)| k == "data-view" && v == "cards") {
        return None;
    }
    let large = table_attrs.iter().any(|(k, v)| k == "data-card-size" && v == "large");
    let columns: Vec<CardColumn> = tags_named(table, "th")
        .into_iter()
        .map(|(attrs, _)| {
            if attr(&attrs, "data-card-target") {
                CardColumn::Target
            } else if attr(&attrs, "data-card-cover") {
                CardColumn::Cover
            } else if attr(&attrs, "data-hidden") || attr(&attrs, "data-card-cover-dark") {
                CardColumn::Hidden
            } else {
                CardColumn::Shown
            }
        })
        .collect();
    let body = table.find("<tbody").map_or(table, |at| &table[at..]);
    let mut out = format!("<div class=\"cards{}\">", if large { " large" } else { "" });
    for (_, row) in tags_named(body, "tr") {
        let mut target = None;
        let mut cover = None;
        let mut shown = String::new();
        for (i, (_, cell)) in tags_named(row, "td").into_iter().enumerate() {
            match columns.get(i).copied().unwrap_or(CardColumn::Shown) {
                CardColumn::Shown => shown.push_str(&format!("<div>{cell}</div>")),
                CardColumn::Target => target = first_href(cell),
                CardColumn::Cover => cover = first_href(cell),
                CardColumn::Hidden => {}
            }
        }
        out.push_str("<div class=\"card\">");
        if let Some(cover) = cover {
            out.push_str(&format!(
                "<img class=\"card-cover\" src=\"{}\" alt=\"\" loading=\"lazy\">",
                escape(&cover)
            ));
        }
        out.push_str(&format!("<div class=\"card-body\">{shown}</div>"));
        if let Some(target) = target {
            let label = quire_content::document::html::one_line(&shown);
            out.push_str(&format!(
                "<a class=\"card-link\" href=\"{}\" aria-label=\"{}\"></a>",
                escape(&target),
                escape(&label)
            ));
        }
        out.push_str("</div>");
    }
    out.push_str("</div>");
    Some(out)
}

/// The elements named `name` in `html`, not nested in one another: each
/// one's attributes and inner HTML.
fn tags_named<'h>(html: &'h str, name: &str) -> Vec<(Vec<(String, String)>, &'h str)> {
    let mut found = Vec::new();
    let open = format!("<{name}");
    let close = format!("</{name}>");
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        // `<th` must not match `<thead`.
        if !after.starts_with(['>', ' ', '/', '\t', '\n']) {
            rest = after;
            continue;
        }
        let Some(tag_end) = after.find('>') else { break };
        let attrs = attributes(after[..tag_end].trim_end_matches('/')).unwrap_or_default();
        let inner_start = tag_end + 1;
        let (inner, next) = match after[inner_start..].find(&close) {
            Some(end) => (&after[inner_start..inner_start + end], inner_start + end + close.len()),
            None => (&after[inner_start..], after.len()),
        };
        found.push((attrs, inner));
        rest = &after[next..];
    }
    found
}

/// The `href` of the first link in a cell (GitBook writes a card's target
/// and cover as `<a href="…">…</a>`).
fn first_href(cell: &str) -> Option<String> {
    let (attrs, _) = tags_named(cell, "a").into_iter().next()?;
    attrs
        .into_iter()
        .find(|(k, _)| k == "href")
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(url: &str) -> Option<String> {
        match url {
            "../guide/setup.md" => Some("/docs/guide/setup".to_owned()),
            "../.gitbook/assets/cover.png" => Some("/docs/~files/f1".to_owned()),
            u if u.starts_with("https://") || u.starts_with('#') => Some(u.to_owned()),
            _ => None,
        }
    }

    #[test]
    fn scripts_handlers_and_bad_urls_go() {
        let html = clean(
            "<p onclick=\"x()\" align=\"center\">Hi <script>alert(1)</script><a href=\"javascript:alert(1)\">x</a><img src=x onerror=alert(1)></p><style>p{}</style>",
            &resolve,
        );
        assert!(
            !html.contains("script") && !html.contains("onclick") && !html.contains("onerror"),
            "{html}"
        );
        assert!(!html.contains("javascript:") && !html.contains("style"), "{html}");
        assert!(html.contains("<p align=\"center\">Hi "), "{html}");
    }

    #[test]
    fn gitbook_tables_marks_and_links_are_kept() {
        let html = clean(
            "<table><thead><tr><th width=\"200\" align=\"center\">A</th></tr></thead><tbody><tr><td><a href=\"../guide/setup.md\">Setup</a> <a href=\"gone.md\">gone</a> <mark style=\"color:orange;position:fixed\">hot</mark> <kbd>K</kbd></td></tr></tbody></table>",
            &resolve,
        );
        assert!(html.contains("<th width=\"200\" align=\"center\">A</th>"), "{html}");
        assert!(
            html.contains("<a href=\"/docs/guide/setup\" rel=\"noopener noreferrer\">Setup</a>"),
            "{html}"
        );
        assert!(html.contains("<a rel=\"noopener noreferrer\">gone</a>"), "{html}");
        assert!(html.contains("<mark style=\"color:orange\">hot</mark>"), "{html}");
        assert!(html.contains("<kbd>K</kbd>"), "{html}");
    }

    #[test]
    fn card_tables_are_cards() {
        let table = "<table data-view=\"cards\"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type=\"content-ref\"></th><th data-hidden data-card-cover data-type=\"image\">Cover</th></tr></thead><tbody>\
<tr><td><h4><i class=\"fa-globe\">:globe:</i></h4></td><td><strong>Setup</strong></td><td><a href=\"../guide/setup.md\">setup.md</a></td><td><a href=\"../.gitbook/assets/cover.png\">cover.png</a></td></tr></tbody></table>";
        let html = clean(table, &resolve);
        assert!(html.starts_with("<div class=\"cards\"><div class=\"card\">"), "{html}");
        assert!(
            html.contains("<img class=\"card-cover\" src=\"/docs/~files/f1\" alt=\"\" loading=\"lazy\">"),
            "{html}"
        );
        assert!(
            html.contains("<a class=\"card-link\" href=\"/docs/guide/setup\" aria-label=\"Setup\""),
            "{html}"
        );
        assert!(
            html.contains("<h4><span class=\"icon\" data-icon=\"globe\" aria-hidden=\"true\"></span></h4>"),
            "{html}"
        );
        assert!(!html.contains(":globe:") && !html.contains("setup.md<"), "{html}");
    }
}
