//! The `members` scenario group (the default): one organization with many
//! members (10,000 by default, plus its admin), seeded straight through the
//! store; then, under concurrent load, the first page of members, a deep
//! page reached by following `next.page`, and the organization itself.

use std::time::Instant;

use anyhow::{Context, ensure};
use quire_core::{Clock, Role, SystemClock, Timestamp};
use quire_store::users::UserRow;
use quire_store::{Db, members, users};
use serde_json::Value;

use crate::{Args, Server, ensure_no_errors, http_client, measure, print_load_table};

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start(args.database_url.as_deref()).await?;
    let result = bench(args, &server).await;
    server.stop().await;
    result
}

async fn bench(args: &Args, server: &Server) -> anyhow::Result<()> {
    let (base_url, backend) = (&server.base_url, &server.backend);
    let (_, token, org_id) = server.admin_and_org("Bench Org").await?;
    let client = http_client(&token)?;

    let started = Instant::now();
    seed_members(&server.db, &org_id, args.members, SystemClock.now()).await?;
    server.analyze().await?;
    println!(
        "seeded {} members into {org_id} on {backend} in {:.1} s",
        args.members,
        started.elapsed().as_secs_f64()
    );

    let members_url = format!("{base_url}/v1/orgs/{org_id}/members?limit={}", args.limit);
    let deep_url = deep_page_url(&client, &members_url, args.deep_page, args.limit).await?;

    let scenarios = [
        (
            format!("GET /v1/orgs/{{id}}/members?limit={} (page 1)", args.limit),
            members_url,
        ),
        (
            format!(
                "GET /v1/orgs/{{id}}/members?limit={} (page {})",
                args.limit, args.deep_page
            ),
            deep_url,
        ),
        ("GET /v1/orgs/{id}".to_owned(), format!("{base_url}/v1/orgs/{org_id}")),
    ];
    let mut outcomes = Vec::new();
    for (name, url) in scenarios {
        let outcome = measure(&name, &url, &token, args.connections, args.seconds).await?;
        println!("{}", outcome.summary());
        outcomes.push(outcome);
    }

    print_load_table(
        &format!(
            "{backend}, {} members, {} connections, {} s per scenario:",
            args.members + 1,
            args.connections,
            args.seconds
        ),
        &outcomes,
    );
    ensure_no_errors(&outcomes)
}

/// Inserts `count` users and their memberships, a transaction per batch.
/// Join times are one second apart and roles cycle, like a real directory.
async fn seed_members(db: &Db, org_id: &str, count: usize, now: Timestamp) -> anyhow::Result<()> {
    const BATCH: usize = 1000;
    const ROLES: [Option<Role>; 6] = [
        Some(Role::Read),
        Some(Role::Read),
        Some(Role::Edit),
        Some(Role::Comment),
        Some(Role::Review),
        None,
    ];
    let first_join = now.0 - 1000 * count as i64;
    let mut start = 0;
    while start < count {
        let end = (start + BATCH).min(count);
        let mut tx = db.write().await?;
        for i in start..end {
            let user = UserRow {
                id: quire_core::id::new_id(),
                email: format!("member{i:05}@example.com"),
                display_name: format!("Member {i:05}"),
                photo_url: None,
                created_at: now,
            };
            users::insert(&mut tx, &user)
                .await
                .with_context(|| format!("insert user {i}"))?;
            let joined = Timestamp(first_join + 1000 * i as i64);
            members::insert(&mut tx, org_id, &user.id, ROLES[i % ROLES.len()], false, joined)
                .await
                .with_context(|| format!("insert member {i}"))?;
        }
        tx.commit().await.context("commit a batch of members")?;
        start = end;
    }
    Ok(())
}

/// Follows `next.page` from the first page to page `page` and returns its URL.
async fn deep_page_url(client: &reqwest::Client, first: &str, page: usize, limit: usize) -> anyhow::Result<String> {
    let mut url = first.to_owned();
    for n in 1..=page {
        let body: Value = client
            .get(&url)
            .send()
            .await?
            .error_for_status()
            .with_context(|| format!("member page {n}"))?
            .json()
            .await?;
        let items = body["items"].as_array().map_or(0, Vec::len);
        ensure!(items == limit, "page {n} has {items} members, expected {limit}");
        if n == page {
            break;
        }
        let cursor = body
            .pointer("/next/page")
            .and_then(Value::as_str)
            .with_context(|| format!("page {n} has no next page: seed more members or ask for a shallower page"))?;
        url = format!("{first}&page={cursor}");
    }
    Ok(url)
}
