//! The bus: short messages every node of a deployment hears, carried by the
//! database they share (no other service). On PostgreSQL a message is a
//! `NOTIFY` on one channel, heard by one `LISTEN`ing connection per node;
//! on SQLite (one node) it goes straight to this process's subscribers.
//! Every node hears its own messages too. Messages are hints: a node that
//! lost its listening connection hears [`Message::reconnected`] and reads
//! from the database what it may have missed.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, watch};

use crate::db::Backend;
use crate::error::StoreResult;

/// The PostgreSQL channel every node listens on.
const CHANNEL: &str = "quire_bus";
/// Messages a slow subscriber may fall behind by before it misses some
/// (it then hears that it lagged, and reads again what it follows).
const BACKLOG: usize = 4096;
/// PostgreSQL refuses `NOTIFY` payloads from 8000 bytes.
pub const MAX_BODY: usize = 7900;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub topic: String,
    pub body: String,
}

impl Message {
    /// The topic of the message a node hears when it may have missed some.
    pub const RECONNECTED: &'static str = "bus.reconnected";

    fn reconnected() -> Message {
        Message {
            topic: Self::RECONNECTED.into(),
            body: String::new(),
        }
    }
}

/// What a follower of the bus hears (see [`Bus::follow`]).
#[derive(Debug)]
pub enum Heard {
    Message(Message),
    /// It may have missed messages: the bus reconnected, or the follower
    /// fell more than the backlog behind.
    Missed,
}

#[derive(Clone)]
pub struct Bus {
    inner: Arc<Inner>,
}

/// A follower as [`Bus::announce`] calls it on this node, at once; false
/// once its owner is gone.
type Local = Box<dyn Fn(&Message) -> bool + Send + Sync>;

struct Inner {
    sender: broadcast::Sender<Message>,
    /// The followers of this node, called by [`Bus::announce`] itself.
    local: Mutex<Vec<Local>>,
    postgres_url: Option<String>,
    /// Present once the listening task runs; dropping it stops the task.
    listening: Mutex<Option<watch::Sender<()>>>,
}

impl Bus {
    pub(crate) fn new(backend: Backend, url: &str) -> Bus {
        let (sender, _) = broadcast::channel(BACKLOG);
        Bus {
            inner: Arc::new(Inner {
                sender,
                local: Mutex::default(),
                postgres_url: (backend == Backend::Postgres).then(|| url.to_owned()),
                listening: Mutex::new(None),
            }),
        }
    }

    /// Hears every message from now on (starting the node's listening
    /// connection on first use).
    pub fn subscribe(&self) -> broadcast::Receiver<Message> {
        let receiver = self.inner.sender.subscribe();
        if let Some(url) = &self.inner.postgres_url {
            let mut listening = self.inner.listening.lock().unwrap_or_else(|e| e.into_inner());
            if listening.is_none() {
                let (stop, stopped) = watch::channel(());
                tokio::spawn(listen(url.clone(), self.inner.sender.clone(), stopped));
                *listening = Some(stop);
            }
        }
        receiver
    }

    /// Sends a message to every node. On PostgreSQL it leaves through `conn`
    /// (inside a transaction it is sent when the transaction commits).
    pub async fn publish(&self, conn: &mut sqlx::AnyConnection, topic: &str, body: &str) -> StoreResult<()> {
        debug_assert!(
            body.len() <= MAX_BODY,
            "bus messages stay under PostgreSQL's NOTIFY limit"
        );
        if self.inner.postgres_url.is_some() {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(format!("{topic}\n{body}"))
                .execute(conn)
                .await?;
        } else {
            let _ = self.inner.sender.send(Message {
                topic: topic.to_owned(),
                body: body.to_owned(),
            });
        }
        Ok(())
    }

    /// Calls `heard` with everything the bus carries from now on, in a task
    /// of its own, for as long as `owner` lives (the task holds it weakly):
    /// how caches follow changes. What this node announces, `heard` also
    /// hears within [`Bus::announce`] itself.
    pub fn follow<T: Send + Sync + 'static>(&self, owner: &Arc<T>, heard: impl Fn(&T, Heard) + Send + Sync + 'static) {
        let heard = Arc::new(heard);
        let (local_owner, local_heard) = (Arc::downgrade(owner), heard.clone());
        self.inner
            .local
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Box::new(move |message| match local_owner.upgrade() {
                Some(owner) => {
                    local_heard(&owner, Heard::Message(message.clone()));
                    true
                }
                None => false,
            }));
        let mut receiver = self.subscribe();
        let owner = Arc::downgrade(owner);
        tokio::spawn(async move {
            loop {
                let next = receiver.recv().await;
                let Some(owner) = owner.upgrade() else { return };
                match next {
                    Ok(message) if message.topic == Message::RECONNECTED => heard(&owner, Heard::Missed),
                    Ok(message) => heard(&owner, Heard::Message(message)),
                    Err(broadcast::error::RecvError::Lagged(_)) => heard(&owner, Heard::Missed),
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// Like [`Bus::publish`], and this node's followers hear it at once,
    /// within this call (so before the answer to the write that caused it
    /// leaves: caches must never answer what their own node just changed);
    /// its other subscribers hear it right after. On PostgreSQL this node
    /// hears it once more when the notification comes back after the
    /// commit (a cache that took the old state back in between drops it
    /// then).
    pub async fn announce(&self, conn: &mut sqlx::AnyConnection, topic: &str, body: &str) -> StoreResult<()> {
        self.publish(conn, topic, body).await?;
        let message = Message {
            topic: topic.to_owned(),
            body: body.to_owned(),
        };
        self.inner
            .local
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|follower| follower(&message));
        if self.inner.postgres_url.is_some() {
            let _ = self.inner.sender.send(message);
        }
        Ok(())
    }

    /// Stops listening (the database is being closed).
    pub(crate) fn stop(&self) {
        self.inner.listening.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// The node's listening connection: forwards every notification to the
/// subscribers; reconnects after a loss (saying so) until stopped.
async fn listen(url: String, sender: broadcast::Sender<Message>, mut stopped: watch::Receiver<()>) {
    let mut first = true;
    loop {
        let connected = async {
            let mut listener = sqlx::postgres::PgListener::connect(&url).await?;
            listener.listen(CHANNEL).await?;
            Ok::<_, sqlx::Error>(listener)
        };
        let mut listener = tokio::select! {
            _ = stopped.changed() => return,
            connected = connected => match connected {
                Ok(listener) => listener,
                Err(e) => {
                    tracing::warn!(error = %e, "the bus could not listen; trying again in a second");
                    tokio::select! {
                        _ = stopped.changed() => return,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    }
                }
            },
        };
        if !first {
            let _ = sender.send(Message::reconnected());
        }
        first = false;
        loop {
            let next = tokio::select! {
                _ = stopped.changed() => return,
                next = listener.try_recv() => next,
            };
            match next {
                Ok(Some(notification)) => {
                    let (topic, body) = notification
                        .payload()
                        .split_once('\n')
                        .unwrap_or((notification.payload(), ""));
                    let _ = sender.send(Message {
                        topic: topic.to_owned(),
                        body: body.to_owned(),
                    });
                }
                Ok(None) => {
                    let _ = sender.send(Message::reconnected());
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the bus lost its connection");
                    break;
                }
            }
        }
    }
}
