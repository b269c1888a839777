//! The page around a document: header with the site's title, section tabs
//! and variants, the search box and the theme switch; the page tree; the
//! breadcrumbs, previous/next links and the "on this page" outline; the
//! 404 page. Everything works without JavaScript: on a phone the page tree
//! is a drawer opened by a checkbox in the header (CSS only); on a wide
//! screen the tree and the outline stay in view while reading. The inline
//! scripts (theme switch, search as you type, copy buttons on code) run
//! after the content, block nothing and are the same on every page (what
//! they show comes from `data-` attributes), so the policy admits them by
//! hash.

use crate::code_themes::CodePalette;
use crate::html::{escape, push_escaped, safe_url};
use crate::i18n::Language;

/// A link of the navigation.
#[derive(Debug, Clone)]
pub struct NavLink {
    pub title: String,
    pub href: String,
    pub current: bool,
}

/// A section tab, under its section group's title when it has one.
#[derive(Debug, Clone)]
pub struct SectionTab {
    pub group: Option<String>,
    pub link: NavLink,
}

/// An entry of the page tree, with its depth.
#[derive(Debug, Clone)]
pub struct TreeEntry {
    pub depth: usize,
    pub link: NavLink,
    /// A group heading (no page of its own).
    pub group: bool,
    /// Its subpages are unfolded (the current page is it or under it).
    pub open: bool,
}

/// A link of the header: to an address, or a dropdown of links (no address
/// of its own), drawn as a link or as a button.
#[derive(Debug, Clone, Default)]
pub struct HeaderLink {
    pub title: String,
    pub href: Option<String>,
    /// `link`, `button-primary` or `button-secondary`.
    pub style: String,
    pub links: Vec<NavLink>,
}

/// A social account: its platform, its address, and where it shows.
#[derive(Debug, Clone, Default)]
pub struct SocialLink {
    pub platform: String,
    pub url: String,
    pub header: bool,
    pub footer: bool,
}

/// What the site's customization changes on every page.
#[derive(Debug, Clone, Default)]
pub struct Look {
    /// The styling choices the stylesheet follows, as attributes of
    /// `<html>` (`data-corners="rounded"`, `data-depth="flat"`, ...).
    pub styling: Vec<(&'static str, String)>,
    /// The font of headings, when the site chose one.
    pub heading_font: Option<Font>,
    /// Where the title or logo leads, when not to the site's home
    /// (`header.primaryLink`).
    pub home_link: Option<String>,
    /// The logo shown in the dark theme, when it differs.
    pub logo_dark: Option<String>,
    /// The favicon of the dark theme, when it differs.
    pub favicon_dark: Option<String>,
    /// An emoji as the favicon.
    pub favicon_emoji: Option<String>,
    /// Links out of the site open in a new tab.
    pub external_blank: bool,
    /// The style icons are drawn in (`styling.icons`).
    pub icons: crate::icon::IconStyle,
    /// The footer's logo (light, dark), its groups of links, the site's
    /// social accounts and privacy policy.
    pub footer_logo: Option<(String, Option<String>)>,
    pub footer_groups: Vec<(String, Vec<NavLink>)>,
    pub social: Vec<SocialLink>,
    pub privacy_policy: Option<String>,
    /// The image shared links show (`og:image`).
    pub social_image: Option<String>,
    /// Its width and height in pixels, when known (the generated image's).
    pub social_image_size: Option<(u32, u32)>,
    /// No previous and next links under pages (`pagination.enabled: false`).
    pub hide_pager: bool,
    /// The edge colours of hints by style (`info`, `success`, `warning`,
    /// `danger`), light and dark, when the site chose them.
    pub hint_colors: Vec<(&'static str, String, String)>,
    /// The page actions the site offers (`pageActions.items`), in order.
    pub page_actions: Vec<String>,
    /// The address of the site's MCP server (for the `mcp` action).
    pub mcp_url: Option<String>,
    /// The page as a PDF (for the `pdf` action).
    pub pdf_url: Option<String>,
    /// Where the site's assistant answers a question (for the `assistant`
    /// action), when the site offers one.
    pub ask_url: Option<String>,
    /// Where the page is edited on its forge, and the forge's name (for
    /// the `git` action).
    pub edit_url: Option<(String, &'static str)>,
    /// The accent colour in light and dark mode.
    pub accent: Option<(String, String)>,
    /// The tint of backgrounds and lines (`styling.tint`), light and dark.
    pub tint: Option<(String, String)>,
    /// A coloured header's background and text, light then dark
    /// (`header.preset` bold or custom).
    pub header_colors: Option<[(String, String); 2]>,
    /// The text font, when the site chose one.
    pub font: Option<Font>,
    /// The font of code, when the site chose one.
    pub monospace_font: Option<Font>,
    /// `light` or `dark` when the site imposes a theme.
    pub theme: Option<String>,
    /// Whether readers may switch the theme.
    pub toggle: bool,
    pub favicon: Option<String>,
    pub logo: Option<String>,
    pub header_links: Vec<HeaderLink>,
    /// The announcement: message, link, style.
    pub announcement: Option<(String, Option<String>, String)>,
    pub copyright: Option<String>,
    /// The language of the interface (and `<html lang>`).
    pub language: Language,
    /// The colours of code the site chose (`styling.codeTheme`).
    pub code_themes: CodeThemes,
}

/// The code themes a site chose (`styling.codeTheme`), light and dark, for
/// code blocks and for the examples of OpenAPI operations: `None` keeps the
/// stylesheet's own colours (GitBook's `default-light` and `default-dark`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CodeThemes {
    pub light: Option<&'static CodePalette>,
    pub dark: Option<&'static CodePalette>,
    pub openapi_light: Option<&'static CodePalette>,
    pub openapi_dark: Option<&'static CodePalette>,
}

/// What the stylesheet gives code in each mode, to put back in the mode a
/// site left to it when its rules for the other mode would apply in both.
const SITE_CODE: [[&str; 7]; 2] = [
    [
        "var(--soft)",
        "var(--fg)",
        "var(--muted)",
        "#0a3069",
        "#0550ae",
        "#cf222e",
        "var(--bg)",
    ],
    [
        "var(--soft)",
        "var(--fg)",
        "var(--muted)",
        "#a5d6ff",
        "#79c0ff",
        "#ff7b72",
        "var(--bg)",
    ],
];

impl CodeThemes {
    /// The CSS of the themes, after the stylesheet; nothing when the site
    /// kept the defaults. Rules for light are the stylesheet's plain
    /// selectors (they hold in dark mode too unless overridden), dark ones
    /// under its two dark selectors: a mode left to the stylesheet gets its
    /// colours back whenever the other mode is themed. OpenAPI examples
    /// (`.openapi pre`) follow their own themes when they differ.
    fn push_css(&self, out: &mut String) {
        let colours = |palette: Option<&CodePalette>, dark: bool| match palette {
            Some(p) => [
                p.background,
                p.foreground,
                p.comment,
                p.string,
                p.number,
                p.keyword,
                p.background,
            ],
            None => SITE_CODE[usize::from(dark)],
        };
        let code = [self.light, self.dark];
        let openapi = [self.openapi_light, self.openapi_dark];
        if code != [None, None] {
            if code[0].is_some() {
                push_code_rules(out, "", "pre", true, colours(code[0], false));
            }
            push_code_dark(out, "pre", true, colours(code[1], true));
        }
        if openapi != code {
            push_code_rules(out, "", ".openapi pre", false, colours(openapi[0], false));
            push_code_dark(out, ".openapi pre", false, colours(openapi[1], true));
        }
    }
}

/// Rules of one mode's code colours under both of the stylesheet's dark
/// selectors (the reader's choice, and the system's without one).
fn push_code_dark(out: &mut String, pre: &str, figures: bool, colours: [&str; 7]) {
    push_code_rules(out, ":root[data-theme=dark] ", pre, figures, colours);
    out.push_str("@media (prefers-color-scheme:dark){");
    push_code_rules(out, ":root:not([data-theme=light]) ", pre, figures, colours);
    out.push('}');
}

/// Code colours (background, text, comment, string, number, keyword, the
/// copy button's background) for `pre` under `root`; with `figures`, code
/// blocks' captions, line numbers and copy buttons too, dimmed text mixed
/// from the code's own colours so they stay readable on its background.
/// Inline code (outside `pre`) keeps the stylesheet's colours.
fn push_code_rules(out: &mut String, root: &str, pre: &str, figures: bool, colours: [&str; 7]) {
    let [bg, fg, comment, string, number, keyword, button] = colours;
    out.push_str(&format!(
        "{root}{pre}{{background:{bg};color:{fg}}}{root}{pre} .c{{color:{comment}}}{root}{pre} .s{{color:{string}}}{root}{pre} .n{{color:{number}}}{root}{pre} .k{{color:{keyword}}}"
    ));
    if figures {
        let dim = if bg.starts_with('#') {
            format!("color-mix(in srgb,{fg} 60%,{bg})")
        } else {
            "var(--muted)".to_owned()
        };
        out.push_str(&format!(
            "{root}.code figcaption{{background:{bg};color:{fg}}}{root}{pre}.numbered .gutter{{color:{dim}}}{root}.code .copy{{background:{button};color:{dim}}}{root}.code .copy:hover,{root}.code .copy.done{{color:{fg}}}"
        ));
    }
}

/// A font a site chose: its family (checked to be letters, digits, spaces
/// and hyphens when saved) and, for a web font, the files of its faces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Font {
    pub family: String,
    /// The faces of a web font (none for a font only preferred when the
    /// reader has it).
    pub faces: Vec<FontFace>,
}

/// A face of a web font: its weight (`700`, or a variable font's range
/// `100 900`), its style and the characters it covers when it says (a
/// browser fetches a face only for a page that uses them), and its files:
/// `(url, format)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FontFace {
    pub weight: String,
    pub style: Option<String>,
    pub unicode_range: Option<String>,
    pub sources: Vec<(String, Option<String>)>,
}

