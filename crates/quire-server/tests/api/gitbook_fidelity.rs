//! GitBook fidelity: a repository written the way GitBook's editor writes
//! its Git Sync format (as `GitbookIO/public-docs` does: HTML tables and
//! cards, figures, marks, icons, heading anchors, steppers, columns,
//! updates, embeds, files, an OpenAPI file in the repository, folded
//! front matter, a CJK file name, groups and folder READMEs), imported
//! through Git Sync, published and read back as a visitor: nothing escaped,
//! no raw tag, no repeated title, every page at its GitBook URL, every
//! internal link and image resolved, redirects kept, and an export with no
//! edit writes no commit. The prose is ours; the forms are GitBook's.

use serde_json::json;

use crate::git_sync::{PNG, export, import};
use crate::support::both_backends;
use crate::support::git::Repo;

const SUMMARY: &str = "# Table of contents\n\n* [Home](README.md)\n* [Getting started](getting-started/README.md)\n  * [Create an application](getting-started/create-an-application.md)\n  * [快速开始](getting-started/快速开始.md)\n\n## Build with blocks <a href=\"#blocks\" id=\"blocks\"></a>\n\n* [Cards and tables](blocks/cards-and-tables.md)\n* [Steps and columns](blocks/steps-and-columns.md)\n* [Vue.js (no-code builder)](blocks/vue.js-no-code-email-builder.md)\n\n## Reference\n\n* [API reference](api-reference.md)\n";

const HOME: &str = "---\ndescription: >-\n  Everything about the\n  widget service.\nlayout:\n  title:\n    visible: true\n---\n\n# Home\n\nStart with [Getting started](getting-started/) or the [blocks](blocks/cards-and-tables.md).\n\n<table data-view=\"cards\"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type=\"content-ref\"></th><th data-hidden data-card-cover data-type=\"image\">Cover image</th></tr></thead><tbody><tr><td><h4><i class=\"fa-rocket\">:rocket:</i></h4></td><td><strong>Create an application</strong></td><td><a href=\"getting-started/create-an-application.md\">create-an-application.md</a></td><td><a href=\".gitbook/assets/cover (1).png\">cover (1).png</a></td></tr><tr><td><h4><i class=\"fa-book\">:book:</i></h4></td><td><strong>Steps and columns</strong></td><td><a href=\"blocks/steps-and-columns.md\">steps-and-columns.md</a></td><td></td></tr></tbody></table>\n";

const CARDS: &str = "# Cards and tables\n\n## Widths and alignment <a href=\"#sizes\" id=\"sizes\"></a>\n\n<table><thead><tr><th width=\"180\">Setting</th><th align=\"center\">Default</th></tr></thead><tbody><tr><td><code>port</code></td><td><mark style=\"color:green;\">8080</mark></td></tr><tr><td>See <a href=\"../getting-started/create-an-application.md#first-run\">first run</a></td><td><kbd>Ctrl</kbd></td></tr><tr><td>Diagram</td><td><img src=\"../.gitbook/assets/diagram.png\" alt=\"The flow\"></td></tr></tbody></table>\n\n<figure><img src=\"../.gitbook/assets/cover (1).png\" alt=\"The widget dashboard\"><figcaption><p>The dashboard</p></figcaption></figure>\n\nThis is <mark style=\"background-color:yellow;\">important</mark>, press <kbd>Ctrl</kbd> + <kbd>K</kbd> <i class=\"fa-keyboard\">:keyboard:</i>.\n\n<a href=\"steps-and-columns.md\" class=\"button primary\">Next: steps</a>\n\n<details>\n\n<summary>Why tables?</summary>\n\nBecause they line things up.\n\n</details>\n\n{% file src=\"../.gitbook/assets/guide.pdf\" %}\nThe printed guide.\n{% endfile %}\n";

