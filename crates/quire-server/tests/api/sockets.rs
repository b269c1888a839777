//! The co-editing sockets against a hostile member and changing rights, over
//! real WebSockets (tokio-tungstenite): frames whose counts lie cost no
//! memory, presence is capped and each person's own, a person's sockets
//! are capped, and a socket whose token is revoked, whose session ends or
//! whose person is demoted or removed closes or turns read-only while it
//! is open — on the node that holds it, whichever node the change was
//! made on.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::support::{Backend, TestApp, TestUser, both_backends};

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// lib0's variable-length encoding of `value`.
fn var(mut value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

fn read_var(bytes: &mut &[u8]) -> u64 {
    let mut value = 0;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first().expect("a number");
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            break;
        }
    }
    value
}

fn read_buf<'a>(bytes: &mut &'a [u8]) -> &'a [u8] {
    let length = read_var(bytes) as usize;
    let (buf, rest) = bytes.split_at(length);
    *bytes = rest;
    buf
}

/// An awareness message publishing `states` (client, clock, JSON).
fn awareness(states: &[(u64, u64, &str)]) -> Vec<u8> {
    let mut payload = var(states.len() as u64);
    for (client, clock, json) in states {
        payload.extend(var(*client));
        payload.extend(var(*clock));
        payload.extend(var(json.len() as u64));
        payload.extend_from_slice(json.as_bytes());
    }
    let mut frame = var(1);
    frame.extend(var(payload.len() as u64));
    frame.extend(payload);
    frame
}

/// The states an awareness message holds, by client.
fn states_of(frame: &[u8]) -> Option<Vec<(u64, String)>> {
    let mut bytes = frame;
    if read_var(&mut bytes) != 1 {
        return None;
    }
    let mut payload = read_buf(&mut bytes);
    let count = read_var(&mut payload);
    let mut out = Vec::new();
    for _ in 0..count {
        let client = read_var(&mut payload);
        read_var(&mut payload);
        let json = String::from_utf8_lossy(read_buf(&mut payload)).into_owned();
        out.push((client, json));
    }
    Some(out)
}

/// Quire's state message (`{ready, readOnly, reason}`), if `frame` is one.
fn state_of(frame: &[u8]) -> Option<Value> {
    let mut bytes = frame;
    if read_var(&mut bytes) != 102 {
        return None;
    }
    serde_json::from_slice(read_buf(&mut bytes)).ok()
}

/// Opens the socket at `path` of `base` with a bearer token (or, with a
/// cookie, as a browser of the server's own pages).
async fn open(base: &str, path: &str, auth: &Auth<'_>) -> Result<Socket, u16> {
    let url = format!("{}{path}", base.replacen("http://", "ws://", 1));
    let mut request = url.into_client_request().expect("a WebSocket request");
    let headers = request.headers_mut();
    match auth {
        Auth::Token(token) => {
            headers.insert("authorization", format!("Bearer {token}").parse().expect("a header"));
        }
        Auth::Cookie(cookie) => {
            headers.insert("cookie", format!("quire_session={cookie}").parse().expect("a header"));
            headers.insert("origin", base.parse().expect("a header"));
        }
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
        Err(e) => panic!("connecting to {path}: {e}"),
    }
}

enum Auth<'a> {
    Token(&'a str),
    Cookie(&'a str),
}

/// What the socket says next: a binary frame, or how it closed.
enum Heard {
    Frame(Vec<u8>),
    Closed(Option<(CloseCode, String)>),
}

async fn next(socket: &mut Socket) -> Heard {
    loop {
        match tokio::time::timeout(Duration::from_secs(15), socket.next()).await {
            Err(_) => panic!("the socket said nothing for 15 s"),
            Ok(Some(Ok(Message::Binary(bytes)))) => return Heard::Frame(bytes.to_vec()),
            Ok(Some(Ok(Message::Close(frame)))) => {
                return Heard::Closed(frame.map(|f| (f.code, f.reason.to_string())));
            }
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(_)) | None) => return Heard::Closed(None),
        }
    }
}

/// Reads until the socket closes; its close code and reason.
async fn closed(socket: &mut Socket) -> Option<(CloseCode, String)> {
    loop {
        if let Heard::Closed(how) = next(socket).await {
            return how;
        }
    }
}

/// Reads until a state message matching `wanted` arrives.
async fn state_until(socket: &mut Socket, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        match next(socket).await {
            Heard::Frame(frame) => {
                if let Some(state) = state_of(&frame).filter(|s| wanted(s)) {
                    return state;
                }
            }
            Heard::Closed(how) => panic!("closed while waiting for a state: {how:?}"),
        }
    }
}

