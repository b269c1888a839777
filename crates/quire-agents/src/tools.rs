//! The organization server's tools: each one reads its arguments, calls the
//! function the HTTP API calls for the same operation, and answers text
//! for the model (ids included, so the next call can name what this one
//! found).

use quire_app::Caller;
use quire_app::content::Source;
use quire_app::error::AppError;
use quire_http::AppState;
use quire_http::mcp::Outcome;
use quire_mcp::Tool;
use quire_store::audit;
use quire_store::page::PageRequest;
use serde_json::{Map, Value, json};

type Arguments = Map<String, Value>;

/// Spaces and results a tool lists at most.
const LIMIT: u32 = 50;

fn schema(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

pub(crate) fn list() -> Vec<Tool> {
    let space = string("The space's id (from listSpaces)");
    let change_request = string("The change request's id (from openChangeRequest)");
    vec![
        Tool {
            name: "listSpaces",
            description: "List the organizations and spaces you may read, with their ids.".into(),
            input_schema: schema(
                json!({ "organizationId": string("Only this organization's spaces") }),
                &[],
            ),
            read_only: true,
        },
        Tool {
            name: "searchContent",
            description: "Search the pages of a space, or of every space of an organization.".into(),
            input_schema: schema(
                json!({
                    "query": string("What to look for"),
                    "spaceId": string("Search this space"),
                    "organizationId": string("Or search every space of this organization"),
                }),
                &["query"],
            ),
            read_only: true,
        },
        Tool {
            name: "readPage",
            description: "Read a page as markdown, by its path in the space (`setup/install`) or its id; in a \
                          change request when one is named. Without a page, lists the space's pages."
                .into(),
            input_schema: schema(
                json!({
                    "spaceId": space.clone(),
                    "path": string("The page's path of slugs"),
                    "pageId": string("Or the page's id"),
                    "changeRequestId": string("Read the change request's version"),
                }),
                &["spaceId"],
            ),
            read_only: true,
        },
        Tool {
            name: "openChangeRequest",
            description: "Open a change request in a space: edits are written into it, then reviewed and merged."
                .into(),
            input_schema: schema(
                json!({ "spaceId": space.clone(), "subject": string("What the change is about") }),
                &["spaceId", "subject"],
            ),
            read_only: false,
        },
        Tool {
            name: "writePage",
            description: "Write a page of a change request from markdown: a new page (with `title`), or a \
                          replacement of the page `pageId`'s content."
                .into(),
            input_schema: schema(
                json!({
                    "spaceId": space.clone(),
                    "changeRequestId": change_request.clone(),
                    "markdown": string("The page's content, as markdown"),
                    "title": string("The new page's title"),
                    "pageId": string("The page to rewrite"),
                }),
                &["spaceId", "changeRequestId", "markdown"],
            ),
            read_only: false,
        },
        Tool {
            name: "comment",
            description: "Comment on a space, or on a change request when one is named.".into(),
            input_schema: schema(
                json!({
                    "spaceId": space.clone(),
                    "changeRequestId": change_request.clone(),
                    "markdown": string("The comment, as markdown"),
                }),
                &["spaceId", "markdown"],
            ),
            read_only: false,
        },
        Tool {
            name: "requestReview",
            description: "Ask people (by user id) to review a change request.".into(),
            input_schema: schema(
                json!({
                    "spaceId": space.clone(),
                    "changeRequestId": change_request.clone(),
                    "userIds": { "type": "array", "items": { "type": "string" }, "minItems": 1 },
                }),
                &["spaceId", "changeRequestId", "userIds"],
            ),
            read_only: false,
        },
        Tool {
            name: "merge",
            description: "Merge a change request into its space.".into(),
            input_schema: schema(
                json!({ "spaceId": space, "changeRequestId": change_request }),
                &["spaceId", "changeRequestId"],
            ),
            read_only: false,
        },
        Tool {
            name: "publishSite",
            description: "Publish a site of an organization (its spaces become readable at its address).".into(),
            input_schema: schema(
                json!({ "organizationId": string("The site's organization"), "siteId": string("The site") }),
                &["organizationId", "siteId"],
            ),
            read_only: false,
        },
    ]
}

fn optional<'a>(arguments: &'a Arguments, name: &str) -> Result<Option<&'a str>, (i64, String)> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(value)) if !value.trim().is_empty() => Ok(Some(value)),
        Some(_) => Err((
            quire_mcp::INVALID_PARAMS,
            format!("`{name}` must be a non-empty string"),
        )),
    }
}

fn required<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, (i64, String)> {
    quire_mcp::string_argument(arguments, name)
}

/// An application refusal as the tool's error text (an internal error is
/// logged and not described).
fn refusal(err: AppError) -> Value {
    let message = match err {
        AppError::Internal(cause) => {
            tracing::error!(error = %format!("{cause:#}"), "an MCP tool failed");
            "internal error".to_owned()
        }
        other => other.to_string(),
    };
    quire_mcp::text([message], true)
}