impl Font {
    /// `@font-face` rules for the faces, shown with a fallback until the
    /// files arrive (`font-display: swap`): a web font never blocks text.
    fn push_faces(&self, out: &mut String) {
        for FontFace {
            weight,
            style,
            unicode_range,
            sources,
        } in &self.faces
        {
            let src: Vec<String> = sources
                .iter()
                .map(|(url, format)| match format {
                    // URLs were checked to hold no quotes, parentheses,
                    // backslashes or spaces when saved.
                    Some(f) => format!("url(\"{}\") format(\"{}\")", escape(url), escape(f)),
                    None => format!("url(\"{}\")", escape(url)),
                })
                .collect();
            // Weights, styles and ranges are numbers and names the server
            // chose or checked.
            let style = style.as_ref().map(|s| format!("font-style:{};", escape(s)));
            let range = unicode_range.as_ref().map(|r| format!(";unicode-range:{}", escape(r)));
            out.push_str(&format!(
                "@font-face{{font-family:\"{}\";font-weight:{};{}font-display:swap;src:{}{}}}",
                escape(&self.family),
                escape(weight),
                style.unwrap_or_default(),
                src.join(","),
                range.unwrap_or_default()
            ));
        }
    }
}

/// Everything a page shows besides its content.
#[derive(Debug, Clone, Default)]
pub struct Shell {
    pub look: Look,
    pub site_title: String,
    pub page_title: String,
    pub description: Option<String>,
    pub indexable: bool,
    pub canonical: Option<String>,
    /// The site's home, with a trailing slash.
    pub home: String,
    pub sections: Vec<SectionTab>,
    pub variants: Vec<NavLink>,
    pub tree: Vec<TreeEntry>,
    pub breadcrumbs: Vec<NavLink>,
    pub outline: Vec<(u8, String, String)>,
    pub previous: Option<NavLink>,
    pub next: Option<NavLink>,
    /// The query shown in the search box.
    pub query: String,
    /// The page asks for the full width (front matter `layout.width: wide`).
    pub wide: bool,
    /// The page hides the table of contents (`layout.tableOfContents`).
    pub tree_hidden: bool,
    /// When the page was last updated (RFC 3339), shown under it.
    pub updated: Option<String>,
    /// Where the search box searches from (the current space's URL, so
    /// its results keep the reader's navigation); the home when `None`.
    pub search_url: Option<String>,
}

const STYLE: &str = include_str!("site.css");

/// The theme switch (the text of its inline `<script>`; its hash is in the
/// pages' content security policy).
pub const THEME_SCRIPT: &str = "(function(){var d=document.documentElement,t=localStorage.getItem('quire-theme');\
if(t)d.dataset.theme=t;var b=document.getElementById('theme');if(b)b.hidden=false,b.onclick=function(){\
var n=(d.dataset.theme||(matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light'))==='dark'?'light':'dark';\
d.dataset.theme=n;localStorage.setItem('quire-theme',n)}})()";

