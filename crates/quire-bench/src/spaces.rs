//! The `spaces` scenario group: how long a guest waits for a space they can
//! only see through a team grant on a collection three levels up.
//!
//! Each size gets a fresh server and database. The organization has its
//! collections in groups of ten, each group four levels deep (one top-level
//! collection, three under it, one under each of those, and one more under
//! each of those), its spaces spread evenly over every collection, and 50
//! teams, each with a read grant on a collection and on a space. The guest
//! (member with no organization role) belongs to one team, whose grant is on
//! the second-level collection above the target space:
//! space → level 4 → level 3 → level 2 (granted) → level 1.
//!
//! `GET /v1/spaces/{id}` as that guest, from many connections for a fixed
//! time, at 2,000 spaces / 200 collections and at 200 / 20: the permission
//! check walks the space's collection chain and looks up grants on it, so
//! both rows should match.

use std::time::Instant;

use anyhow::{Context, ensure};
use quire_app::accounts;
use quire_core::{Clock, DefaultLevel, EditMode, Role, SystemClock, Timestamp, Visibility};
use quire_store::collections::{self, CollectionRow};
use quire_store::grants::{self, Principal, Resource};
use quire_store::spaces::{self, SpaceRow};
use quire_store::users::UserRow;
use quire_store::{content, members, teams, users};
use serde_json::Value;

use crate::{Args, Outcome, Server, ensure_no_errors, http_client, measure, print_load_table};

/// `(spaces, collections)` of the organizations measured, one fresh
/// database each.
const SIZES: [(usize, usize); 2] = [(2_000, 200), (200, 20)];
const TEAMS: usize = 50;
/// Collections per top-level group (1 + 3 + 3 + 3).
const GROUP: usize = 10;
/// Rows per seeding transaction.
const BATCH: usize = 500;

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let mut outcomes = Vec::new();
    let mut backend = String::new();
    for (spaces, collections) in SIZES {
        let server = Server::start(args.database_url.as_deref()).await?;
        backend = server.backend.clone();
        let result = bench(args, &server, spaces, collections).await;
        server.stop().await;
        outcomes.push(result?);
    }
    print_load_table(
        &format!(
            "{backend}, guest with a team grant three collections above the space, {} teams, {} connections, {} s per row:",
            TEAMS, args.connections, args.seconds
        ),
        &outcomes,
    );
    ensure_no_errors(&outcomes)
}

async fn bench(args: &Args, server: &Server, space_count: usize, collection_count: usize) -> anyhow::Result<Outcome> {
    let (admin_id, _, org_id) = server.admin_and_org("Bench Org").await?;
    let started = Instant::now();
    let org = seed(&server.state.app, &org_id, &admin_id, space_count, collection_count).await?;
    server.analyze().await?;
    println!(
        "seeded {space_count} spaces, {collection_count} collections and {TEAMS} teams into {org_id} on {} in {:.1} s",
        server.backend,
        started.elapsed().as_secs_f64()
    );

    // The guest sees the target through the grant, and not a space elsewhere.
    let client = http_client(&org.guest_token)?;
    let url = format!("{}/v1/spaces/{}", server.base_url, org.target);
    let body: Value = client
        .get(&url)
        .send()
        .await?
        .error_for_status()
        .context("the guest cannot read the target space")?
        .json()
        .await?;
    ensure!(body["id"] == org.target.as_str(), "the target space answered {body}");
    let hidden = client
        .get(format!("{}/v1/spaces/{}", server.base_url, org.hidden))
        .send()
        .await?
        .status();
    ensure!(
        hidden == reqwest::StatusCode::NOT_FOUND,
        "the guest should not see a space outside the granted collection, got {hidden}"
    );

    let name = format!("GET /v1/spaces/{{id}} ({space_count} spaces, {collection_count} collections)");
    let outcome = measure(&name, &url, &org.guest_token, args.connections, args.seconds).await?;
    println!("{}", outcome.summary());
    Ok(outcome)
}

/// What the seeded organization gives the scenario.
struct Seeded {
    guest_token: String,
    /// A space the guest reaches through their team's grant.
    target: String,
    /// A space the guest holds no role on.
    hidden: String,
}

fn collection(org_id: &str, index: usize, parent: Option<&str>, now: Timestamp) -> CollectionRow {
    CollectionRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        parent_id: parent.map(str::to_owned),
        title: format!("Collection {index:03}"),
        description: None,
        default_level: DefaultLevel::Inherit,
        position: (index % GROUP) as i64,
        created_at: now,
        updated_at: now,
    }
}

