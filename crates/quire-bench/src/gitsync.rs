//! The `git` scenario group: Git Sync of a large repository.
//!
//! A synthetic repository in GitBook's layout (`--files` markdown files in
//! folders of 100, listed in a `SUMMARY.md`, every tenth showing one of
//! `--images` images of 20 KB), or a real one (`--repo` URL or path, with
//! `--project-dir` for where its docs are). Then:
//! - the baseline: `git clone` of the repository plus reading every file
//!   of its working tree;
//! - Quire's import into an empty space (the request, then the job run in
//!   this process until done);
//! - a re-import after one file changed (synthetic repository);
//! - an export after one page changed in a merged change request.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, ensure};
use serde_json::{Value, json};

use crate::{Args, Server, http_client, post_json};

pub(crate) fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .args(args)
        .output()
        .context("run git")?;
    ensure!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A small pseudo-random generator, so the images do not compress or
/// deduplicate.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// Writes the synthetic repository into `work` and commits it.
fn synthetic(work: &Path, files: usize, images: usize) -> anyhow::Result<()> {
    git(work, &["init", "--quiet", "--initial-branch=main", "."])?;
    let mut summary = String::from("# Table of contents\n\n* [Introduction](README.md)\n");
    std::fs::write(work.join("README.md"), "# Introduction\n\nThe synthetic handbook.\n")?;
    std::fs::create_dir_all(work.join(".gitbook/assets"))?;
    for i in 0..images {
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend(noise(i as u64, 20 * 1024));
        std::fs::write(work.join(format!(".gitbook/assets/image-{i:04}.png")), bytes)?;
    }
    for i in 0..files {
        let folder = format!("part-{:03}", i / 100);
        if i % 100 == 0 {
            std::fs::create_dir_all(work.join(&folder))?;
            std::fs::write(
                work.join(format!("{folder}/README.md")),
                format!("# Part {}\n", i / 100),
            )?;
            summary.push_str(&format!("* [Part {}]({folder}/README.md)\n", i / 100));
        }
        let mut text = format!("---\ndescription: Page {i} of the handbook\n---\n\n# Page {i:05}\n\n");
        for line in 0..12 {
            text.push_str(&format!(
                "Line {line}: the quick brown fox jumps over the lazy dog, page {i}.\n\n"
            ));
        }
        text.push_str(&format!("See [the next page](page-{:05}.md).\n", i + 1));
        if i % 10 == 0 && images > 0 {
            text.push_str(&format!(
                "\n![Figure](../.gitbook/assets/image-{:04}.png)\n",
                (i / 10) % images
            ));
        }
        std::fs::write(work.join(format!("{folder}/page-{i:05}.md")), text)?;
        summary.push_str(&format!("  * [Page {i:05}]({folder}/page-{i:05}.md)\n"));
    }
    std::fs::write(work.join("SUMMARY.md"), summary)?;
    git(work, &["add", "-A"])?;
    git(work, &["commit", "--quiet", "-m", "Synthetic handbook"])?;
    Ok(())
}

/// `git clone` of `url` and reading every file of the working tree: the
/// baseline the import is compared with. Seconds.
fn clone_and_read(url: &str) -> anyhow::Result<f64> {
    let dir = tempfile::tempdir()?;
    let started = Instant::now();
    git(dir.path(), &["clone", "--quiet", url, "clone"])?;
    let mut bytes = 0usize;
    let mut stack = vec![dir.path().join("clone")];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
            } else {
                bytes += std::fs::read(&path)?.len();
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("baseline: git clone + reading {bytes} bytes of files: {seconds:.2} s");
    Ok(seconds)
}