fn done(text: String) -> Outcome {
    Ok(quire_mcp::text([text], false))
}

/// The audit entry of a tool's change: its action, and the space and
/// organization it names.
async fn audit(app: &quire_app::App, name: &str, arguments: &Arguments) {
    audit::action(&format!("mcp {name}"));
    if let Some(org) = arguments.get("organizationId").and_then(Value::as_str) {
        audit::in_organization(org);
    }
    if let Some(space) = arguments.get("spaceId").and_then(Value::as_str) {
        audit::concerning(audit::Target::new("space", space));
        if let Ok(mut conn) = app.db.read().await
            && let Ok(Some(org)) = audit::organization_of(&mut conn, audit::Owner::Space, space).await
        {
            audit::in_organization(&org);
        }
    }
}

pub(crate) async fn call(state: &AppState, caller: &Caller, name: &str, arguments: &Arguments) -> Outcome {
    let app = &state.app;
    audit(app, name, arguments).await;
    let outcome: Result<String, AppError> = match name {
        "listSpaces" => {
            let only = optional(arguments, "organizationId")?;
            list_spaces(app, caller, only).await
        }
        "searchContent" => {
            let query = required(arguments, "query")?;
            match (optional(arguments, "spaceId")?, optional(arguments, "organizationId")?) {
                (Some(space), _) => search_space(app, caller, space, query).await,
                (None, Some(org)) => search_org(app, caller, org, query).await,
                (None, None) => {
                    return Err((quire_mcp::INVALID_PARAMS, "name a spaceId or an organizationId".into()));
                }
            }
        }
        "readPage" => {
            let space = required(arguments, "spaceId")?;
            let source = match optional(arguments, "changeRequestId")? {
                Some(cr) => Source::ChangeRequest(cr.to_owned()),
                None => Source::Main,
            };
            let page = (optional(arguments, "path")?, optional(arguments, "pageId")?);
            read_page(app, caller, space, &source, page).await
        }
        "openChangeRequest" => {
            let (space, subject) = (required(arguments, "spaceId")?, required(arguments, "subject")?);
            quire_app::change_requests::open(app, caller, space, subject)
                .await
                .map(|cr| {
                    format!(
                        "Opened change request #{} \"{}\" (changeRequestId {}) in space {space}.",
                        cr.change_request.number, cr.change_request.subject, cr.change_request.id
                    )
                })
        }
        "writePage" => {
            let (space, cr) = (required(arguments, "spaceId")?, required(arguments, "changeRequestId")?);
            let markdown = required(arguments, "markdown")?;
            let change = match (optional(arguments, "pageId")?, optional(arguments, "title")?) {
                (Some(page), _) => {
                    json!({ "operation": "update_page", "page": page, "document": { "markdown": markdown } })
                }
                (None, Some(title)) => {
                    json!({ "operation": "insert_page", "title": title, "document": { "markdown": markdown } })
                }
                (None, None) => return Err((quire_mcp::INVALID_PARAMS, "give a pageId to rewrite or a title".into())),
            };
            let change = serde_json::from_value(change).map_err(|e| (quire_mcp::INVALID_PARAMS, e.to_string()))?;
            quire_app::change_requests::write_content(app, caller, space, cr, vec![change])
                .await
                .map(|(_, applied)| match applied.first() {
                    Some(quire_engine::changes::AppliedChange::Created { page, .. }) => {
                        format!("Created page {page} in change request {cr}.")
                    }
                    Some(quire_engine::changes::AppliedChange::Updated { page }) => {
                        format!("Rewrote page {page} in change request {cr}.")
                    }
                    _ => format!("Wrote change request {cr}."),
                })
        }
        "comment" => {
            let (space, markdown) = (required(arguments, "spaceId")?, required(arguments, "markdown")?);
            let discussion = match optional(arguments, "changeRequestId")? {
                Some(cr) => quire_discussions::Discussion::ChangeRequest(cr.to_owned()),
                None => quire_discussions::Discussion::Space,
            };
            let new = serde_json::from_value(json!({ "body": { "markdown": markdown } }))
                .map_err(|e| (quire_mcp::INVALID_PARAMS, e.to_string()))?;
            quire_discussions::post(app, caller, space, &discussion, new)
                .await
                .map(|posted| format!("Posted comment {}.", posted.comment.id))
        }
        "requestReview" => {
            let (space, cr) = (required(arguments, "spaceId")?, required(arguments, "changeRequestId")?);
            let users = match arguments.get("userIds") {
                Some(Value::Array(ids)) if !ids.is_empty() && ids.iter().all(Value::is_string) => ids.clone(),
                _ => return Err((quire_mcp::INVALID_PARAMS, "`userIds` must be a list of user ids".into())),
            };
            let new = serde_json::from_value(json!({ "users": users }))
                .map_err(|e| (quire_mcp::INVALID_PARAMS, e.to_string()))?;
            quire_discussions::reviews::request(app, caller, space, cr, new)
                .await
                .map(|asked| format!("Asked {} people to review change request {cr}.", asked.len()))
        }
        "merge" => {
            let (space, cr) = (required(arguments, "spaceId")?, required(arguments, "changeRequestId")?);
            quire_app::change_requests::merge(app, caller, space, cr)
                .await
                .map(|revision| format!("Merged change request {cr} into space {space} (revision {revision})."))
        }
        "publishSite" => {
            let (org, site) = (required(arguments, "organizationId")?, required(arguments, "siteId")?);
            quire_sites::set_published(app, caller, org, site, true)
                .await
                .map(|info| format!("Published site {} at /{}/.", info.site.title, info.site.basename))
        }
        other => return Err((quire_mcp::INVALID_PARAMS, format!("no tool {other:?}"))),
    };
    match outcome {
        Ok(text) => done(text),
        Err(err) => Ok(refusal(err)),
    }
}