/// Search as you type, for readers with JavaScript: the results page of the
/// query (the same server-side search the form submits to) fetched after a
/// pause in typing and shown under the box. Without JavaScript the form
/// still submits.
pub const SEARCH_SCRIPT: &str = "(function(){var f=document.querySelector('form.search');if(!f||!window.fetch)return;\
document.addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key.toLowerCase()==='k'){e.preventDefault();\
f.querySelector('input').focus()}else if((e.key==='ArrowDown'||e.key==='ArrowUp')&&f.contains(document.activeElement)){\
var a=[].slice.call(f.querySelectorAll('.suggest a'));if(!a.length)return;e.preventDefault();var k=a.indexOf(document.activeElement);\
k=e.key==='ArrowDown'?Math.min(k+1,a.length-1):k-1;if(k<0)f.querySelector('input').focus();else a[k].focus()}});\
var i=f.querySelector('input'),box=document.createElement('div'),timer,n=0;box.className='suggest';box.hidden=true;f.appendChild(box);\
i.setAttribute('autocomplete','off');i.addEventListener('input',function(){clearTimeout(timer);var q=i.value.trim();\
if(!q){box.hidden=true;return}timer=setTimeout(function(){var mine=++n;fetch(f.action+'?q='+encodeURIComponent(q))\
.then(function(r){return r.text()}).then(function(t){if(mine!==n)return;var d=new DOMParser().parseFromString(t,'text/html'),\
l=d.querySelector('ul.results');box.replaceChildren();if(l){box.appendChild(document.importNode(l,true))}\
else{var p=document.createElement('p');p.textContent=f.dataset.empty;box.appendChild(p)}box.hidden=false})},150)})})()";

/// Copy buttons on code blocks, for readers with JavaScript and a clipboard:
/// their labels come from the article's `data-copy` and `data-copied`.
pub const COPY_SCRIPT: &str = "(function(){var a=document.querySelector('article[data-copy]');if(!a||!navigator.clipboard)return;\
a.querySelectorAll('figure.code').forEach(function(f){var p=f.querySelector('pre code'),b=document.createElement('button'),t;if(!p)return;\
b.type='button';b.className='copy';b.textContent=a.dataset.copy;b.setAttribute('aria-live','polite');\
b.onclick=function(){navigator.clipboard.writeText(p.textContent).then(function(){b.textContent=a.dataset.copied;b.classList.add('done');\
clearTimeout(t);t=setTimeout(function(){b.textContent=a.dataset.copy;b.classList.remove('done')},2000)})};f.appendChild(b)})})()";

/// The page actions' buttons (copying the page's markdown, the MCP
/// server's address): each fetches or copies what its `data-` attributes
/// name, and says so in its own text.
pub const ACTIONS_SCRIPT: &str = "(function(){document.querySelectorAll('.actions button[data-copy-url],.actions button[data-copy-text]')\
.forEach(function(b){if(!navigator.clipboard){b.hidden=true;return}var label=b.textContent;b.onclick=function(){\
var u=b.dataset.copyUrl,w=u?fetch(u).then(function(r){return r.text()}):Promise.resolve(b.dataset.copyText);\
w.then(function(t){return navigator.clipboard.writeText(t)}).then(function(){b.textContent=b.dataset.done;\
setTimeout(function(){b.textContent=label},2000)})}})})()";

/// The page actions menu: asking the site's assistant, the page as
/// markdown (to read or copy), asking ChatGPT or Claude about it, the
/// site's MCP server, the page as a PDF, editing it on its forge (a
/// disclosure that needs no script; the copy buttons do).
fn push_page_actions(out: &mut String, shell: &Shell) {
    let look = &shell.look;
    let (Some(canonical), false) = (&shell.canonical, look.page_actions.is_empty()) else {
        return;
    };
    let t = look.language.strings();
    let markdown = format!("{canonical}.md");
    let ask = quire_core::percent::encode_component(&format!("Read {markdown} so I can ask questions about it."));
    let mut items = Vec::new();
    for action in &look.page_actions {
        match action.as_str() {
            "markdown" => {
                items.push(format!(
                    "<button type=\"button\" data-copy-url=\"{}\" data-done=\"{}\">{}</button>",
                    safe_url(&markdown),
                    escape(t.copied),
                    escape(t.copy_page)
                ));
                items.push(format!(
                    "<a href=\"{}\" type=\"text/markdown\">{}</a>",
                    safe_url(&markdown),
                    escape(t.view_markdown)
                ));
            }
            "external-ai" => {
                items.push(format!(
                    "<a href=\"https://chatgpt.com/?hints=search&amp;q={ask}\" rel=\"noopener\" target=\"_blank\">{}</a>",
                    escape(&t.open_in.replace("{}", "ChatGPT"))
                ));
                items.push(format!(
                    "<a href=\"https://claude.ai/new?q={ask}\" rel=\"noopener\" target=\"_blank\">{}</a>",
                    escape(&t.open_in.replace("{}", "Claude"))
                ));
            }
            "git" => {
                if let Some((url, forge)) = &look.edit_url {
                    items.push(format!(
                        "<a href=\"{}\" rel=\"noopener\" target=\"_blank\">{}</a>",
                        safe_url(url),
                        escape(&t.edit_on.replace("{}", forge))
                    ));
                }
            }
            "pdf" => {
                if let Some(url) = &look.pdf_url {
                    items.push(format!(
                        "<a href=\"{}\" type=\"application/pdf\">{}</a>",
                        safe_url(url),
                        escape(t.export_pdf)
                    ));
                }
            }
            "assistant" => {
                if let Some(url) = &look.ask_url {
                    items.push(format!(
                        "<form class=\"ask-page\" action=\"{}\"><input type=\"search\" name=\"q\" required placeholder=\"{ask}\" aria-label=\"{ask}\"></form>",
                        safe_url(url),
                        ask = escape(t.ask_about_page)
                    ));
                }
            }
            "mcp" => {
                if let Some(url) = &look.mcp_url {
                    items.push(format!(
                        "<button type=\"button\" data-copy-text=\"{}\" data-done=\"{}\">{}</button>",
                        escape(url),
                        escape(t.copied),
                        escape(t.copy_mcp)
                    ));
                }
            }
            _ => {}
        }
    }
    if items.is_empty() {
        return;
    }
    out.push_str(&format!(
        "<details class=\"actions\"><summary>{}</summary><div class=\"actions-menu\">{}</div></details>",
        escape(t.page_actions),
        items.join("")
    ));
}

