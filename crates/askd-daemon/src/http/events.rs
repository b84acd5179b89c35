//! `GET /api/events`: Server-Sent Events — the store's log replayed after
//! `Last-Event-ID` (or `?since=`), then the hub's live events.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use std::borrow::Cow;
use std::collections::HashMap;

use askd_store::{Event, Store};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::Stream;
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use crate::access::{self, AskFacts, Principal};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::QueryArgs;

type St = State<Arc<Daemon>>;

/// How many stored events one replay read fetches.
const REPLAY_PAGE: u32 = 500;

/// Server-Sent Events: replays the store's log after `Last-Event-ID` (or `?since=`), then
/// streams live events; a heartbeat every 15 s.
pub async fn events(
    State(d): St,
    headers: HeaderMap,
    QueryArgs(q): QueryArgs<EventsQuery>,
) -> ApiResult<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>> {
    let since = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(q.since)
        .unwrap_or(-1);
    // Subscribe before reading the log, so nothing committed in between is missed.
    let mut live = d.hub.subscribe();
    let start = if since < 0 {
        d.store
            .last_event()
            .await
            .map_err(|e| ApiError::store(e, "-"))?
    } else {
        since
    };
    let store = d.store.clone();
    // What of each event this caller receives (`crate::access::event_view`), live and in
    // the replay alike.
    let caller = crate::fence::caller();
    // A person's stream (not an agent's) counts as the desk being open while it lasts.
    let desk = matches!(
        caller,
        Some(Principal::Install | Principal::Member { .. } | Principal::Device { .. })
    )
    .then(|| DeskOpen::new(d.desk.clone()));
    let mut scope = Scope::new(caller);
    let stream = async_stream(move |tx| async move {
        let mut last = start;
        if !replay(&*store, &mut last, &tx, &mut scope).await {
            return;
        }
        loop {
            match live.recv().await {
                Ok(e) if e.seq <= last => {}
                Ok(e) if e.seq == last + 1 => {
                    last = e.seq;
                    if let Some(e) = scope.view(&*store, &e).await
                        && tx.send(sse(&e)).await.is_err()
                    {
                        return;
                    }
                }
                // A gap (an event committed before `e` but not yet seen live) or a lag (the
                // live channel dropped events for this slow listener): the log has them all.
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    if !replay(&*store, &mut last, &tx, &mut scope).await {
                        return;
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
    // The count goes down when the response is dropped (the listener left), not when the
    // producer next fails to send.
    let stream = futures_util::StreamExt::map(stream, move |e| {
        let _open = &desk;
        e
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// One open stream of a person, counted in [`Daemon::desk`] while it lives.
struct DeskOpen(Arc<std::sync::atomic::AtomicUsize>);

impl DeskOpen {
    fn new(count: Arc<std::sync::atomic::AtomicUsize>) -> Self {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        DeskOpen(count)
    }
}

impl Drop for DeskOpen {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Sends every stored event after `last`, page by page, until the log is exhausted; `false`
/// when the listener left or the store failed.
async fn replay(
    store: &dyn Store,
    last: &mut i64,
    tx: &tokio::sync::mpsc::Sender<Result<SseEvent, Infallible>>,
    scope: &mut Scope,
) -> bool {
    loop {
        let Ok(page) = store.events_after(*last, REPLAY_PAGE).await else {
            return false;
        };
        let n = page.len();
        for e in page {
            *last = e.seq;
            if let Some(e) = scope.view(store, &e).await
                && tx.send(sse(&e)).await.is_err()
            {
                return false;
            }
        }
        if n < REPLAY_PAGE as usize {
            return true;
        }
    }
}

/// The read scope of one stream: the caller, and the facts of the settled asks it has
/// looked up (a settled ask's facts never change).
struct Scope {
    who: Option<Principal>,
    settled: HashMap<String, AskFacts>,
}

impl Scope {
    fn new(who: Option<Principal>) -> Self {
        Scope {
            who,
            settled: HashMap::new(),
        }
    }

    /// The event as this caller receives it, or `None`.
    async fn view<'e>(&mut self, store: &dyn Store, e: &'e Event) -> Option<Cow<'e, Event>> {
        let who = match &self.who {
            Some(who @ Principal::Device { .. }) => who.clone(),
            _ => return Some(Cow::Borrowed(e)),
        };
        let facts = match access::event_ask(e) {
            Some(id) => self.facts(store, id).await,
            None => None,
        };
        access::event_view(&who, e, facts.as_ref())
    }

    async fn facts(&mut self, store: &dyn Store, id: &str) -> Option<AskFacts> {
        if let Some(f) = self.settled.get(id) {
            return Some(f.clone());
        }
        let facts = AskFacts::of(&store.ask(id).await.ok()??);
        if !facts.pending {
            self.settled.insert(id.to_string(), facts.clone());
        }
        Some(facts)
    }
}

#[derive(Deserialize)]
pub struct EventsQuery {
    since: Option<i64>,
}

fn sse(e: &Event) -> Result<SseEvent, Infallible> {
    Ok(SseEvent::default()
        .id(e.seq.to_string())
        .event(e.kind.clone())
        .data(e.payload.to_string()))
}

/// A stream fed by a producer task through a small channel (back-pressure: a slow client
/// holds the producer, not memory).
fn async_stream<F, Fut, T>(producer: F) -> impl Stream<Item = T>
where
    F: FnOnce(tokio::sync::mpsc::Sender<T>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
    T: Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(producer(tx));
    tokio_stream::wrappers::ReceiverStream::new(rx)
}
