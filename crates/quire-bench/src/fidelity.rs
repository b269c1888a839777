//! The `fidelity` group: a real GitBook repository (`--repo`, a local path,
//! with `--project-dir` for where its docs are), imported through Git Sync,
//! published, and every page read back as a visitor. Counts what a team
//! leaving GitBook would see broken: escaped HTML, raw block tags, a title
//! shown twice, YAML markers, unresolved OpenAPI blocks, broken links and
//! images; then whether every markdown file answers at its GitBook URL
//! (its path; a README names its folder) and every `.gitbook.yaml`
//! redirect holds. Prints the counts and the pages with problems. Then
//! readers' questions on the site's answer page (`~gitbook/ask`), through a
//! local OpenAI-compatible endpoint that records what Quire sends: the
//! context per answer, in characters and estimated tokens.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, ensure};
use serde_json::{Value, json};

use crate::gitsync::{git, head_ref, import_into_new_space};
use crate::{Args, Server, http_client, post_json};

/// What a published page must never show, by what it is called.
const PROBLEMS: [(&str, &[&str]); 6] = [
    (
        "escaped HTML",
        &[
            "&lt;table",
            "&lt;mark",
            "&lt;figure",
            "&lt;i ",
            "&lt;a ",
            "&lt;kbd",
            "&lt;details",
            "&lt;div",
            "&lt;img",
            "&lt;p ",
        ],
    ),
    ("raw block tag", &["{% "]),
    (
        "YAML marker",
        &["&gt;-", "<p class=\"lead\">&gt;", "<p class=\"lead\">|"],
    ),
    ("unresolved OpenAPI block", &["OpenAPI operation not found"]),
    (
        "broken link or image",
        &["class=\"broken", "class=\"card broken", "class=\"include broken"],
    ),
    ("title shown twice", &[]),
];

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let repo = args
        .repo
        .as_deref()
        .context("fidelity needs --repo <path of a GitBook repository>")?;
    ensure!(!repo.contains("://"), "--repo must be a local path for fidelity");
    let server = Server::start_with_private_fetch(args.database_url.as_deref()).await?;
    let result = scenarios(&server, Path::new(repo), args.project_dir.as_deref()).await;
    server.stop().await;
    result
}

