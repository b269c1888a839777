//! The co-editing sockets (Quire's additions to the API, WebSocket
//! upgrades of GET requests): a page of a change request, and a space's
//! presence. A browser authenticates with its session cookie (and must
//! come from this server's own origin, since a WebSocket is not held by
//! the same-origin rule); other clients with a bearer token.

use axum::Router;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::http::header::{AUTHORIZATION, ORIGIN};
use axum::response::Response;
use axum::routing::get;
use quire_app::{App, Caller};
use quire_http::AppState;
use quire_http::auth::Auth;
use quire_http::error::ApiError;
use quire_http::extract::Path;

use crate::protocol;
use crate::rooms::{Joined, RoomKey, Rooms};

/// The largest message a client may send (a pasted chapter is far less).
const MAX_MESSAGE_BYTES: usize = 8 << 20;

pub fn router(rooms: Rooms) -> Router<AppState> {
    Router::new()
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/pages/{pageId}/collaboration",
            get(page_socket),
        )
        .route("/spaces/{spaceId}/presence", get(presence_socket))
        .layer(Extension(rooms))
}

type Upgrade = Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>;

async fn page_socket(
    State(state): State<AppState>,
    Extension(rooms): Extension<Rooms>,
    Auth(caller): Auth,
    Path((space_id, change_request, page_id)): Path<(String, String, String)>,
    headers: HeaderMap,
    upgrade: Upgrade,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let shared =
        quire_app::change_requests::shared_page(&state.app, &caller, &space_id, &change_request, &page_id).await?;
    let upgrade = upgrade.map_err(|_| ApiError::BadRequest("this address takes a WebSocket connection".into()))?;
    let key = RoomKey::Page {
        change_request: shared.change_request.id.clone(),
        page: page_id,
    };
    let joined = rooms
        .join(&state.app, key, &shared.space.id, caller, shared.may_edit)
        .await
        .map_err(ApiError::Internal)?;
    Ok(upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, state.app, rooms, joined)))
}

async fn presence_socket(
    State(state): State<AppState>,
    Extension(rooms): Extension<Rooms>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    headers: HeaderMap,
    upgrade: Upgrade,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let space = quire_app::spaces::get(&state.app, &caller, &space_id, None).await?;
    if !space.permissions.access {
        return Err(ApiError::Forbidden(
            "only people with access to the space see who is in it".into(),
        ));
    }
    let upgrade = upgrade.map_err(|_| ApiError::BadRequest("this address takes a WebSocket connection".into()))?;
    let joined = join(
        &rooms,
        &state.app,
        RoomKey::Space(space.space.id.clone()),
        &space.space.id,
        caller,
    )
    .await?;
    Ok(upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, state.app, rooms, joined)))
}

async fn join(rooms: &Rooms, app: &App, key: RoomKey, space_id: &str, caller: Caller) -> Result<Joined, ApiError> {
    rooms
        .join(app, key, space_id, caller, false)
        .await
        .map_err(ApiError::Internal)
}

/// A browser (cookie authentication) must open the socket from this
/// server's own pages.
fn same_origin(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if headers.contains_key(AUTHORIZATION) {
        return Ok(());
    }
    let origin = headers.get(ORIGIN).and_then(|v| v.to_str().ok());
    let ours = state.public_url.split('/').take(3).collect::<Vec<_>>().join("/");
    match origin {
        Some(origin) if origin.eq_ignore_ascii_case(&ours) => Ok(()),
        _ => Err(ApiError::Forbidden(
            "a WebSocket opened with a session must come from this server's own pages".into(),
        )),
    }
}

/// Runs one connection: frames in are handled by the room in order; what
/// the room has for this connection goes out.
async fn serve(mut socket: WebSocket, app: App, rooms: Rooms, joined: Joined) {
    let Joined { room, id, mut outgoing } = joined;
    loop {
        tokio::select! {
            frame = outgoing.recv() => match frame {
                Some(frame) => {
                    if socket.send(WsMessage::Binary(frame.into())).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(WsMessage::Binary(bytes))) => {
                    let handled = match protocol::decode(&bytes) {
                        Ok(message) => room.receive(&app, &rooms, id, message).await,
                        Err(e) => Err(e),
                    };
                    if let Err(reason) = handled {
                        tracing::debug!(%reason, "co-editing: a connection sent what cannot be taken");
                        let _ = socket
                            .send(WsMessage::Close(Some(axum::extract::ws::CloseFrame {
                                code: 1003,
                                reason: reason.chars().take(100).collect::<String>().into(),
                            })))
                            .await;
                        break;
                    }
                }
                Some(Ok(WsMessage::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
        }
    }
    room.leave(&app, &rooms, id).await;
}