const STEPS: &str = "---\ndescription: Steps, columns and updates.\n---\n\n# Steps and columns\n\n{% stepper %}\n{% step %}\n### Install <a href=\"#install\" id=\"install\"></a>\n\nRun the installer.\n{% endstep %}\n\n{% step %}\n### Configure\n\nSet the port.\n{% endstep %}\n{% endstepper %}\n\n{% columns %}\n{% column width=\"50%\" %}\n**Left side**\n\nText on the left.\n{% endcolumn %}\n\n{% column %}\n<figure><img src=\"../.gitbook/assets/cover (1).png\" alt=\"Right side\"><figcaption></figcaption></figure>\n{% endcolumn %}\n{% endcolumns %}\n\n{% updates format=\"full\" %}\n{% update date=\"2025-12-25\" tags=\"beta\" %}\n## A new release\n\nIt is faster.\n{% endupdate %}\n{% endupdates %}\n\n{% embed url=\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\" %}\nA video\n{% endembed %}\n\n{% hint style=\"info\" %}\nBack to the [cards](cards-and-tables.md#sizes).\n{% endhint %}\n\n{% openapi src=\"../.gitbook/assets/widgets.yaml\" path=\"/v1/{collection}/html\" method=\"post\" %}\n[widgets.yaml](../.gitbook/assets/widgets.yaml)\n{% endopenapi %}\n";

const API: &str = "# API reference\n\n{% openapi src=\".gitbook/assets/widgets.yaml\" path=\"/widgets\" method=\"get\" %}\n[widgets.yaml](.gitbook/assets/widgets.yaml)\n{% endopenapi %}\n\n{% openapi-schemas spec=\"widgets\" schemas=\"Widget\" grouped=\"false\" %}\nThe Widget object\n{% endopenapi-schemas %}\n";

const SPEC: &str = "openapi: 3.0.3\ninfo:\n  title: Widgets\n  version: '1.0'\npaths:\n  /widgets:\n    get:\n      summary: List the widgets\n      responses:\n        '200':\n          description: The widgets\n  /v1/{collection}/html:\n    post:\n      summary: Render a collection\n      responses:\n        '200':\n          description: The HTML\ncomponents:\n  schemas:\n    Widget:\n      type: object\n      required: [name]\n      properties:\n        name:\n          type: string\n          description: What the widget is called\n";

/// The repository, in GitBook's layout.
pub(crate) fn gitbook_written_repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".gitbook.yaml",
        "root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  quickstart: getting-started/create-an-application.md\n  guides/cards: blocks/cards-and-tables.md\n  kuaisu: getting-started/快速开始.md\n",
    )
    .write("SUMMARY.md", SUMMARY)
    .write("README.md", HOME)
    .write(
        "getting-started/create-an-application.md",
        "---\nvars:\n  port: 8080\n---\n\n# Create an application\n\n## First run\n\nOpen [the home page](../) and [the cards](../blocks/cards-and-tables.md). Install version <code class=\"expression\">space.vars.version</code> and open port <code class=\"expression\">page.vars.port</code>.\n",
    )
    .write("getting-started/快速开始.md", "# 快速开始\n\n安装并运行。请参阅[区块](../blocks/cards-and-tables.md)。\n")
    .write(
        "getting-started/README.md",
        "# Getting started\n\nRead [Create an application](create-an-application.md).\n\n{% content-ref url=\"../blocks/cards-and-tables.md\" %}\n[cards-and-tables.md](../blocks/cards-and-tables.md)\n{% endcontent-ref %}\n",
    )
    .write("blocks/cards-and-tables.md", CARDS)
    .write("blocks/steps-and-columns.md", STEPS)
    .write(
        "blocks/vue.js-no-code-email-builder.md",
        "---\nlayout:\n  width: wide\n  title:\n    visible: false\n  tableOfContents:\n    visible: false\n  pagination:\n    visible: false\n---\n\n# Vue.js (no-code builder)\n\nDrag and drop.\n",
    )
    .write("api-reference.md", API)
    .write(
        "drafts/later.md",
        "# Later\n\n{% @github-files/github-code-block %}\n\nSee [the old space](https://app.gitbook.com/s/AbC123/intro).\n",
    )
    .write(".gitbook/assets/cover (1).png", PNG)
    .write(".gitbook/assets/guide.pdf", "%PDF-1.4\n%%EOF\n")
    .write(".gitbook/assets/widgets.yaml", SPEC)
    .write(".gitbook/assets/diagram.png", crate::pdf::images::huge_png(50))
    .write(".gitbook/vars.yaml", "version: 2.4.1\nproduct: Widgets\n");
    repo.commit("Docs written by GitBook");
    repo
}