/// Asks the room who is present and reads the answer.
async fn present(socket: &mut Socket) -> Vec<(u64, String)> {
    socket.send(Message::Binary(vec![3].into())).await.expect("a query");
    loop {
        match next(socket).await {
            Heard::Frame(frame) => {
                if let Some(states) = states_of(&frame) {
                    return states;
                }
            }
            Heard::Closed(how) => panic!("closed while asking who is present: {how:?}"),
        }
    }
}

/// The peak resident memory of this process (the server runs in it), in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// Ada (admin), Grace (editor) and Rita (reader) in one organization; a
/// change request with a page: (org, space, page socket path, ada, grace, rita).
async fn setup(app: &TestApp) -> (String, String, String, TestUser, TestUser, TestUser) {
    let ada = app.user("Ada").await;
    let grace = app.user("Grace").await;
    let rita = app.user("Rita").await;
    let org = app.org(&ada, "Docs").await;
    app.add_member(&ada, &org, &grace, json!("edit")).await;
    app.add_member(&ada, &org, &rita, json!("read")).await;
    let space = app.space(&ada, &org, "Guide", None).await;
    let cr = app.change_request(&ada, &space, "Together").await;
    let res = app
        .post(
            &ada,
            &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
            json!({ "changes": [{ "operation": "insert_page", "title": "Start", "document": { "markdown": "Hello.\n" } }] }),
        )
        .await;
    res.assert_status(200);
    let page = res.body["changes"][0]["page"]["id"]
        .as_str()
        .expect("a page")
        .to_owned();
    let path = format!("/v1/spaces/{space}/change-requests/{cr}/pages/{page}/collaboration");
    (org, space, path, ada, grace, rita)
}