/// The page tree as nested lists: a group's pages always show under it; a
/// page's subpages (when listed) fold under a toggle of their own beside
/// the page's link, unfolded along the current page. Needs no script.
fn push_tree(out: &mut String, entries: &[TreeEntry], subpages_of: &str) {
    out.push_str("<ul>");
    let mut i = 0;
    while i < entries.len() {
        let entry = &entries[i];
        let end = entries[i + 1..]
            .iter()
            .position(|e| e.depth <= entry.depth)
            .map_or(entries.len(), |p| i + 1 + p);
        let children = &entries[i + 1..end];
        out.push_str("<li>");
        if entry.group {
            out.push_str("<span class=\"group\">");
            push_escaped(out, &entry.link.title);
            out.push_str("</span>");
            if !children.is_empty() {
                push_tree(out, children, subpages_of);
            }
        } else {
            link(out, &entry.link, "page");
            if !children.is_empty() {
                out.push_str(&format!(
                    "<details{}><summary aria-label=\"{}\"></summary>",
                    if entry.open { " open" } else { "" },
                    escape(&subpages_of.replace("{}", &entry.link.title))
                ));
                push_tree(out, children, subpages_of);
                out.push_str("</details>");
            }
        }
        out.push_str("</li>");
        i = end;
    }
    out.push_str("</ul>");
}

fn link(out: &mut String, l: &NavLink, class: &str) {
    let current = if l.current { " aria-current=\"page\"" } else { "" };
    out.push_str(&format!(
        "<a class=\"{class}\" href=\"{}\"{current}>",
        safe_url(&l.href)
    ));
    push_escaped(out, &l.title);
    out.push_str("</a>");
}

/// `og:` and `twitter:` tags: what a shared link shows.
fn push_social_meta(out: &mut String, shell: &Shell) {
    let title = if shell.page_title.is_empty() {
        &shell.site_title
    } else {
        &shell.page_title
    };
    let mut meta = |property: &str, content: &str| {
        out.push_str(&format!(
            "<meta property=\"{property}\" content=\"{}\">",
            escape(content)
        ));
    };
    meta("og:type", "website");
    meta("og:site_name", &shell.site_title);
    meta("og:title", title);
    if let Some(description) = &shell.description {
        meta("og:description", description);
    }
    if let Some(canonical) = &shell.canonical {
        meta("og:url", canonical);
    }
    match &shell.look.social_image {
        Some(image) => {
            meta("og:image", image);
            if let Some((width, height)) = shell.look.social_image_size {
                meta("og:image:width", &width.to_string());
                meta("og:image:height", &height.to_string());
            }
            meta("twitter:card", "summary_large_image");
            meta("twitter:image", image);
        }
        None => meta("twitter:card", "summary"),
    }
}

/// The favicons: the site's (light and dark), its emoji, or a letter of
/// its title on its accent colour.
fn push_favicons(out: &mut String, shell: &Shell) {
    let look = &shell.look;
    if let Some(icon) = &look.favicon {
        out.push_str(&format!("<link rel=\"icon\" href=\"{}\">", safe_url(icon)));
        if let Some(dark) = &look.favicon_dark {
            out.push_str(&format!(
                "<link rel=\"icon\" href=\"{}\" media=\"(prefers-color-scheme: dark)\">",
                safe_url(dark)
            ));
        }
        return;
    }
    let svg = match &look.favicon_emoji {
        Some(emoji) => format!(
            "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'><text y='.9em' font-size='90'>{}</text></svg>",
            escape(emoji)
        ),
        None => {
            let letter: String = shell
                .site_title
                .chars()
                .find(|c| c.is_alphanumeric())
                .into_iter()
                .collect();
            let color = look
                .accent
                .as_ref()
                .and_then(|(light, _)| crate::color::readable_accent(light, false))
                .unwrap_or_else(|| "#0969da".to_owned());
            format!(
                "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'><rect width='100' height='100' rx='22' fill='{}'/>\
                 <text x='50' y='70' font-size='62' font-family='system-ui,sans-serif' font-weight='600' text-anchor='middle' fill='#fff'>{}</text></svg>",
                escape(&color),
                escape(&letter.to_uppercase())
            )
        }
    };
    out.push_str(&format!(
        "<link rel=\"icon\" href=\"data:image/svg+xml,{}\">",
        quire_core::percent::encode_component(&svg)
    ));
}

/// A logo standing for `name`, with its dark-theme version when it has one.
fn push_logo(out: &mut String, light: &str, dark: Option<&str>, name: &str, class: &str) {
    let light_class = if dark.is_some() { " logo-light" } else { "" };
    out.push_str(&format!(
        "<img class=\"{class}{light_class}\" src=\"{}\" alt=\"{}\" height=\"28\">",
        safe_url(light),
        escape(name)
    ));
    if let Some(dark) = dark {
        out.push_str(&format!(
            "<img class=\"{class} logo-dark\" src=\"{}\" alt=\"{}\" height=\"28\">",
            safe_url(dark),
            escape(name)
        ));
    }
}

/// A header link, a button, or a dropdown of links (a disclosure that
/// needs no script).
fn push_header_link(out: &mut String, l: &HeaderLink) {
    let class = match l.style.as_str() {
        "button-primary" => "header-link button primary",
        "button-secondary" => "header-link button",
        _ => "header-link",
    };
    if l.links.is_empty() {
        if let Some(href) = &l.href {
            out.push_str(&format!("<a class=\"{class}\" href=\"{}\">", safe_url(href)));
            push_escaped(out, &l.title);
            out.push_str("</a>");
        }
        return;
    }
    out.push_str(&format!("<details class=\"dropdown\"><summary class=\"{class}\">"));
    push_escaped(out, &l.title);
    out.push_str("</summary><ul>");
    for child in &l.links {
        out.push_str("<li>");
        link(out, child, "dropdown-link");
        out.push_str("</li>");
    }
    out.push_str("</ul></details>");
}

