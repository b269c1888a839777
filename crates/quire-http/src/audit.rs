//! The audit scope of every request that may change something (`POST`,
//! `PUT`, `PATCH`, `DELETE`): a route layer that describes the request
//! (action `METHOD /route`, its path parameters, the client's address, the
//! organization it concerns) before the handler runs, so that whatever the
//! handler commits carries its entry (`quire_store::audit`). Authentication
//! names the actor when it knows it ([`acting`]).

use axum::extract::{MatchedPath, RawPathParams, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use quire_app::{Caller, Via};
use quire_store::audit::{self, Actor, Entry, Scope, Source, Target};
use serde_json::{Map, Value};

use crate::session::ClientInfo;
use crate::state::AppState;

/// Longest request id kept in an entry (the client may choose it).
const MAX_REQUEST_ID: usize = 200;

/// The route layer.
pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !changes_something(request.method()) {
        return next.run(request).await;
    }
    let Some(route) = request.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned()) else {
        return next.run(request).await;
    };
    let (mut parts, body) = request.into_parts();
    let parameters: Vec<(String, String)> =
        match <RawPathParams as axum::extract::FromRequestParts<AppState>>::from_request_parts(&mut parts, &state).await
        {
            Ok(params) => params
                .iter()
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect(),
            Err(_) => Vec::new(),
        };
    let address =
        match <ClientInfo as axum::extract::FromRequestParts<AppState>>::from_request_parts(&mut parts, &state).await {
            Ok(ClientInfo(client)) => client.address,
            Err(_) => None,
        };
    let request_id = parts
        .headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(MAX_REQUEST_ID).collect::<String>());
    let request = Request::from_parts(parts, body);

    let api = route.starts_with("/v1/");
    let action = format!("{} {}", request.method(), route.strip_prefix("/v1").unwrap_or(&route));
    let organization_id = organization_of(&state, &parameters).await;
    let target = parameters
        .last()
        .map(|(name, value)| Target::new(&target_kind(name), value));
    let mut payload = Map::new();
    payload.insert("route".into(), Value::from(route.clone()));
    payload.insert(
        "parameters".into(),
        Value::Object(
            parameters
                .iter()
                .map(|(name, value)| (name.clone(), Value::from(value.clone())))
                .collect(),
        ),
    );
    if let Some(address) = address {
        payload.insert("address".into(), Value::from(address));
    }
    if let Some(request_id) = request_id {
        payload.insert("requestId".into(), Value::from(request_id));
    }
    let scope = Scope::new(Entry {
        organization_id,
        occurred_at: state.app.now(),
        action,
        actor: Actor::system("anonymous"),
        source: if api { Source::Api } else { Source::Ui },
        target,
        // Fresh, never the client's request id: a repeated one must not
        // leave a change unrecorded.
        execution_id: quire_core::id::new_id(),
        payload,
        subject: None,
    });
    scope.run(next.run(request)).await
}

/// Says that `caller` makes the current request's change.
pub fn acting(caller: &Caller) {
    let source = match caller.via {
        Via::Token => Source::Api,
        Via::Session { .. } => Source::Ui,
    };
    audit::acting(Actor::user(&caller.user.id, Some(&caller.user.display_name)), source);
}

fn changes_something(method: &Method) -> bool {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH | Method::DELETE)
}

/// The organization whose log shows the request: named by the path, or
/// the organization of the space or collection it names.
async fn organization_of(state: &AppState, parameters: &[(String, String)]) -> Option<String> {
    let find = |name: &str| {
        parameters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.clone())
    };
    if let Some(org) = find("organizationId") {
        return Some(org);
    }
    let (kind, id) = match (find("spaceId"), find("collectionId")) {
        (Some(space), _) => (audit::Owner::Space, space),
        (None, Some(collection)) => (audit::Owner::Collection, collection),
        (None, None) => return None,
    };
    let mut conn = state.app.db.read().await.ok()?;
    audit::organization_of(&mut conn, kind, &id).await.ok().flatten()
}

/// `changeRequestId` → `change-request`: a path parameter's name as the
/// kind of what it names.
fn target_kind(parameter: &str) -> String {
    let name = parameter.strip_suffix("Id").unwrap_or(parameter);
    let mut kind = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            kind.push('-');
            kind.push(c.to_ascii_lowercase());
        } else {
            kind.push(c);
        }
    }
    kind
}

#[cfg(test)]
mod tests {
    use super::target_kind;

    #[test]
    fn parameters_name_their_kind() {
        assert_eq!(target_kind("spaceId"), "space");
        assert_eq!(target_kind("changeRequestId"), "change-request");
        assert_eq!(target_kind("organizationId"), "organization");
        assert_eq!(target_kind("specSlug"), "spec-slug");
    }
}