/// The branch a repository's `HEAD` names (`refs/heads/main` if none).
pub(crate) fn head_ref(url: &str) -> anyhow::Result<String> {
    let head = Command::new("git")
        .args(["ls-remote", "--symref", url, "HEAD"])
        .output()
        .context("git ls-remote")?;
    let text = String::from_utf8_lossy(&head.stdout).into_owned();
    Ok(text
        .lines()
        .find_map(|l| {
            l.strip_prefix("ref: ")
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "refs/heads/main".into()))
}

/// Creates a space and imports `url` at `refname` into it: the space, the
/// import's body (to import again) and its seconds.
pub(crate) async fn import_into_new_space(
    server: &Server,
    client: &reqwest::Client,
    org_id: &str,
    url: &str,
    refname: &str,
    project_dir: Option<&str>,
) -> anyhow::Result<(String, Value, f64)> {
    let space: Value = post_json(
        client,
        format!("{}/v1/orgs/{org_id}/spaces", server.base_url),
        &json!({ "title": "Imported" }),
    )
    .await?;
    let space_id = space["id"].as_str().context("space id")?.to_owned();
    let mut body = json!({ "url": url, "ref": refname });
    if let Some(dir) = project_dir {
        body["repoProjectDirectory"] = json!(dir);
    }
    let seconds = sync(server, client, &format!("/spaces/{space_id}/git/import"), body.clone()).await?;
    Ok((space_id, body, seconds))
}

/// Posts an import or export and runs the queued job; seconds until done.
pub(crate) async fn sync(server: &Server, client: &reqwest::Client, path: &str, body: Value) -> anyhow::Result<f64> {
    let started = Instant::now();
    post_json(client, format!("{}/v1{path}", server.base_url), &body).await?;
    let registry = quire_server::features::job_registry();
    let ran = quire_app::jobs::run_due(&server.state.app, &registry, "bench").await?;
    let seconds = started.elapsed().as_secs_f64();
    ensure!(ran >= 1, "no job ran");
    let mut conn = server.state.app.db.read().await?;
    for kind in ["git-import", "git-export"] {
        if let Some((state, _, error)) = quire_store::jobs::latest(&mut conn, kind).await? {
            ensure!(state == "done", "{kind}: {state} {error:?}");
        }
    }
    Ok(seconds)
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start_with_private_fetch(args.database_url.as_deref()).await?;
    let result = scenarios(&server, args).await;
    server.stop().await;
    result
}

async fn scenarios(server: &Server, args: &Args) -> anyhow::Result<()> {
    let (_, token, org_id) = server.admin_and_org("Git").await?;
    let client = http_client(&token)?;
    let workdir = tempfile::tempdir()?;
    let (url, project_dir, synthetic_repo) = match &args.repo {
        Some(repo) => {
            let url = if repo.contains("://") {
                repo.clone()
            } else {
                format!("file://{repo}")
            };
            (url, args.project_dir.clone(), false)
        }
        None => {
            let started = Instant::now();
            synthetic(workdir.path(), args.files, args.images)?;
            println!(
                "synthetic repository: {} markdown files, {} images of 20 KB, written in {:.1} s",
                args.files + args.files.div_ceil(100) + 1,
                args.images,
                started.elapsed().as_secs_f64()
            );
            (format!("file://{}", workdir.path().display()), None, true)
        }
    };
    let refname = match &args.repo {
        Some(_) => head_ref(&url)?,
        None => "refs/heads/main".into(),
    };
    let baseline = clone_and_read(&url)?;
    let (space_id, body, import) =
        import_into_new_space(server, &client, &org_id, &url, &refname, project_dir.as_deref()).await?;
    let content: Value = client
        .get(format!("{}/v1/spaces/{space_id}/content", server.base_url))
        .send()
        .await?
        .json()
        .await?;
    fn count(pages: &[Value]) -> usize {
        pages
            .iter()
            .map(|p| 1 + p["pages"].as_array().map_or(0, |c| count(c)))
            .sum()
    }
    let pages = count(content["pages"].as_array().map(Vec::as_slice).unwrap_or_default());
    let files = content["files"].as_array().map_or(0, Vec::len);
    println!("\n| | seconds | vs. baseline |\n|---|---:|---:|");
    println!("| `git clone` + reading the files | {baseline:.2} | 1.00x |");
    println!(
        "| import ({pages} pages, {files} files) on {} | {import:.2} | {:.2}x |",
        server.backend,
        import / baseline
    );
    if synthetic_repo {
        let page = workdir.path().join("part-000/page-00001.md");
        let mut text = std::fs::read_to_string(&page)?;
        text.push_str("\nOne more line.\n");
        std::fs::write(&page, text)?;
        git(workdir.path(), &["commit", "--quiet", "-am", "One change"])?;
        let reimport = sync(server, &client, &format!("/spaces/{space_id}/git/import"), body.clone()).await?;
        println!("| re-import after one file changed | {reimport:.2} | |");
    }
    // One page changed in a merged change request, then exported.
    let target = tempfile::tempdir()?;
    git(
        target.path(),
        &["init", "--quiet", "--bare", "--initial-branch=main", "."],
    )?;
    let target_url = format!("file://{}", target.path().display());
    let first = json!({ "url": target_url, "ref": "refs/heads/main", "commitMessage": "Export" });
    let full = sync(
        server,
        &client,
        &format!("/spaces/{space_id}/git/export"),
        first.clone(),
    )
    .await?;
    println!("| first export to an empty repository | {full:.2} | |");
    let page_id = first_document(&content).context("no document page")?;
    let cr: Value = post_json(
        &client,
        format!("{}/v1/spaces/{space_id}/change-requests", server.base_url),
        &json!({ "subject": "One page" }),
    )
    .await?;
    let cr_id = cr["id"].as_str().context("change request id")?;
    post_json(&client, format!("{}/v1/spaces/{space_id}/change-requests/{cr_id}/content", server.base_url), &json!({ "changes": [{ "operation": "update_page", "page": page_id, "document": { "markdown": "# Changed\n\nOne page changed.\n" } }] })).await?;
    client
        .post(format!(
            "{}/v1/spaces/{space_id}/change-requests/{cr_id}/merge",
            server.base_url
        ))
        .send()
        .await?
        .error_for_status()?;
    let one = sync(server, &client, &format!("/spaces/{space_id}/git/export"), first).await?;
    println!("| export of one changed page | {one:.2} | |");
    let changed = git(target.path(), &["diff", "--name-only", "HEAD~1", "HEAD"])?;
    println!("\nthe last commit touched: {}", changed.replace('\n', ", "));
    Ok(())
}

fn first_document(content: &Value) -> Option<String> {
    fn walk(pages: &[Value]) -> Option<String> {
        for page in pages {
            if page["type"] == "document" && page["pages"].as_array().is_none_or(Vec::is_empty) {
                return page["id"].as_str().map(str::to_owned);
            }
            if let Some(found) = walk(page["pages"].as_array().map(Vec::as_slice).unwrap_or_default()) {
                return Some(found);
            }
        }
        None
    }
    walk(content["pages"].as_array()?)
}