/// A social account's link, named by its platform.
fn push_social(out: &mut String, account: &SocialLink) {
    out.push_str(&format!(
        "<a class=\"social social-{}\" href=\"{}\" rel=\"me noopener\">",
        escape(&account.platform),
        safe_url(&account.url)
    ));
    push_escaped(out, &social_name(&account.platform));
    out.push_str("</a>");
}

/// A platform's name as people write it.
fn social_name(platform: &str) -> String {
    match platform {
        "twitter" => "X".to_owned(),
        "github" => "GitHub".to_owned(),
        "linkedin" => "LinkedIn".to_owned(),
        "youtube" => "YouTube".to_owned(),
        "tiktok" => "TikTok".to_owned(),
        other => {
            let mut chars = other.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default()
        }
    }
}

/// The footer: logo, groups of links, social accounts, privacy policy,
/// copyright (nothing when the site set none of them).
fn push_footer(out: &mut String, look: &Look) {
    let social: Vec<&SocialLink> = look.social.iter().filter(|a| a.footer).collect();
    if look.footer_logo.is_none()
        && look.footer_groups.is_empty()
        && social.is_empty()
        && look.privacy_policy.is_none()
        && look.copyright.is_none()
    {
        return;
    }
    out.push_str("<footer class=\"bottom\">");
    if let Some((light, dark)) = &look.footer_logo {
        out.push_str("<p class=\"footer-logo\">");
        push_logo(out, light, dark.as_deref(), "", "logo");
        out.push_str("</p>");
    }
    if !look.footer_groups.is_empty() {
        out.push_str("<div class=\"footer-groups\">");
        for (title, links) in &look.footer_groups {
            out.push_str("<nav class=\"footer-group\" aria-label=\"");
            push_escaped(out, title);
            out.push_str("\"><p>");
            push_escaped(out, title);
            out.push_str("</p><ul>");
            for l in links {
                out.push_str("<li>");
                link(out, l, "footer-link");
                out.push_str("</li>");
            }
            out.push_str("</ul></nav>");
        }
        out.push_str("</div>");
    }
    if !social.is_empty() {
        out.push_str("<p class=\"socials\">");
        for account in social {
            push_social(out, account);
        }
        out.push_str("</p>");
    }
    if let Some(policy) = &look.privacy_policy {
        out.push_str(&format!(
            "<p><a class=\"privacy\" href=\"{}\">{}</a></p>",
            safe_url(policy),
            escape(look.language.strings().privacy_policy)
        ));
    }
    if let Some(copyright) = &look.copyright {
        out.push_str("<p>");
        push_escaped(out, copyright);
        out.push_str("</p>");
    }
    out.push_str("</footer>");
}

/// The tint's and the header's colours as variables of each theme (the
/// stylesheet's `data-tint` and `data-header` rules use them). Colours were
/// checked to be #rgb or #rrggbb when saved.
fn push_themed_vars(out: &mut String, look: &Look) {
    let mut light = Vec::new();
    let mut dark = Vec::new();
    if let Some((l, d)) = &look.tint {
        light.push(format!("--tint:{}", escape(l)));
        dark.push(format!("--tint:{}", escape(d)));
    }
    if let Some([(bg_light, bg_dark), (fg_light, fg_dark)]) = &look.header_colors {
        light.push(format!(
            "--header-bg:{};--header-fg:{}",
            escape(bg_light),
            escape(fg_light)
        ));
        dark.push(format!(
            "--header-bg:{};--header-fg:{}",
            escape(bg_dark),
            escape(fg_dark)
        ));
    }
    if light.is_empty() {
        return;
    }
    let (light, dark) = (light.join(";"), dark.join(";"));
    out.push_str(&format!(
        ":root{{{light}}}:root[data-theme=dark]{{{dark}}}@media (prefers-color-scheme:dark){{:root:not([data-theme=light]){{{dark}}}}}"
    ));
}