/// The GitBook URL of every page: its file path (a README names its
/// folder), which is its groups' and pages' slugs where GitBook wrote the
/// repository (the group's slug is the anchor of its summary heading).
const GITBOOK_URLS: [&str; 8] = [
    "",
    "getting-started",
    "getting-started/create-an-application",
    "getting-started/快速开始",
    "blocks/cards-and-tables",
    "blocks/steps-and-columns",
    "blocks/vue.js-no-code-email-builder",
    "reference/api-reference",
];

both_backends! {
    async fn a_gitbook_written_repository_reads_as_it_did_on_gitbook(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Widgets", None).await;
        let repo = gitbook_written_repo();
        let url = repo.url();
        let result = import(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main" })).await;
        // What Quire does not understand is listed, not dropped silently.
        let notes: Vec<String> = result["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| format!("{}: {}", n["path"].as_str().unwrap(), n["note"].as_str().unwrap()))
            .collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("drafts/later.md: `{% @github-files/github-code-block %}` is not a block Quire knows"), "{notes:?}");
        assert!(notes[1].contains("(https://app.gitbook.com/s/AbC123/intro)"), "{notes:?}");
        // The organization's spec that `{% openapi-schemas spec="widgets" %}` names.
        app.post(&ada, &format!("/v1/orgs/{org}/openapi"), json!({ "slug": "widgets", "source": { "text": SPEC } }))
            .await
            .assert_status(201);
        app.run_due_jobs().await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Widgets", "spaces": [space] })).await;
        site.assert_status(201);
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let get = |path: &str| {
            let client = client.clone();
            let url = format!("{}/widgets/{path}", app.base_url);
            async move {
                let res = client.get(url).send().await.unwrap();
                let status = res.status().as_u16();
                let location = res.headers().get("location").map(|v| v.to_str().unwrap().to_owned());
                (status, location, res.text().await.unwrap())
            }
        };

        let mut pages = Vec::new();
        for path in GITBOOK_URLS {
            let (status, _, html) = get(path).await;
            assert_eq!(status, 200, "/widgets/{path} answers at its GitBook URL");
            for escaped in ["&lt;table", "&lt;mark", "&lt;figure", "&lt;i ", "&lt;a ", "&lt;kbd", "&lt;details"] {
                assert!(!html.contains(escaped), "no escaped HTML ({escaped}) on /{path}: {html}");
            }
            assert!(!html.contains("{%"), "no raw block tag on /{path}: {html}");
            assert!(!html.contains("&gt;-") && !html.contains(">-<"), "no YAML marker on /{path}");
            assert!(!html.contains("class=\"broken") && !html.contains("class=\"card broken"), "no broken link or image on /{path}: {html}");
            assert!(!html.contains("not found"), "no unresolved block on /{path}: {html}");
            let titles = if path.starts_with("blocks/vue.js") { 0 } else { 1 };
            assert_eq!(html.matches("<h1").count(), titles, "the title once on /{path}: {html}");
            pages.push(html);
        }
        let [home, _, create, cjk, cards, steps, vue, api] = <[String; 8]>::try_from(pages).unwrap();
        // Front matter `layout` as GitBook reads it.
        assert!(vue.contains("<div class=\"layout wide no-tree\">"), "{vue}");
        assert!(!vue.contains("class=\"pager\"") && !vue.contains("<li class=\"d0\">"), "{vue}");
        assert!(cards.contains("<div class=\"layout\">") && cards.contains("class=\"pager\""), "{cards}");

        // Folded front matter is the description, read as YAML.
        assert!(home.contains("Everything about the widget service."), "{home}");
        // Card tables are cards, their targets and covers resolved.
        assert!(home.contains("<div class=\"cards\"><div class=\"card\"><img class=\"card-cover\" src=\"/widgets/~files/"), "{home}");
        assert!(home.contains("class=\"card-link\" href=\"/widgets/getting-started/create-an-application\""), "{home}");
        assert!(home.contains("<a href=\"/widgets/getting-started\">Getting started</a>"), "folder links resolve: {home}");
        assert!(!home.contains(":rocket:"), "icon names are not text");
        // HTML tables, marks, keys, figures, buttons and anchors.
        assert!(cards.contains("<th width=\"180\">Setting</th><th align=\"center\">Default</th>"), "{cards}");
        assert!(cards.contains("<mark style=\"color:green\">8080</mark>"), "{cards}");
        assert!(cards.contains("href=\"/widgets/getting-started/create-an-application#first-run\""), "links in HTML resolve: {cards}");
        assert!(cards.contains("<h3 id=\"sizes\">Widths and alignment<a class=\"anchor\""), "the anchor GitBook appends is the heading's id: {cards}");
        assert!(cards.contains("<figcaption>The dashboard</figcaption>"), "{cards}");
        assert!(cards.contains("<mark style=\"background-color:yellow\">important</mark>, press <kbd>Ctrl</kbd>"), "{cards}");
        assert!(cards.contains("<a href=\"/widgets/blocks/steps-and-columns\" class=\"button primary\""), "{cards}");
        assert!(cards.contains("<details class=\"expandable\"><summary>Why tables?</summary>"), "{cards}");
        assert!(cards.contains("download>guide.pdf</a>"), "{cards}");
        // Steps, columns, updates, embeds.
        assert!(steps.contains("<ol class=\"stepper\"><li class=\"step\"><h4 id=\"install\">Install"), "{steps}");
        assert!(steps.contains("<div class=\"column\" style=\"flex:0 1 50%\">"), "{steps}");
        assert!(steps.contains("<time datetime=\"2025-12-25\">2025-12-25</time>"), "{steps}");
        assert!(steps.contains("<iframe src=\"https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ\""), "{steps}");
        assert!(steps.contains("href=\"/widgets/blocks/cards-and-tables#sizes\""), "{steps}");
        // The OpenAPI file of the repository is the operation's spec.
        assert!(api.contains("List the widgets"), "{api}");
        assert!(api.contains("<h4>The Widget object</h4>") && api.contains("What the widget is called"), "{api}");
        assert!(steps.contains("Render a collection"), "an OpenAPI file named from a folder, a path with a parameter: {steps}");
        assert!(create.contains("<a href=\"/widgets/home\">the home page</a>"), "`../` up to the root names its README: {create}");
        assert!(cjk.contains("安装并运行"), "{cjk}");
        // Expressions read the space's variables and the page's.
        assert!(
            create.contains("Install version <span class=\"expression\">2.4.1</span> and open port <span class=\"expression\">8080</span>."),
            "{create}"
        );
        let outline: Vec<&str> = cards.match_indices("id=\"").map(|(i, _)| &cards[i + 4..i + 4 + cards[i + 4..].find('"').unwrap()]).collect();
        assert!(!outline.iter().any(|id| id.contains("href")), "{outline:?}");

        // `.gitbook.yaml` redirects answer with a permanent redirect, as does
        // a file's path where the tree's slugs differ (a page in a group
        // whose heading names no slug).
        for (old, new) in [
            ("quickstart", "/widgets/getting-started/create-an-application"),
            ("guides/cards", "/widgets/blocks/cards-and-tables"),
            ("api-reference", "/widgets/reference/api-reference"),
            ("kuaisu", "/widgets/getting-started/%E5%BF%AB%E9%80%9F%E5%BC%80%E5%A7%8B"),
        ] {
            let (status, location, _) = get(old).await;
            assert_eq!((status, location.as_deref()), (308, Some(new)), "{old}");
        }
        // The page as markdown has no HTML escaped either.
        let (status, _, markdown) = get("blocks/cards-and-tables.md").await;
        assert_eq!(status, 200);
        assert!(markdown.contains("<mark style=\"color:green;\">8080</mark>"), "{markdown}");

        // The PDF carries the images the pages show, those in HTML too.
        let pdf_url = crate::pdf::pdf_url(&app, &ada, &format!("/v1/spaces/{space}/pdf")).await;
        let (status, pdf, _) = crate::pdf::download(&pdf_url).await;
        assert_eq!(status, 200);
        let images = crate::pdf::images_of(&pdf);
        assert!(images.contains(&(50, 50)) && images.contains(&(1, 1)), "{images:?}");
        let text = crate::pdf::poppler("pdftotext", &[], &pdf);
        assert!(!text.contains("&lt;") && !text.contains("<table") && !text.contains("{%"), "{text}");

        // Nothing edited: an export writes no commit.
        let before = repo.head();
        let result = export(&app, &ada, &space, json!({ "url": url, "ref": "refs/heads/main", "commitMessage": "Sync" })).await;
        assert_eq!(result["commit"], before.as_str(), "{result}");
        assert_eq!(repo.head(), before);
    }
}