/// Seeds collections, spaces (each with its initial revision), teams with
/// grants, and the guest, in batched write transactions.
async fn seed(
    app: &quire_app::App,
    org_id: &str,
    admin_id: &str,
    space_count: usize,
    collection_count: usize,
) -> anyhow::Result<Seeded> {
    ensure!(
        collection_count >= GROUP && collection_count.is_multiple_of(GROUP),
        "collections come in groups of {GROUP}"
    );
    let db = &app.db;
    let now = SystemClock.now();

    // Collections, group by group: index 0 is top level, 1..=3 under it,
    // 4..=6 under 1..=3, 7..=9 under 4..=6.
    let mut ids: Vec<String> = Vec::with_capacity(collection_count);
    let mut tx = db.write().await?;
    for index in 0..collection_count {
        let in_group = index % GROUP;
        let parent = match in_group {
            0 => None,
            1..=3 => Some(ids[index - in_group].as_str()),
            _ => Some(ids[index - 3].as_str()),
        };
        let row = collection(org_id, index, parent, now);
        collections::insert(&mut tx, &row)
            .await
            .with_context(|| format!("insert collection {index}"))?;
        ids.push(row.id);
    }
    tx.commit().await.context("commit the collections")?;

    // Spaces, round robin over the collections, each with its first revision.
    let mut space_ids = Vec::with_capacity(space_count);
    for start in (0..space_count).step_by(BATCH) {
        let mut tx = db.write().await?;
        for i in start..(start + BATCH).min(space_count) {
            let space = SpaceRow {
                id: quire_core::id::new_id(),
                organization_id: org_id.to_owned(),
                parent_id: Some(ids[i % collection_count].clone()),
                title: format!("Space {i:04}"),
                emoji: String::new(),
                visibility: Visibility::Private,
                edit_mode: EditMode::Live,
                default_level: DefaultLevel::Inherit,
                revision_id: quire_core::id::new_id(),
                share_key: quire_core::id::random_alphanumeric(32),
                position: (i / collection_count) as i64,
                created_at: now,
                updated_at: now,
                deleted_at: None,
            };
            spaces::insert(&mut tx, &space)
                .await
                .with_context(|| format!("insert space {i}"))?;
            content::insert_initial_revision(
                &mut tx,
                &space.id,
                &space.revision_id,
                content::EMPTY_ROOT,
                admin_id,
                now,
            )
            .await
            .with_context(|| format!("insert the initial revision of space {i}"))?;
            space_ids.push(space.id);
        }
        tx.commit().await.context("commit a batch of spaces")?;
    }

    // The target: the first space of a level-4 collection in the middle
    // group; its team's grant is on that collection's level-2 ancestor.
    let groups = collection_count / GROUP;
    let level4 = (groups / 2) * GROUP + 7;
    let level2 = level4 - 6;
    let target = space_ids
        .get(level4)
        .context("too few spaces: every collection needs at least one")?
        .clone();
    // A space of another group, where no team of the guest holds a grant.
    let hidden_group = (groups / 2 + 1) % groups;
    ensure!(groups > 1, "need two groups of collections");
    let hidden = space_ids[hidden_group * GROUP + 7].clone();

    // Teams: team 0 is the guest's; the others hold grants elsewhere.
    let mut tx = db.write().await?;
    let guest = UserRow {
        id: quire_core::id::new_id(),
        email: "guest@example.com".into(),
        display_name: "Guest".into(),
        photo_url: None,
        created_at: now,
    };
    users::insert(&mut tx, &guest).await.context("insert the guest")?;
    members::insert(&mut tx, org_id, &guest.id, None, false, now)
        .await
        .context("make the guest a member without a role")?;
    for t in 0..TEAMS {
        let team_id = quire_core::id::new_id();
        teams::insert(&mut tx, &team_id, org_id, &format!("Team {t:02}"), now)
            .await
            .with_context(|| format!("insert team {t}"))?;
        let (granted_collection, granted_space) = if t == 0 {
            teams::add_member(&mut tx, &team_id, org_id, &guest.id, now)
                .await
                .context("add the guest to their team")?;
            (&ids[level2], None)
        } else {
            // Other groups' level-2 collections and spaces.
            let group = (groups / 2 + 1 + t) % groups;
            (
                &ids[group * GROUP + 1 + t % 3],
                Some(&space_ids[(t * 37) % space_count]),
            )
        };
        grants::upsert(
            &mut tx,
            Resource::Collection,
            granted_collection,
            org_id,
            Principal::Team,
            &team_id,
            Role::Read,
            now,
        )
        .await
        .with_context(|| format!("grant team {t} a collection"))?;
        if let Some(space) = granted_space {
            grants::upsert(
                &mut tx,
                Resource::Space,
                space,
                org_id,
                Principal::Team,
                &team_id,
                Role::Read,
                now,
            )
            .await
            .with_context(|| format!("grant team {t} a space"))?;
        }
    }
    tx.commit().await.context("commit the teams and grants")?;

    let guest_token = accounts::create_token(app, &guest.id, None)
        .await
        .context("create the guest's token")?;
    Ok(Seeded {
        guest_token,
        target,
        hidden,
    })
}