/// The whole HTML page.
pub fn page(shell: &Shell, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 8192);
    let look = &shell.look;
    let t = look.language.strings();
    out.push_str(&format!("<!doctype html>\n<html lang=\"{}\"", look.language.tag()));
    if let Some(theme) = &look.theme {
        out.push_str(&format!(" data-theme=\"{}\"", escape(theme)));
    }
    for (name, value) in &look.styling {
        out.push_str(&format!(" data-{name}=\"{}\"", escape(value)));
    }
    out.push_str("><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str("<title>");
    if shell.page_title.is_empty() || shell.page_title == shell.site_title {
        push_escaped(&mut out, &shell.site_title);
    } else {
        push_escaped(&mut out, &format!("{} | {}", shell.page_title, shell.site_title));
    }
    out.push_str("</title>");
    if let Some(description) = &shell.description {
        out.push_str(&format!(
            "<meta name=\"description\" content=\"{}\">",
            escape(description)
        ));
    }
    push_social_meta(&mut out, shell);
    if !shell.indexable {
        out.push_str("<meta name=\"robots\" content=\"noindex, nofollow\">");
    }
    out.push_str(&format!(
        "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"{}\" href=\"{}rss.xml\">",
        escape(t.recent_changes),
        safe_url(&shell.home)
    ));
    if let Some(canonical) = &shell.canonical {
        out.push_str(&format!("<link rel=\"canonical\" href=\"{}\">", safe_url(canonical)));
        // The page as markdown, for readers and agents that prefer it.
        out.push_str(&format!(
            "<link rel=\"alternate\" type=\"text/markdown\" href=\"{}.md\">",
            safe_url(canonical)
        ));
    }
    push_favicons(&mut out, shell);
    out.push_str("<style>");
    out.push_str(STYLE);
    if let Some((light, dark)) = &look.accent {
        // Colours were checked to be #rgb or #rrggbb when saved; each is
        // made readable (AA) on its theme's backgrounds.
        let light = crate::color::readable_accent(light, false).unwrap_or_else(|| light.clone());
        let dark = crate::color::readable_accent(dark, true).unwrap_or_else(|| dark.clone());
        out.push_str(&format!(
            ":root{{--accent:{}}}:root[data-theme=dark]{{--accent:{}}}@media (prefers-color-scheme:dark){{:root:not([data-theme=light]){{--accent:{}}}}}",
            escape(&light),
            escape(&dark),
            escape(&dark)
        ));
    }
    push_themed_vars(&mut out, look);
    if !look.hint_colors.is_empty() {
        // Colours were checked to be #rgb or #rrggbb when saved.
        let vars = |dark: bool| {
            look.hint_colors
                .iter()
                .map(|(style, light, night)| format!("--hint-{style}:{}", escape(if dark { night } else { light })))
                .collect::<Vec<_>>()
                .join(";")
        };
        out.push_str(&format!(
            ":root{{{}}}:root[data-theme=dark]{{{dark}}}@media (prefers-color-scheme:dark){{:root:not([data-theme=light]){{{dark}}}}}",
            vars(false),
            dark = vars(true)
        ));
    }
    if let Some(font) = &look.font {
        font.push_faces(&mut out);
        out.push_str(&format!(
            "body{{font-family:\"{}\",system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}}",
            escape(&font.family)
        ));
    }
    if let Some(font) = &look.heading_font {
        // The text font's faces are declared once.
        if look.font.as_ref() != Some(font) {
            font.push_faces(&mut out);
        }
        out.push_str(&format!(
            "h1,h2,h3,h4,.brand{{font-family:\"{}\",system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}}",
            escape(&font.family)
        ));
    }
    if let Some(font) = &look.monospace_font {
        font.push_faces(&mut out);
        out.push_str(&format!(
            "code,pre{{font-family:\"{}\",ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}}",
            escape(&font.family)
        ));
    }
    look.code_themes.push_css(&mut out);
    out.push_str("</style></head><body>");
    out.push_str(&format!(
        "<a class=\"skip\" href=\"#content\">{}</a>",
        escape(t.skip_to_content)
    ));
    if let Some((message, link, style)) = &look.announcement {
        out.push_str(&format!("<div class=\"announcement hint hint-{}\">", escape(style)));
        match link {
            Some(url) => {
                out.push_str(&format!("<a href=\"{}\">", safe_url(url)));
                push_escaped(&mut out, message);
                out.push_str("</a>");
            }
            None => push_escaped(&mut out, message),
        }
        out.push_str("</div>");
    }
    out.push_str(&format!(
        "<header class=\"top\"><input type=\"checkbox\" id=\"menu\" class=\"menu\" autocomplete=\"off\" aria-label=\"{}\" aria-controls=\"tree\"><a class=\"brand\" href=\"",
        escape(t.menu)
    ));
    out.push_str(&safe_url(look.home_link.as_deref().unwrap_or(&shell.home)));
    out.push_str("\">");
    match &look.logo {
        // The logo stands for the title (its name is the title's).
        Some(logo) => push_logo(&mut out, logo, look.logo_dark.as_deref(), &shell.site_title, "logo"),
        None => push_escaped(&mut out, &shell.site_title),
    }
    out.push_str("</a>");
    for l in &look.header_links {
        push_header_link(&mut out, l);
    }
    for account in look.social.iter().filter(|a| a.header) {
        push_social(&mut out, account);
    }
    if shell.sections.len() > 1 {
        out.push_str(&format!(
            "<nav class=\"sections\" aria-label=\"{}\">",
            escape(t.sections)
        ));
        let mut group: Option<&str> = None;
        for s in &shell.sections {
            if s.group.as_deref() != group {
                if group.is_some() {
                    out.push_str("</span>");
                }
                if let Some(title) = &s.group {
                    out.push_str("<span class=\"section-group\"><span class=\"group-title\">");
                    push_escaped(&mut out, title);
                    out.push_str("</span>");
                }
                group = s.group.as_deref();
            }
            link(&mut out, &s.link, "section");
        }
        if group.is_some() {
            out.push_str("</span>");
        }
        out.push_str("</nav>");
    }
    out.push_str(&format!(
        "<form class=\"search\" role=\"search\" action=\"{}\" data-empty=\"{}\"><input type=\"search\" name=\"q\" value=\"{}\" placeholder=\"{search}\" aria-label=\"{search}\"></form>",
        safe_url(shell.search_url.as_deref().unwrap_or(&shell.home)),
        escape(t.no_results),
        escape(&shell.query),
        search = escape(t.search),
    ));
    if look.toggle {
        out.push_str(&format!(
            "<button id=\"theme\" type=\"button\" hidden aria-label=\"{}\">◐</button>",
            escape(t.switch_theme)
        ));
    }
    out.push_str("</header>");
    let class = match (shell.wide, shell.tree_hidden) {
        (false, false) => "layout",
        (true, false) => "layout wide",
        (false, true) => "layout no-tree",
        (true, true) => "layout wide no-tree",
    };
    out.push_str(&format!(
        "<div class=\"{class}\"><nav class=\"tree\" id=\"tree\" aria-label=\"{}\">",
        escape(t.pages)
    ));
    if shell.variants.len() > 1 {
        // The variants (languages, versions) as a dropdown named by the
        // one being read.
        let current = shell.variants.iter().find(|v| v.current).unwrap_or(&shell.variants[0]);
        out.push_str("<details class=\"dropdown variants\"><summary class=\"variant-current\">");
        push_escaped(&mut out, &current.title);
        out.push_str("</summary><ul>");
        for v in &shell.variants {
            out.push_str("<li>");
            link(&mut out, v, "variant");
            out.push_str("</li>");
        }
        out.push_str("</ul></details>");
    }
    push_tree(&mut out, &shell.tree, t.subpages_of);
    out.push_str("</nav><label for=\"menu\" class=\"scrim\"></label><main id=\"content\" tabindex=\"-1\">");
    if !shell.breadcrumbs.is_empty() {
        out.push_str(&format!(
            "<nav class=\"crumbs\" aria-label=\"{}\">",
            escape(t.breadcrumbs)
        ));
        for (i, crumb) in shell.breadcrumbs.iter().enumerate() {
            if i > 0 {
                out.push_str(" <span>/</span> ");
            }
            link(&mut out, crumb, "crumb");
        }
        out.push_str("</nav>");
    }
    push_page_actions(&mut out, shell);
    out.push_str(&format!(
        "<article data-copy=\"{}\" data-copied=\"{}\">",
        escape(t.copy),
        escape(t.copied)
    ));
    // Icons are drawn in the site's style (the body has placeholders).
    let body = crate::icon::resolve(body, look.icons);
    if look.external_blank {
        // The renderer marks exactly the links out of the site so; text is
        // escaped and cannot hold the mark.
        out.push_str(&body.replace(" rel=\"noopener\">", " rel=\"noopener\" target=\"_blank\">"));
    } else {
        out.push_str(&body);
    }
    out.push_str("</article>");
    if let Some(updated) = &shell.updated {
        out.push_str(&format!(
            "<p class=\"updated\">{} <time datetime=\"{}\">{}</time></p>",
            escape(t.last_updated),
            escape(updated),
            escape(updated.get(..10).unwrap_or(updated))
        ));
    }
    if !look.hide_pager && (shell.previous.is_some() || shell.next.is_some()) {
        out.push_str(&format!("<nav class=\"pager\" aria-label=\"{}\">", escape(t.pager)));
        for (l, class, label) in [(&shell.previous, "previous", t.previous), (&shell.next, "next", t.next)] {
            if let Some(l) = l {
                out.push_str(&format!(
                    "<a class=\"{class}\" href=\"{}\"><small>{}</small>",
                    safe_url(&l.href),
                    escape(label)
                ));
                push_escaped(&mut out, &l.title);
                out.push_str("</a>");
            }
        }
        out.push_str("</nav>");
    }
    out.push_str("</main>");
    if !shell.outline.is_empty() {
        out.push_str(&format!(
            "<aside class=\"outline\"><p>{}</p><ul>",
            escape(t.on_this_page)
        ));
        for (level, id, text) in &shell.outline {
            out.push_str(&format!("<li class=\"h{level}\"><a href=\"#{}\">", escape(id)));
            push_escaped(&mut out, text);
            out.push_str("</a></li>");
        }
        out.push_str("</ul></aside>");
    }
    out.push_str("</div>");
    push_footer(&mut out, look);
    if look.toggle {
        out.push_str(&format!("<script>{THEME_SCRIPT}</script>"));
    }
    out.push_str(&format!("<script>{SEARCH_SCRIPT}</script>"));
    if out.contains("<details class=\"actions\"") {
        out.push_str(&format!("<script>{ACTIONS_SCRIPT}</script>"));
    }
    if body.contains("<figure class=\"code\">") {
        out.push_str(&format!("<script>{COPY_SCRIPT}</script>"));
    }
    out.push_str("</body></html>\n");
    out
}

