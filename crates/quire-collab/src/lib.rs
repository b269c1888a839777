//! Real-time co-editing and presence.
//!
//! People editing the same page of the same change request share one Yjs
//! document (the browser's Tiptap binds ProseMirror to it; this server
//! holds it with `yrs`, Yjs's Rust port, speaking y-websocket's protocol).
//! `rooms` keeps the shared documents and presence, relays them between
//! nodes through the database, and saves each page into its change request
//! as ordinary revisions; `prosemirror` and `document` read the shared
//! document into the API's JSON document (pure); `presence` is awareness;
//! `protocol` the wire; `routes` the sockets.

pub mod document;
pub mod presence;
pub mod prosemirror;
pub mod protocol;
pub mod rooms;
pub mod routes;

pub use rooms::Rooms;
pub use routes::router;
