//! A writer's first week in a real browser, on each backend: Debian's
//! Chromium driven by playwright-core through `web/tests/story.mjs` (see
//! its header for the story). Ada imports a repository GitBook wrote
//! (`gitbook_fidelity::gitbook_written_repo`) through the Git Sync screen,
//! writes every block of the slash menu into one of its pages in a change
//! request, has it reviewed with a comment on a block, merges and exports;
//! then this checks the repository: the export is one commit on top of the
//! imported one, touching only what she changed. Jobs (the import, its
//! indexing, the export) run as on a server: a worker polls the queue for
//! the whole story. Screenshots land in
//! `target/browser-artifacts/writer-story/<backend>/`.

use std::path::Path;
use std::process::Command;

use crate::official_client::run_node;
use crate::support::git::{Repo, git};
use crate::support::{Backend, TestApp};

/// The page Ada edits, where GitBook wrote it.
const PAGE: &str = "getting-started/create-an-application.md";

/// The file she uploads into a file block, as her disk holds it.
const CHECKLIST: &[u8] = b"%PDF-1.4\n% Ada's release checklist\n%%EOF\n";

/// A file of `main` on the remote, byte for byte.
fn blob(repo: &Repo, path: &str) -> Vec<u8> {
    let out = Command::new("git")
        .current_dir(repo.bare())
        .args(["show", &format!("refs/heads/main:{path}")])
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "no {path} on main: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

async fn a_writers_first_week(backend: Backend) {
    let app = TestApp::start(backend).await;
    let ada = app.user("Ada").await;
    // The organization and the empty space the story starts in (their
    // titles are the story's: "Acme Docs", "Widgets").
    let org = app.org(&ada, "Acme Docs").await;
    let space = app.space(&ada, &org, "Widgets", None).await;
    let repo = crate::gitbook_fidelity::gitbook_written_repo();
    let imported = repo.head();
    let original = repo.read(PAGE).expect("the page GitBook wrote");
    // What she uploads, from her disk: an image (100x100, unlike every
    // image of the repository, so it is a new file and not one already
    // there) and a PDF.
    let uploads = tempfile::tempdir().expect("a folder of uploads");
    let png = crate::pdf::images::huge_png(100);
    std::fs::write(uploads.path().join("ada-dashboard.png"), &png).expect("write the image");
    std::fs::write(uploads.path().join("release-checklist.pdf"), CHECKLIST).expect("write the PDF");
    let link = quire_sign_in::links::sign_in_link_for_cli(&app.state.app, &app.base_url, "ada@example.com", None)
        .await
        .expect("a sign-in link")
        .url;
    let worker = crate::support::JobWorker::start(&app);
    let name = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let artifacts =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/browser-artifacts/writer-story/{name}"));
    let mut node = Command::new("node");
    node.arg("tests/story.mjs")
        .current_dir(crate::web_app::web_dir())
        .env("QUIRE_URL", &app.base_url)
        .env("QUIRE_LINK", link)
        .env("QUIRE_SPACE", &space)
        .env("QUIRE_REPO", repo.url())
        .env("QUIRE_UPLOADS", uploads.path())
        .env("ARTIFACTS", &artifacts);
    let out = run_node(node, "the writer's story").await;
    worker.stop().await;
    for step in [
        "she imports the GitBook repository through Git Sync",
        "she writes every block of the slash menu, an uploaded image with its caption among them",
        "she reloads the editor and finds her blocks still there",
        "the review lists 1 changed page with her blocks added, and she comments on one block",
        "her comment is in place after reloading",
        "the merged change request opens from the list by its number, its diff and comment kept, read-only",
        "she exports the space to its repository from Git Sync",
    ] {
        assert!(out.contains(&format!("ok   {step}")), "{out}");
    }

    // The space's Git Sync says the export pushed the repository's head.
    // Merging does not push by itself: an export is an operation of its own
    // (`POST .../git/export`, the Git Sync screen's "Export to the
    // repository"), which the story ran after merging.
    let info = app.get(&ada, &format!("/v1/spaces/{space}/git/info")).await;
    info.assert_status(200);
    assert_eq!(info.body["operation"]["direction"], "export", "{}", info.body);
    assert_eq!(info.body["operation"]["state"], "success", "{}", info.body);
    let head = repo.head();
    assert_eq!(
        info.body["operation"]["result"]["commit"],
        head.as_str(),
        "{}",
        info.body
    );

    // One commit on top of the imported one, named after the change request
    // (a merged change request exported alone), written by Ada.
    assert_eq!(
        git(&repo.bare(), &["rev-parse", "refs/heads/main^"]),
        imported,
        "one commit on top of the import"
    );
    let merged = app
        .get(&ada, &format!("/v1/spaces/{space}/change-requests?status=merged"))
        .await;
    merged.assert_status(200);
    assert_eq!(merged.items().len(), 1, "{}", merged.body);
    let number = &merged.items()[0]["number"];
    assert_eq!(repo.log()[0], format!("GITBOOK-{number}: Edit Create an application"));
    assert_eq!(
        repo.signatures(),
        ("Ada <ada@example.com>".to_owned(), "Quire <quire@localhost>".to_owned()),
    );

    // Only what she changed: the edited page, and the two files she
    // uploaded. Exports write files too (`quire_import::gitbook::export`:
    // a file without a place in the repository gets one under
    // `.gitbook/assets/`, by its name), so the image and the PDF are added
    // there; every other page, the summary (the tree did not change) and
    // the files the repository already had are the same bytes, and are not
    // written.
    let mut changed = repo.changes(&imported, &head);
    changed.sort();
    assert_eq!(
        changed,
        [
            "A\t.gitbook/assets/ada-dashboard.png",
            "A\t.gitbook/assets/release-checklist.pdf",
            "M\tgetting-started/create-an-application.md",
        ],
    );
    assert_eq!(
        blob(&repo, ".gitbook/assets/ada-dashboard.png"),
        png,
        "the image as uploaded"
    );
    assert_eq!(
        blob(&repo, ".gitbook/assets/release-checklist.pdf"),
        CHECKLIST,
        "the PDF as uploaded"
    );

    // The page: GitBook's file as it was (front matter, title, the blocks
    // she did not touch, byte for byte), then her blocks; the files and
    // pages they name by id are written as paths relative to the page.
    let page = repo.read(PAGE).expect("the edited page");
    assert!(
        page.starts_with(&original),
        "the page as GitBook wrote it comes first:\n{page}"
    );
    let added = &page[original.len()..];
    for expected in [
        "# Deploy to production",
        "> Ship small, ship often.",
        "```bash\ndocker run -p 8080:8080 widgets\n```",
        "{% hint style=\"danger\" %}",
        "../.gitbook/assets/ada-dashboard.png",
        "The dashboard after deploy",
        "../.gitbook/assets/release-checklist.pdf",
        "The release checklist.",
        "../blocks/cards-and-tables.md",
        "../blocks/steps-and-columns.md",
    ] {
        assert!(added.contains(expected), "the page holds {expected:?}:\n{page}");
    }
    for id_link in ["/files/", "/pages/"] {
        assert!(
            !page.contains(id_link),
            "no link by id ({id_link}) in the repository:\n{page}"
        );
    }
}

mod a_writers_first_week {
    use crate::support::Backend;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::a_writers_first_week(Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::a_writers_first_week(Backend::Postgres).await
    }
}