/// A page outside any site (a spec's public reference): the stylesheet,
/// a title and the body.
pub fn bare(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body><main class=\"bare\"><h1>{}</h1>{body}</main></body></html>\n",
        escape(title),
        escape(title)
    )
}

/// The 404 page, in the site's style (and language) when there is a site.
pub fn not_found(shell: Option<&Shell>) -> String {
    let t = shell.map_or(Language::En, |s| s.look.language).strings();
    let body = format!(
        "<h1>{}</h1><p>{}</p>",
        escape(t.page_not_found),
        escape(t.page_not_found_text)
    );
    match shell {
        Some(shell) => {
            let shell = Shell {
                wide: false,
                tree_hidden: false,
                page_title: t.page_not_found.into(),
                indexable: false,
                canonical: None,
                breadcrumbs: Vec::new(),
                outline: Vec::new(),
                previous: None,
                next: None,
                updated: None,
                ..shell.clone()
            };
            page(&shell, &body)
        }
        None => format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"robots\" content=\"noindex, nofollow\"><title>Page not found</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_faces_say_their_style_and_range_and_are_declared_once() {
        let face = |weight: &str, style: Option<&str>, range: Option<&str>| FontFace {
            weight: weight.into(),
            style: style.map(str::to_owned),
            unicode_range: range.map(str::to_owned),
            sources: vec![("/docs/~gitbook/fonts/inter.1234abcd.woff2".into(), Some("woff2".into()))],
        };
        let inter = Font {
            family: "Inter".into(),
            faces: vec![face("100 900", Some("italic"), Some("U+0000-00FF,U+0131"))],
        };
        let page = page(
            &Shell {
                look: Look {
                    font: Some(inter.clone()),
                    heading_font: Some(inter),
                    monospace_font: Some(Font {
                        family: "Brand Mono".into(),
                        faces: vec![face("700", None, None)],
                    }),
                    ..Look::default()
                },
                ..Shell::default()
            },
            "",
        );
        let named = "@font-face{font-family:\"Inter\";font-weight:100 900;font-style:italic;font-display:swap;\
            src:url(\"/docs/~gitbook/fonts/inter.1234abcd.woff2\") format(\"woff2\");unicode-range:U+0000-00FF,U+0131}";
        assert_eq!(page.matches(named).count(), 1, "{page}");
        assert!(page.contains("h1,h2,h3,h4,.brand{font-family:\"Inter\""), "{page}");
        assert!(
            page.contains(
                "@font-face{font-family:\"Brand Mono\";font-weight:700;font-display:swap;\
                 src:url(\"/docs/~gitbook/fonts/inter.1234abcd.woff2\") format(\"woff2\")}"
            ),
            "{page}"
        );
    }

    fn shell(language: Language) -> Shell {
        Shell {
            wide: false,
            tree_hidden: false,
            look: Look {
                language,
                toggle: true,
                ..Look::default()
            },
            site_title: "Docs".into(),
            page_title: "Setup".into(),
            home: "/docs/".into(),
            tree: vec![TreeEntry {
                depth: 0,
                group: false,
                open: true,
                link: NavLink {
                    title: "Setup".into(),
                    href: "/docs/setup".into(),
                    current: true,
                },
            }],
            outline: vec![(2, "install".into(), "Install".into())],
            previous: Some(NavLink {
                title: "Intro".into(),
                href: "/docs/".into(),
                current: false,
            }),
            next: Some(NavLink {
                title: "Advanced".into(),
                href: "/docs/setup/advanced".into(),
                current: false,
            }),
            ..Shell::default()
        }
    }

    #[test]
    fn pages_speak_the_language_of_the_site() {
        let en = page(&shell(Language::En), "<p>Hello</p>");
        assert!(en.starts_with("<!doctype html>\n<html lang=\"en\">"), "{en}");
        assert!(en.contains("placeholder=\"Search\""), "{en}");
        assert!(en.contains("<p>On this page</p>"), "{en}");
        assert!(
            en.contains("<a class=\"previous\" href=\"/docs/\"><small>Previous</small>Intro</a>"),
            "{en}"
        );
        assert!(en.contains("<small>Next</small>Advanced</a>"), "{en}");

        let fr = page(&shell(Language::Fr), "<p>Bonjour</p>");
        assert!(fr.starts_with("<!doctype html>\n<html lang=\"fr\">"), "{fr}");
        for text in [
            "placeholder=\"Rechercher\"",
            "data-empty=\"Aucun résultat\"",
            "<p>Sur cette page</p>",
            "<small>Précédent</small>Intro",
            "<small>Suivant</small>Advanced",
            "aria-label=\"Changer de thème\"",
            "aria-label=\"Pages\"",
        ] {
            assert!(fr.contains(text), "{text} in {fr}");
        }
        assert!(!fr.contains("On this page") && !fr.contains("Switch theme"), "{fr}");

        let ja = page(&shell(Language::Ja), "");
        assert!(
            ja.contains("<html lang=\"ja\">") && ja.contains("このページの内容"),
            "{ja}"
        );
        let zh = page(&shell(Language::Zh), "");
        assert!(
            zh.contains("<html lang=\"zh\">") && zh.contains("placeholder=\"搜索\""),
            "{zh}"
        );
    }

    #[test]
    fn the_404_page_is_localized_and_scripts_vary_with_nothing() {
        let de = not_found(Some(&shell(Language::De)));
        assert!(de.contains("<h1>Seite nicht gefunden</h1>"), "{de}");
        assert!(de.contains("<title>Seite nicht gefunden | Docs</title>"), "{de}");
        let bare = not_found(None);
        assert!(bare.contains("<h1>Page not found</h1>"), "{bare}");
        // Localized strings live in attributes: the scripts (admitted by
        // hash) are the same on every page.
        let es = page(&shell(Language::Es), "");
        for script in [THEME_SCRIPT, SEARCH_SCRIPT, COPY_SCRIPT] {
            assert!(!script.contains("No results") && !script.contains("Copied"));
        }
        for script in [THEME_SCRIPT, SEARCH_SCRIPT] {
            assert!(es.contains(&format!("<script>{script}</script>")));
        }
        assert!(!es.contains(COPY_SCRIPT), "no code, no copy script");
        let code = page(
            &shell(Language::Es),
            "<figure class=\"code\"><pre><code>x</code></pre></figure>",
        );
        assert!(code.contains(&format!("<script>{COPY_SCRIPT}</script>")));
        assert!(
            code.contains("<article data-copy=\"Copiar\" data-copied=\"Copiado\">"),
            "{code}"
        );
    }

    #[test]
    fn the_menu_is_a_named_checkbox_controlling_the_tree() {
        let ja = page(&shell(Language::Ja), "");
        assert!(
            ja.contains("<header class=\"top\"><input type=\"checkbox\" id=\"menu\" class=\"menu\" autocomplete=\"off\" aria-label=\"メニュー\" aria-controls=\"tree\">"),
            "{ja}"
        );
        assert!(
            ja.contains("<nav class=\"tree\" id=\"tree\" aria-label=\"ページ\">"),
            "{ja}"
        );
        assert!(ja.contains("<label for=\"menu\" class=\"scrim\"></label>"), "{ja}");
    }

    #[test]
    fn code_themes_colour_code_blocks_in_each_mode() {
        use crate::code_themes::chosen;
        let plain = page(&shell(Language::En), "");
        let with = |themes: CodeThemes| {
            let mut shell = shell(Language::En);
            shell.look.code_themes = themes;
            page(&shell, "")
        };
        // The defaults add nothing.
        assert_eq!(with(CodeThemes::default()), plain);
        // What is put back is the stylesheet's own.
        for (mode, prefix) in [(0, "\n"), (1, "\n:root[data-theme=dark] ")] {
            let [.., string, number, keyword, _] = SITE_CODE[mode];
            assert!(STYLE.contains(&format!("{prefix}.k{{color:{keyword}}}")), "{keyword}");
            assert!(STYLE.contains(&format!(".s{{color:{string}}}")), "{string}");
            assert!(STYLE.contains(&format!(".n{{color:{number}}}")), "{number}");
        }
        let dark = ":root[data-theme=dark] pre{background:#282a36;color:#f8f8f2}";
        let system =
            "@media (prefers-color-scheme:dark){:root:not([data-theme=light]) pre{background:#282a36;color:#f8f8f2}";
        let both = with(CodeThemes {
            light: chosen("github-light"),
            dark: chosen("dracula"),
            openapi_light: chosen("github-light"),
            openapi_dark: chosen("dracula"),
        });
        for rule in [
            "pre{background:#ffffff;color:#24292e}",
            "pre .k{color:#d73a49}",
            dark,
            ":root[data-theme=dark] pre .s{color:#f1fa8c}",
            system,
            "pre.numbered .gutter{color:color-mix(in srgb,#24292e 60%,#ffffff)}",
            ".code .copy{background:#ffffff;",
        ] {
            assert!(both.contains(rule), "{rule} in {both}");
        }
        // Inline code keeps the stylesheet's colours; OpenAPI examples,
        // themed alike, need no rules of their own.
        assert!(!both.contains("}code{") && !both.contains(".openapi pre"), "{both}");
        // Dark only: no light rules.
        let night = with(CodeThemes {
            dark: chosen("dracula"),
            openapi_dark: chosen("dracula"),
            ..CodeThemes::default()
        });
        assert!(night.contains(dark) && night.contains(system), "{night}");
        assert_eq!(night.matches("pre{background:#282a36").count(), 2, "{night}");
        // Light only: dark mode gets the stylesheet's colours back.
        let day = with(CodeThemes {
            light: chosen("dracula"),
            openapi_light: chosen("dracula"),
            ..CodeThemes::default()
        });
        assert!(day.contains("pre{background:#282a36;color:#f8f8f2}pre .c{"), "{day}");
        assert!(!day.contains("] pre{background:#282a36"), "{day}");
        assert!(
            day.contains(":root[data-theme=dark] pre{background:var(--soft);color:var(--fg)}")
                && day.contains(":root[data-theme=dark] pre .k{color:#ff7b72}"),
            "{day}"
        );
        // OpenAPI examples on their own theme.
        let api = with(CodeThemes {
            openapi_light: chosen("nord"),
            openapi_dark: chosen("nord"),
            ..CodeThemes::default()
        });
        let css = api.split_once(STYLE).unwrap().1.split_once("</style>").unwrap().0;
        assert!(css.starts_with(".openapi pre{background:#2e3440;"), "{css}");
        assert!(
            api.contains(":root[data-theme=dark] .openapi pre{background:#2e3440;"),
            "{api}"
        );
        assert!(
            css.split('}')
                .all(|rule| rule.is_empty() || rule.contains(".openapi pre") || rule.starts_with("@media")),
            "{css}"
        );
    }
}