async fn scenarios(server: &Server, repo: &Path, project_dir: Option<&str>) -> anyhow::Result<()> {
    let (_, token, org_id) = server.admin_and_org("Fidelity").await?;
    let client = http_client(&token)?;
    let url = format!("file://{}", repo.canonicalize()?.display());
    let (space_id, _, seconds) =
        import_into_new_space(server, &client, &org_id, &url, &head_ref(&url)?, project_dir).await?;
    let site: Value = post_json(
        &client,
        format!("{}/v1/orgs/{org_id}/sites", server.base_url),
        &json!({ "title": "Docs", "spaces": [space_id] }),
    )
    .await?;
    let site_id = site["id"].as_str().context("site id")?;
    // The site offers answers (its readers ask the docs below).
    client
        .put(format!(
            "{}/v1/orgs/{org_id}/sites/{site_id}/customization",
            server.base_url
        ))
        .json(&json!({ "title": "Docs", "ai": { "mode": "assistant" } }))
        .send()
        .await?
        .error_for_status()?;
    post_json(
        &client,
        format!("{}/v1/orgs/{org_id}/sites/{site_id}/publish", server.base_url),
        &json!(null),
    )
    .await?;
    let base = format!("{}/docs", server.base_url);
    let visitor = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;

    // Every page of the space, as a visitor reads it.
    let content: Value = client
        .get(format!("{}/v1/spaces/{space_id}/content", server.base_url))
        .send()
        .await?
        .json()
        .await?;
    let mut paths = Vec::new();
    collect_paths(
        content["pages"].as_array().map(Vec::as_slice).unwrap_or_default(),
        &mut paths,
    );
    let started = Instant::now();
    let mut found: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for path in &paths {
        let res = visitor.get(format!("{base}/{path}")).send().await?;
        let status = res.status().as_u16();
        let html = res.text().await?;
        if status != 200 {
            found
                .entry("page not answering")
                .or_default()
                .push(format!("{path} ({status})"));
            continue;
        }
        // Code shows markup as text on purpose (pages documenting it).
        let html = without_code(&html);
        for (problem, needles) in PROBLEMS {
            if needles.iter().any(|n| html.contains(n)) {
                found.entry(problem).or_default().push(path.clone());
            }
        }
        if html.matches("<h1").count() > 1 {
            found.entry("title shown twice").or_default().push(path.clone());
        }
    }
    let read = started.elapsed().as_secs_f64();

    // Every markdown file at its GitBook URL, every redirect.
    let root = project_dir.map(|d| d.trim_matches('/').to_owned()).unwrap_or_default();
    let config_text = std::fs::read_to_string(repo.join(&root).join(".gitbook.yaml"))
        .or_else(|_| std::fs::read_to_string(repo.join(".gitbook.yaml")))
        .unwrap_or_default();
    let config = quire_import::gitbook::Config::parse(&config_text).unwrap_or_default();
    let docs_root = [root.as_str(), config.root.trim_matches('/').trim_start_matches("./")]
        .iter()
        .filter(|p| !p.is_empty() && **p != ".")
        .cloned()
        .collect::<Vec<_>>()
        .join("/");
    let listed = git(repo, &["ls-tree", "-r", "--name-only", "-z", "HEAD"])?;
    let in_repo: std::collections::HashSet<&str> = listed.split('\0').collect();
    // Files the import left out (not in the summary) are no pages, on
    // GitBook either.
    let skipped: std::collections::HashSet<String> = {
        let mut conn = server.state.app.db.read().await?;
        let result = quire_store::jobs::latest(&mut conn, "git-import")
            .await?
            .and_then(|(_, result, _)| result)
            .and_then(|r| serde_json::from_str::<Value>(&r).ok())
            .unwrap_or_default();
        for note in result["notes"].as_array().map(Vec::as_slice).unwrap_or_default() {
            found.entry("noted by the import").or_default().push(format!(
                "{}: {}",
                note["path"].as_str().unwrap_or_default(),
                note["note"].as_str().unwrap_or_default()
            ));
        }
        let skipped = result["skipped"].as_array().map(Vec::as_slice).unwrap_or_default();
        for item in skipped
            .iter()
            .filter(|s| !s["reason"].as_str().unwrap_or_default().contains("not listed"))
        {
            found.entry("skipped by the import").or_default().push(format!(
                "{}: {}",
                item["path"].as_str().unwrap_or_default(),
                item["reason"].as_str().unwrap_or_default()
            ));
        }
        skipped
            .iter()
            .filter_map(|s| s["path"].as_str().map(str::to_owned))
            .collect()
    };
    let mut urls = 0;
    let mut answered = 0;
    for file in listed.split('\0').filter(|f| f.ends_with(".md")) {
        let Some(inside) = (if docs_root.is_empty() {
            Some(file)
        } else {
            file.strip_prefix(&format!("{docs_root}/"))
        }) else {
            continue;
        };
        if inside.starts_with(".gitbook/")
            || inside.eq_ignore_ascii_case("SUMMARY.md")
            || skipped.contains(inside)
            || skipped.contains(file)
        {
            continue;
        }
        let stem = inside.strip_suffix(".md").unwrap_or(inside);
        let gitbook_url = match stem.rsplit_once('/') {
            Some((folder, name)) if name.eq_ignore_ascii_case("readme") => folder.to_owned(),
            None if stem.eq_ignore_ascii_case("readme") => String::new(),
            _ => stem.to_owned(),
        };
        urls += 1;
        if answers(&visitor, &base, &gitbook_url).await? {
            answered += 1;
        } else {
            let status = visitor
                .get(format!("{base}/{gitbook_url}"))
                .send()
                .await?
                .status()
                .as_u16();
            found
                .entry("file not at its GitBook URL")
                .or_default()
                .push(format!("{inside} (/{gitbook_url}: {status})"));
        }
    }
    let mut redirects_held = 0;
    let mut dangling = 0;
    for (old, target) in &config.redirects {
        let target_path = match docs_root.as_str() {
            "" => target.trim_start_matches("./").to_owned(),
            root => format!("{root}/{}", target.trim_start_matches("./")),
        };
        if !in_repo.contains(target_path.as_str()) {
            dangling += 1;
        }
        let res = visitor.get(format!("{base}/{}", old.trim_matches('/'))).send().await?;
        let location = res
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        match (res.status().as_u16(), location) {
            (308, Some(to)) if visitor.get(format!("{}{to}", server.base_url)).send().await?.status() == 200 => {
                redirects_held += 1
            }
            (status, _) => found
                .entry("redirect not held")
                .or_default()
                .push(format!("{old} ({status})")),
        }
    }

    println!(
        "\nimport on {}: {seconds:.2} s; {} pages read in {read:.2} s\n",
        server.backend,
        paths.len()
    );
    println!("| check | pages or items |\n|---|---:|");
    for (problem, _) in PROBLEMS {
        println!("| {problem} | {} |", found.get(problem).map_or(0, Vec::len));
    }
    println!("| files at their GitBook URL | {answered} of {urls} |");
    println!(
        "| `.gitbook.yaml` redirects held | {redirects_held} of {} ({dangling} name a file the repository does not have) |",
        config.redirects.len()
    );
    for (problem, items) in &found {
        println!("\n{problem} ({}):", items.len());
        for item in items.iter().take(20) {
            println!("  {item}");
        }
    }
    context_per_answer(server, &content, &base).await
}

