//! Times `analyze` over ~2 MB of mixed text: `cargo run --release -p quire-search --example analyze_timing`.

use std::time::Instant;

fn main() {
    let english = "Restart the server after you change the configuration of the proxy; call getSpaceById(id) and read snake_case_name. ";
    let cjk = "私は東京に住んでいます。数据库的配置很重要。서울에서 만나요. ";
    let mut text = String::new();
    while text.len() < 2_000_000 {
        for _ in 0..9 {
            text.push_str(english);
        }
        text.push_str(cjk);
    }
    let started = Instant::now();
    let mut terms = 0;
    for _ in 0..5 {
        terms += quire_search::analyze(&text).terms.len();
    }
    let seconds = started.elapsed().as_secs_f64() / 5.0;
    println!(
        "{:.1} MB in {:.1} ms: {:.1} MB/s, {} terms",
        text.len() as f64 / 1e6,
        seconds * 1e3,
        text.len() as f64 / 1e6 / seconds,
        terms / 5
    );
}