async fn list_spaces(app: &quire_app::App, caller: &Caller, only: Option<&str>) -> Result<String, AppError> {
    let first = PageRequest {
        after: None,
        limit: LIMIT,
        descending: false,
    };
    let orgs: Vec<(String, String)> = match only {
        Some(org) => {
            let info = quire_app::orgs::get(app, caller, org).await?;
            vec![(info.org.id, info.org.title)]
        }
        None => quire_app::orgs::list_for_caller(app, caller, &first)
            .await?
            .items
            .into_iter()
            .map(|info| (info.org.id, info.org.title))
            .collect(),
    };
    let mut out = String::new();
    for (id, title) in orgs {
        out.push_str(&format!("Organization {title} (organizationId {id})\n"));
        for space in quire_app::spaces::list_in_org(app, caller, &id, &first).await?.items {
            out.push_str(&format!("- {} (spaceId {})\n", space.space.title, space.space.id));
        }
    }
    if out.is_empty() {
        out.push_str("You belong to no organization.");
    }
    Ok(out)
}

async fn search_space(app: &quire_app::App, caller: &Caller, space: &str, query: &str) -> Result<String, AppError> {
    let first = PageRequest {
        after: None,
        limit: 10,
        descending: false,
    };
    let hits = quire_app::search::in_space(app, caller, space, query, &first).await?;
    Ok(render_hits(space, &hits.items))
}

async fn search_org(app: &quire_app::App, caller: &Caller, org: &str, query: &str) -> Result<String, AppError> {
    let first = PageRequest {
        after: None,
        limit: 10,
        descending: false,
    };
    let spaces = quire_app::search::in_org(app, caller, org, query, &first).await?;
    Ok(spaces
        .items
        .iter()
        .map(|result| {
            format!(
                "Space {}:\n{}",
                result.space.title,
                render_hits(&result.space.id, &result.pages)
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

fn render_hits(space: &str, hits: &[quire_app::search::PageResult]) -> String {
    if hits.is_empty() {
        return "No page matches.".into();
    }
    hits.iter()
        .map(|hit| {
            let passage = hit.sections.iter().find(|s| s.matched).or(hit.sections.first());
            format!(
                "- {} (spaceId {space}, path {}, pageId {}){}",
                hit.title,
                hit.path,
                hit.page_id,
                passage.map(|s| format!(": {}", s.body)).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

async fn read_page(
    app: &quire_app::App,
    caller: &Caller,
    space: &str,
    source: &Source,
    (path, page_id): (Option<&str>, Option<&str>),
) -> Result<String, AppError> {
    let (_, snapshot) = quire_app::content::open(app, caller, space, source).await?;
    let page = match (page_id, path) {
        (Some(id), _) => snapshot.tree.pages.contains_key(id).then(|| id.to_owned()),
        (None, Some(path)) => snapshot.page_by_path(path),
        (None, None) => {
            let listing: Vec<String> = snapshot
                .tree
                .walk()
                .into_iter()
                .map(|(id, depth)| {
                    format!(
                        "{}- {} (path {}, pageId {id})",
                        "  ".repeat(depth),
                        snapshot.tree.pages[&id].meta.title,
                        snapshot.path_of(&id)
                    )
                })
                .collect();
            return Ok(if listing.is_empty() {
                "The space has no pages.".into()
            } else {
                listing.join("\n")
            });
        }
    };
    let Some(page) = page else {
        return Err(AppError::not_found("page", path.or(page_id).unwrap_or_default()));
    };
    let markdown = quire_app::content::page_markdown(app, &snapshot, &page)
        .await?
        .unwrap_or_default();
    let meta = &snapshot.tree.pages[&page].meta;
    Ok(format!(
        "# {}\n\n(pageId {page}, path {})\n\n{markdown}",
        meta.title,
        snapshot.path_of(&page)
    ))
}
