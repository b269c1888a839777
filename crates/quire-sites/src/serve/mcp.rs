//! The published site's Model Context Protocol server, at `{site
//! URL}/~gitbook/mcp` as on GitBook, read-only: `searchDocumentation`,
//! `getPage` (a page's markdown by its URL) and `listPages`, and
//! `askQuestion` when the operator configured a chat model (`ask`). An agent is a
//! visitor like any other: the site must be published, its audience admits
//! the agent as it admits a browser (a share link's URL, a visitor token as
//! `?jwt_token=` or `Authorization: Bearer`, claims as `?visitor.x=`), and
//! every answer goes through the visit, so withheld pages and conditional
//! blocks stay out exactly as on the HTML. Each request of a batch counts
//! against the address's limit on sites (`quire_http::mcp`). The
//! protocol's messages are `quire-mcp`'s.

use axum::body::Bytes;
use quire_mcp::Tool;
use serde_json::{Value, json};

use super::*;

/// Largest request body.
pub(super) const MAX_BODY: usize = 1 << 20;
/// Results `searchDocumentation` gives at most.
const SEARCH_RESULTS: usize = 10;

/// Whether `path` is a site's MCP endpoint: the path it is under.
pub(super) fn endpoint(path: &str) -> Option<&str> {
    path.strip_suffix("/~gitbook/mcp")
        .or_else(|| path.strip_suffix("/~gitbook/mcp/"))
}

use quire_http::limits::Charge;
use quire_http::mcp::{Outcome, refused};