both_backends! {
    async fn frames_whose_counts_lie_are_refused_before_anything_is_reserved(app: TestApp) {
        let (_, space, path, _, _, rita) = setup(&app).await;
        let before = peak_rss_kib();
        let billion = var(1_000_000_000);
        // The probe's 7-byte awareness frame, a state vector, an update.
        let mut bombs = vec![{
            let mut f = var(1);
            f.extend(var(billion.len() as u64));
            f.extend(&billion);
            f
        }];
        for kind in [0, 1, 2] {
            let mut f = vec![0, kind];
            f.extend(var(billion.len() as u64));
            f.extend(&billion);
            bombs.push(f);
        }
        assert_eq!(bombs[0].len(), 7);
        for (bomb, socket_path) in bombs.iter().zip([&path, &path, &path, &format!("/v1/spaces/{space}/presence")]) {
            // A reader, the least anyone needs to open a socket.
            let mut socket = open(&app.base_url, socket_path, &Auth::Token(&rita.token)).await.expect("opened");
            socket.send(Message::Binary(bomb.clone().into())).await.expect("sent");
            let (code, reason) = closed(&mut socket).await.expect("a close frame");
            assert_eq!(code, CloseCode::Unsupported, "{reason}");
            assert!(reason.contains("claims 1000000000 entries"), "{reason}");
        }
        let grown_mib = (peak_rss_kib().saturating_sub(before)) / 1024;
        assert!(grown_mib < 256, "the peak memory grew {grown_mib} MiB");
    }

    async fn presence_is_capped_and_each_state_is_its_owners(app: TestApp) {
        let (_, space, _, ada, _, rita) = setup(&app).await;
        let presence = format!("/v1/spaces/{space}/presence");
        let mut adas = open(&app.base_url, &presence, &Auth::Token(&ada.token)).await.expect("opened");
        adas.send(Message::Binary(awareness(&[(7, 1, r#"{"cursor":1}"#)]).into())).await.expect("sent");
        // Ada's state is held before Rita tries to take it (a socket's
        // frames are handled in order: the answer to this query comes after).
        let held = present(&mut adas).await;
        assert!(held.iter().any(|(c, _)| *c == 7), "{held:?}");
        let mut ritas = open(&app.base_url, &presence, &Auth::Token(&rita.token)).await.expect("opened");
        // Rita can neither change nor remove Ada's state.
        ritas.send(Message::Binary(awareness(&[(7, 5, r#"{"cursor":666}"#)]).into())).await.expect("sent");
        ritas.send(Message::Binary(awareness(&[(7, 6, "null")]).into())).await.expect("sent");
        let states = present(&mut ritas).await;
        let adas_state = states.iter().find(|(c, _)| *c == 7).map(|(_, json)| json.clone()).expect("Ada's state");
        let adas_state: Value = serde_json::from_str(&adas_state).expect("JSON");
        assert_eq!(adas_state["cursor"], 1);
        assert_eq!(adas_state["user"]["id"], ada.id.as_str());
        // A state larger than a cursor needs is refused.
        let big = format!("{{\"x\":\"{}\"}}", "y".repeat(5000));
        let mut other = open(&app.base_url, &presence, &Auth::Token(&rita.token)).await.expect("opened");
        other.send(Message::Binary(awareness(&[(9, 1, &big)]).into())).await.expect("sent");
        assert_eq!(closed(&mut other).await.expect("a close frame").0, CloseCode::Unsupported);
        // A million states from one reader: refused past the cap, and the
        // room holds none of them.
        let many: Vec<(u64, u64, &str)> = (100..1_000_100).map(|c| (c, 1, "{}")).collect();
        ritas.send(Message::Binary(awareness(&many).into())).await.expect("sent");
        let (code, reason) = closed(&mut ritas).await.expect("a close frame");
        assert_eq!(code, CloseCode::Unsupported);
        assert!(reason.contains("at most 8 awareness states"), "{reason}");
        let states = present(&mut adas).await;
        assert_eq!(states.len(), 1, "{states:?}");
    }

    async fn a_persons_sockets_are_capped(app: TestApp) {
        let (_, space, _, _, _, rita) = setup(&app).await;
        let presence = format!("/v1/spaces/{space}/presence");
        let mut sockets = Vec::new();
        for _ in 0..quire_collab::rooms::MAX_SOCKETS_PER_PERSON {
            sockets.push(open(&app.base_url, &presence, &Auth::Token(&rita.token)).await.expect("opened"));
        }
        assert_eq!(open(&app.base_url, &presence, &Auth::Token(&rita.token)).await.err(), Some(429));
        // A socket that closes frees its place.
        let mut last = sockets.pop().expect("a socket");
        last.close(None).await.expect("closed");
        drop(last);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match open(&app.base_url, &presence, &Auth::Token(&rita.token)).await {
                Ok(socket) => {
                    sockets.push(socket);
                    break;
                }
                Err(429) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
                Err(status) => panic!("a freed place was not given back: {status}"),
            }
        }
    }
}

/// Rights end while sockets are open; the change is made through the first
/// node and the sockets live on `second` (on PostgreSQL, another node).
async fn rights_end_while_sockets_are_open(backend: Backend, two_nodes: bool) {
    let app = TestApp::start(backend).await;
    let (org, _, path, ada, grace, rita) = setup(&app).await;
    let node = if two_nodes { Some(app.second_node().await) } else { None };
    let base = node.as_ref().map_or(app.base_url.clone(), |n| n.base_url.clone());

    // Grace, an editor, is demoted to reader: her editor turns read-only.
    let mut graces = open(&base, &path, &Auth::Token(&grace.token)).await.expect("opened");
    state_until(&mut graces, |s| s["readOnly"] == false).await;
    app.patch(
        &ada,
        &format!("/v1/orgs/{org}/members/{}", grace.id),
        json!({ "role": "read" }),
    )
    .await
    .assert_status(200);
    state_until(&mut graces, |s| s["readOnly"] == true).await;
    // And removed from the organization: the socket closes.
    app.delete(&ada, &format!("/v1/orgs/{org}/members/{}", grace.id))
        .await
        .assert_status(204);
    let (code, reason) = closed(&mut graces).await.expect("a close frame");
    assert_eq!(code, CloseCode::Policy, "{reason}");

    // Rita's token is revoked (as `quire token revoke` does): closed.
    let mut ritas = open(&base, &path, &Auth::Token(&rita.token)).await.expect("opened");
    let (_, tokens) = quire_app::accounts::tokens_of_email(&app.state.app, &rita.email)
        .await
        .expect("tokens");
    quire_app::accounts::revoke_token_of_email(&app.state.app, &rita.email, &tokens[0].id)
        .await
        .expect("revoked");
    let (code, reason) = closed(&mut ritas).await.expect("a close frame");
    assert_eq!(code, CloseCode::Policy);
    assert_eq!(reason, "your sign-in ended");

    // Ada signs out of the browser session her socket rides on: closed.
    let link = quire_sign_in::links::sign_in_link_for_cli(&app.state.app, &app.base_url, &ada.email, None)
        .await
        .expect("a link");
    let token = link.url.split_once('#').map(|(_, t)| t.to_owned()).expect("a token");
    let mut browser = crate::sign_in::Browser::new(&app.base_url);
    browser
        .post("/auth/links/use", json!({ "token": token }))
        .await
        .expect(200);
    let cookie = browser.cookies["quire_session"].clone();
    let mut adas = open(&base, &path, &Auth::Cookie(&cookie)).await.expect("opened");
    state_until(&mut adas, |s| s["readOnly"] == false).await;
    browser.post("/auth/sign-out", json!({})).await.expect(204);
    let (code, _) = closed(&mut adas).await.expect("a close frame");
    assert_eq!(code, CloseCode::Policy);
}

mod rights_end_while_sockets_are_open {
    use crate::support::Backend;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::rights_end_while_sockets_are_open(Backend::Sqlite, false).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::rights_end_while_sockets_are_open(Backend::Postgres, false).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres_two_nodes() {
        super::rights_end_while_sockets_are_open(Backend::Postgres, true).await
    }
}