/// Asks the site questions made from its page titles (one in every few
/// pages, twelve at most) through a local chat endpoint that records each
/// prompt, and prints the context Quire sent per answer: characters and
/// tokens estimated at four characters each.
async fn context_per_answer(server: &Server, content: &Value, base: &str) -> anyhow::Result<()> {
    let prompts: std::sync::Arc<std::sync::Mutex<Vec<usize>>> = Default::default();
    let log = prompts.clone();
    let chat = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |body: axum::Json<Value>| {
            let log = log.clone();
            async move {
                let chars: usize = body.0["messages"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|m| m["content"].as_str())
                    .map(|c| c.chars().count())
                    .sum();
                log.lock().map(|mut l| l.push(chars)).ok();
                axum::Json(json!({
                    "choices": [{ "message": { "role": "assistant", "content": "See the first source [1]." } }],
                    "usage": { "prompt_tokens": chars / 4, "completion_tokens": 8 }
                }))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let chat_url = format!("http://{}/v1", listener.local_addr()?);
    let serving = tokio::spawn(async move { axum::serve(listener, chat).await });
    server
        .state
        .app
        .set_assistant(Some(quire_adapters::chat::ChatModel::new(
            chat_url,
            None,
            "recorder".into(),
            std::time::Duration::from_secs(30),
        )?));
    let mut titles = Vec::new();
    collect_titles(
        content["pages"].as_array().map(Vec::as_slice).unwrap_or_default(),
        &mut titles,
    );
    let step = (titles.len() / 12).max(1);
    let questions: Vec<String> = titles
        .iter()
        .step_by(step)
        .take(12)
        .map(|t| format!("How do I work with {t}?"))
        .collect();
    let visitor = reqwest::Client::new();
    let mut cited = Vec::new();
    for question in &questions {
        let res = visitor
            .get(format!(
                "{base}/~gitbook/ask?q={}",
                quire_core::percent::encode_component(question)
            ))
            .send()
            .await?;
        ensure!(res.status() == 200, "asking {question:?}: {}", res.status());
        let html = res.text().await?;
        let listed = html
            .split("<ol class=\"sources\">")
            .nth(1)
            .and_then(|rest| rest.split("</ol>").next())
            .map_or(0, |list| list.matches("<li>").count());
        cited.push(listed);
    }
    serving.abort();
    server.state.app.set_assistant(None);
    let mut sizes = prompts.lock().map(|p| p.clone()).unwrap_or_default();
    ensure!(!sizes.is_empty(), "no question reached the model");
    sizes.sort_unstable();
    let p50 = sizes[sizes.len() / 2];
    let max = sizes[sizes.len() - 1];
    let mean = sizes.iter().sum::<usize>() / sizes.len();
    println!(
        "\ncontext per answer ({} questions from page titles, {} sources each on average): \
         p50 {p50} characters (~{} tokens), mean {mean} (~{}), max {max} (~{})",
        sizes.len(),
        cited.iter().sum::<usize>() as f64 / cited.len().max(1) as f64,
        p50 / 4,
        mean / 4,
        max / 4
    );
    Ok(())
}

/// The titles of `pages` and their children, in reading order.
fn collect_titles(pages: &[Value], out: &mut Vec<String>) {
    for page in pages {
        if let Some(title) = page["title"].as_str() {
            out.push(title.to_owned());
        }
        collect_titles(page["pages"].as_array().map(Vec::as_slice).unwrap_or_default(), out);
    }
}

/// `html` without what `<pre>` and `<code>` elements hold.
fn without_code(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    loop {
        let next = ["<pre", "<code"]
            .iter()
            .filter_map(|tag| rest.find(tag).map(|at| (at, *tag)))
            .min();
        let Some((at, tag)) = next else { break };
        out.push_str(&rest[..at]);
        let close = if tag == "<pre" { "</pre>" } else { "</code>" };
        match rest[at..].find(close) {
            Some(end) => rest = &rest[at + end + close.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `path` answers 200, directly or after one redirect.
async fn answers(client: &reqwest::Client, base: &str, path: &str) -> anyhow::Result<bool> {
    let res = client.get(format!("{base}/{path}")).send().await?;
    Ok(match res.status().as_u16() {
        200 => true,
        301 | 302 | 307 | 308 => match res.headers().get("location").and_then(|v| v.to_str().ok()) {
            Some(to) => {
                let origin = base.rsplit_once("/docs").map_or(base, |(o, _)| o);
                client.get(format!("{origin}{to}")).send().await?.status() == 200
            }
            None => false,
        },
        _ => false,
    })
}

/// The site paths of every document page, depth first.
fn collect_paths(pages: &[Value], out: &mut Vec<String>) {
    for page in pages {
        if page["type"] == "document"
            && let Some(path) = page["path"].as_str()
        {
            out.push(path.to_owned());
        }
        collect_paths(page["pages"].as_array().map(Vec::as_slice).unwrap_or_default(), out);
    }
}
