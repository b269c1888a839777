//! The co-editing sockets (Quire's additions to the API, WebSocket
//! upgrades of GET requests): a page of a change request, and a space's
//! presence. A browser authenticates with its session cookie (and must
//! come from this server's own origin, since a WebSocket is not held by
//! the same-origin rule); other clients with a bearer token. A person
//! holds at most `MAX_SOCKETS_PER_PERSON` sockets on a node (429 after);
//! the rooms ask a connection's rights again while it is open.

use axum::Router;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::http::header::{AUTHORIZATION, ORIGIN};
use axum::response::Response;
use axum::routing::get;
use quire_app::sessions::Credential;
use quire_app::{App, Caller};
use quire_http::AppState;
use quire_http::auth::Auth;
use quire_http::error::ApiError;
use quire_http::extract::Path;

use crate::protocol;
use crate::rooms::{Joined, Outgoing, RoomKey, Rooms, SocketPermit};

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
    let credential = credential(&headers)?;
    let shared =
        quire_app::change_requests::shared_page(&state.app, &caller, &space_id, &change_request, &page_id).await?;
    let upgrade = upgrade.map_err(|_| ApiError::BadRequest("this address takes a WebSocket connection".into()))?;
    let permit = admit(&rooms, &caller)?;
    let key = RoomKey::Page {
        change_request: shared.change_request.id.clone(),
        page: page_id,
    };
    let joined = rooms
        .join(&state.app, key, &shared.space.id, caller, credential, shared.may_edit)
        .await
        .map_err(ApiError::Internal)?;
    Ok(upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, state.app, rooms, joined, permit)))
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
    let credential = credential(&headers)?;
    let space = quire_app::spaces::get(&state.app, &caller, &space_id, None).await?;
    if !space.permissions.access {
        return Err(ApiError::Forbidden(
            "only people with access to the space see who is in it".into(),
        ));
    }
    let upgrade = upgrade.map_err(|_| ApiError::BadRequest("this address takes a WebSocket connection".into()))?;
    let permit = admit(&rooms, &caller)?;
    let key = RoomKey::Space(space.space.id.clone());
    let joined = rooms
        .join(&state.app, key, &space.space.id, caller, credential, false)
        .await
        .map_err(ApiError::Internal)?;
    Ok(upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, state.app, rooms, joined, permit)))
}

/// What the socket authenticated with, to be asked again while it is open.
fn credential(headers: &HeaderMap) -> Result<Credential, ApiError> {
    quire_http::auth::credential(headers).ok_or(ApiError::Unauthorized)
}

/// Counts the person's new socket; 429 past the cap.
fn admit(rooms: &Rooms, caller: &Caller) -> Result<SocketPermit, ApiError> {
    rooms.admit(caller.id()).ok_or_else(|| ApiError::TooManyRequests {
        message: format!(
            "you have {} co-editing connections open on this server; close some first",
            crate::rooms::MAX_SOCKETS_PER_PERSON
        ),
        retry_after_secs: 5,
    })
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
/// the room has for this connection goes out. The permit counts the socket
/// until it ends.
async fn serve(mut socket: WebSocket, app: App, rooms: Rooms, joined: Joined, permit: SocketPermit) {
    let Joined { room, id, mut outgoing } = joined;
    loop {
        tokio::select! {
            frame = outgoing.recv() => match frame {
                Some(Outgoing::Frame(frame)) => {
                    if socket.send(WsMessage::Binary(frame.into())).await.is_err() {
                        break;
                    }
                }
                // 1008: policy violation, the code for access that ended.
                Some(Outgoing::Close(reason)) => {
                    close(&mut socket, 1008, &reason).await;
                    break;
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
                        close(&mut socket, 1003, &reason).await;
                        break;
                    }
                }
                Some(Ok(WsMessage::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
        }
    }
    room.leave(&app, &rooms, id).await;
    drop(permit);
}

/// Sends a close frame with `code` and the start of `reason`.
async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    let _ = socket
        .send(WsMessage::Close(Some(axum::extract::ws::CloseFrame {
            code,
            reason: reason.chars().take(100).collect::<String>().into(),
        })))
        .await;
}
