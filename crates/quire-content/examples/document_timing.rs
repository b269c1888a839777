//! Times the markdown <-> JSON document conversions on a realistic ~2 KB
//! page and on a ~200 KB page (page reads convert on every request).
//!
//! Run with `cargo run --release -p quire-content --example document_timing`
//! (`-- --steps` also times each conversion of the model).

use std::hint::black_box;
use std::time::{Duration, Instant};

use quire_content::document::{Document, document_to_markdown, markdown_to_document};

/// One section of a typical documentation page (about 2 KB).
fn section(n: usize) -> String {
    format!(
        r#"## Installing release {n}

Quire runs on **Linux**, *macOS* and ~~Windows~~ Windows too. Read the
[overview](/pages/overview{n}), download the [archive](/files/archive{n}) or
jump to [configuration](#configuration-{n}); the [website](https://example.com/docs?v={n}&lang=en)
has more, and `quire serve` starts it.

{{% hint style="info" %}}
Version {n} needs a **database**: SQLite is built in, PostgreSQL is optional.
{{% endhint %}}

1. Download the binary for your platform.
2. Unpack it somewhere on your `PATH`:
   - on Linux, `/usr/local/bin`;
   - on macOS, `/opt/homebrew/bin`.
3. Run `quire --version` to check.

- [x] Database reachable
- [ ] Blob store configured

{{% code title="config.toml" lineNumbers="true" %}}
```toml
listen = "127.0.0.1:8080"
data_dir = "./quire-data"
public_url = "https://docs.example.com"
```
{{% endcode %}}

| Flag | Default | Meaning |
| :--- | :-: | ---: |
| `--listen` | `127.0.0.1:8080` | address to listen on |
| `--data-dir` | `./quire-data` | embedded database and **blobs** |

![Architecture](/files/diagram{n} "How the pieces fit")

> Tip: run one node per core and put them behind a load balancer.

{{% tabs %}}
{{% tab title="Docker" %}}
```sh
docker run -p 8080:8080 quire
```
{{% endtab %}}
{{% tab title="Binary" %}}
Run `./quire serve`.
{{% endtab %}}
{{% endtabs %}}

$$
E = mc^2
$$
"#
    )
}

fn page(target_bytes: usize) -> String {
    let mut page = String::from("---\ndescription: Getting started\n---\n\n# Getting started\n\n");
    let mut n = 0;
    while page.len() < target_bytes {
        page.push_str(&section(n));
        page.push('\n');
        n += 1;
    }
    page
}

/// Mean time per call over enough calls to fill about `budget`.
fn time<T>(budget: Duration, mut f: impl FnMut() -> T) -> Duration {
    let start = Instant::now();
    black_box(f());
    let once = start.elapsed().max(Duration::from_micros(1));
    let runs = (budget.as_nanos() / once.as_nanos()).clamp(5, 100_000) as u32;
    let start = Instant::now();
    for _ in 0..runs {
        black_box(f());
    }
    start.elapsed() / runs
}

fn main() {
    for (name, size) in [("2 KB", 2_000), ("200 KB", 200_000)] {
        let markdown = page(size);
        let document = markdown_to_document(&markdown);
        let budget = Duration::from_secs(2);
        let to_json = time(budget, || markdown_to_document(&markdown));
        let to_markdown = time(budget, || document_to_markdown(&document));
        println!(
            "{name} page ({} bytes): markdown_to_document {:?}, document_to_markdown {:?}",
            markdown.len(),
            to_json,
            to_markdown
        );
        if std::env::args().any(|a| a == "--steps") {
            let model = Document::from_markdown(&markdown);
            println!(
                "  from_markdown {:?}, to_json {:?}, from_json {:?}, to_markdown {:?}",
                time(budget, || Document::from_markdown(&markdown)),
                time(budget, || model.to_json()),
                time(budget, || Document::from_json(&document)),
                time(budget, || model.to_markdown()),
            );
        }
    }
}