pub(super) async fn serve(
    state: &SiteState,
    method: &Method,
    headers: &HeaderMap,
    uri: &Uri,
    charge: &Charge,
    body: Bytes,
) -> Response {
    if method != Method::POST {
        return quire_http::mcp::method_not_allowed();
    }
    match answer(state, headers, uri, charge, &body).await {
        Ok(res) => res,
        Err(err) => {
            tracing::error!(error = %err, "site MCP request failed");
            refused(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
    }
}

async fn answer(
    state: &SiteState,
    headers: &HeaderMap,
    uri: &Uri,
    charge: &Charge,
    body: &[u8],
) -> quire_app::AppResult<Response> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let under = endpoint(uri.path()).unwrap_or_default();
    let Route::Site(candidates) = route::route(route::segments(under), host, &state.public_host, &state.public_url)
    else {
        return Ok(refused(StatusCode::NOT_FOUND, "no published site here"));
    };
    let visit = match admit_as(state, headers, uri, candidates, Client::Agent).await? {
        Admitted::Visit(visit, rest) if rest.is_empty() => visit,
        Admitted::Visit(..) => return Ok(refused(StatusCode::NOT_FOUND, "the MCP server is at the site's root")),
        Admitted::Answer(res) if res.status() == StatusCode::NOT_FOUND => {
            return Ok(refused(StatusCode::NOT_FOUND, "no published site here"));
        }
        Admitted::Answer(_) => {
            return Ok(refused(
                StatusCode::UNAUTHORIZED,
                "this site admits signed-in visitors only: send the visitor's token as Authorization: Bearer",
            ));
        }
    };
    let visit = &visit;
    quire_http::mcp::answer(headers, charge, body, move |method, params| async move {
        request(state, visit, &method, &params).await
    })
    .await
}

async fn request(state: &SiteState, visit: &Visit, method: &str, params: &Value) -> quire_app::AppResult<Outcome> {
    Ok(match method {
        "initialize" => Ok(quire_mcp::initialize(
            params,
            &format!("{} (Quire)", visit.site.site.title),
            env!("CARGO_PKG_VERSION"),
            &format!(
                "The published documentation of {}. Search it, read its pages as markdown by their URL, or list them.",
                visit.site.site.title
            ),
        )),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(quire_mcp::tool_list(&tools(state, visit))),
        "tools/call" => {
            let (name, arguments) = match quire_mcp::tool_call(params) {
                Ok(call) => call,
                Err(err) => return Ok(Err(err)),
            };
            match name {
                "searchDocumentation" => match quire_mcp::string_argument(arguments, "query") {
                    Ok(query) => Ok(search(state, visit, query).await?),
                    Err(err) => Err(err),
                },
                "getPage" => match quire_mcp::string_argument(arguments, "url") {
                    Ok(url) => Ok(get_page(state, visit, url).await?),
                    Err(err) => Err(err),
                },
                "listPages" => Ok(list_pages(state, visit).await?),
                "askQuestion" if ask::offered(state, visit) => {
                    match quire_mcp::string_argument(arguments, "question") {
                        Ok(question) => Ok(match ask::ask(state, visit, question).await? {
                            ask::Asked::Answered(answer) => quire_mcp::text([ask::as_markdown(&answer)], false),
                            ask::Asked::Refused(why) => quire_mcp::text([why], true),
                            ask::Asked::Unavailable => quire_mcp::text(["answers are not available".to_owned()], true),
                        }),
                        Err(err) => Err(err),
                    }
                }
                other => Err((quire_mcp::INVALID_PARAMS, format!("no tool {other:?}"))),
            }
        }
        other => Err((quire_mcp::METHOD_NOT_FOUND, format!("no method {other:?}"))),
    })
}

fn tools(state: &SiteState, visit: &Visit) -> Vec<Tool> {
    let title = &visit.site.site.title;
    let site_url = format!("{}{}/", visit.origin, visit.base);
    let object = |name: &str, description: &str| {
        json!({
            "type": "object",
            "properties": { name: { "type": "string", "description": description } },
            "required": [name],
            "additionalProperties": false,
        })
    };
    let mut tools = vec![
        Tool {
            name: "searchDocumentation",
            description: format!(
                "Search the {title} documentation ({site_url}) for pages about a topic: their titles, links and the \
                 passages that matched. Read a page in full with getPage."
            ),
            input_schema: object("query", "What to look for, in words"),
            read_only: true,
        },
        Tool {
            name: "getPage",
            description: format!("Read a page of the {title} documentation as markdown, by its URL ({site_url}...)."),
            input_schema: object("url", "The URL of the page to fetch"),
            read_only: true,
        },
        Tool {
            name: "listPages",
            description: format!("List every page of the {title} documentation with its link and description."),
            input_schema: json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            read_only: true,
        },
    ];
    if ask::offered(state, visit) {
        tools.push(Tool {
            name: "askQuestion",
            description: format!(
                "Ask a question of the {title} documentation: an answer written from its pages, citing them."
            ),
            input_schema: object("question", "The question, in words"),
            read_only: true,
        });
    }
    tools
}

async fn search(state: &SiteState, visit: &Visit, query: &str) -> quire_app::AppResult<Value> {
    let found = match found(state, visit, query, SEARCH_RESULTS).await? {
        Ok(found) => found,
        Err(message) => return Ok(quire_mcp::text([message], true)),
    };
    if found.is_empty() {
        return Ok(quire_mcp::text([format!("No page matches {query:?}.")], false));
    }
    Ok(quire_mcp::text(
        found.into_iter().map(|hit| {
            let mut text = format!("Title: {}\nLink: {}", hit.title, hit.url);
            if let Some(passage) = hit.passage {
                text.push_str(&format!("\nContent: {passage}"));
            }
            text
        }),
        false,
    ))
}

async fn get_page(state: &SiteState, visit: &Visit, url: &str) -> quire_app::AppResult<Value> {
    Ok(match markdown_at(state, visit, url).await? {
        Some(markdown) => quire_mcp::text([markdown], false),
        None => quire_mcp::text([format!("Page not found: {url:?}")], true),
    })
}

async fn list_pages(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Value> {
    let pages = listed(state, visit).await?;
    Ok(quire_mcp::text([outputs::llms(&visit.site.site.title, &pages)], false))
}

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn the_endpoint_is_under_the_site() {
        assert_eq!(endpoint("/docs/~gitbook/mcp"), Some("/docs"));
        assert_eq!(endpoint("/~gitbook/mcp"), Some(""));
        assert_eq!(endpoint("/docs/page"), None);
    }
}
