//! Who may do what (issue 27): the one identity and access model of every surface.
//!
//! - [`Principal`] — who a request came with, resolved once by the fence
//!   (`crate::fence`) from what the caller cannot forge: the install's token, a paired
//!   device's cookie, a member's login cookie, an agent token. A request with none of them
//!   is anonymous (`None`).
//! - [`Allow`] — the principals one route and method admit. Every route is registered with
//!   its entry (`crate::http::routes`); the access layer ([`check`]) looks the matched route
//!   up in the table and refuses a route with no entry (an allow-list: a route added without
//!   one is closed, not open).
//! - [`may_read`] / [`event_view`] — the read scope: what of an ask or an event a principal
//!   sees. The asks listing, one ask, its export, the event stream (replay and live), the
//!   pages' data and the MCP App proxy (which reads through these routes) all call them.
//! - Revocation: every change to the members or devices bumps `Daemon::revocations`; the fence
//!   ends a revoked principal's open responses (event streams, waits, `/mcp` streams) at
//!   once, on every daemon of a team (`crate::follow` reloads and bumps).

use askd_core::EventKind;
use std::borrow::Cow;
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use askd_core::lang::Lang;

use crate::error::ApiError;
use crate::pages::{self, Page, Text};

/// Who a request came with. Resolved once per request by the fence; handlers read it with
/// [`crate::fence::caller`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// The install's token (the person at the computer running askd, and its local agents).
    Install,
    /// A paired phone (`crate::devices`).
    Device { id: String, name: String },
    /// A team member signed in through their login link (`crate::members`).
    Member { id: String, name: String },
    /// An agent token (`askd members add --agent`), Bearer only.
    Agent { id: String, name: String },
}

impl Principal {
    /// The bit of [`Allow`] this principal is.
    fn bit(&self) -> u8 {
        match self {
            Principal::Install => Allow::INSTALL.0,
            Principal::Agent { .. } => Allow::AGENT.0,
            Principal::Member { .. } => Allow::MEMBER.0,
            Principal::Device { .. } => Allow::DEVICE.0,
        }
    }

    /// The kind, as the API names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Principal::Install => "install",
            Principal::Device { .. } => "device",
            Principal::Member { .. } => "member",
            Principal::Agent { .. } => "agent",
        }
    }

    /// Who answered, as a settle records it (`answered_by`): `{kind, id, name}`; `None` for
    /// the install's token (the person at the computer running askd).
    pub fn answered_by(&self) -> Option<Value> {
        match self {
            Principal::Install => None,
            Principal::Device { id, name }
            | Principal::Member { id, name }
            | Principal::Agent { id, name } => {
                Some(json!({"kind": self.kind(), "id": id, "name": name}))
            }
        }
    }

    /// The actor an alignment event records for what this principal does.
    pub fn actor(&self) -> askd_core::Actor {
        match self {
            Principal::Agent { .. } => askd_core::Actor::Agent,
            _ => askd_core::Actor::Human,
        }
    }

    /// Whether a revocation can end this principal (everything but the install's token).
    pub fn revocable(&self) -> bool {
        !matches!(self, Principal::Install)
    }

    /// The 403 for a route this principal may not open.
    pub fn refusal(&self) -> ApiError {
        let (code, message) = match self {
            Principal::Install => ("forbidden", "this route is not open to the install's token"),
            Principal::Device { .. } => (
                "device-scope",
                "a paired device may answer asks only: Settings, devices, pairing, records and sessions open with the install's token, on the computer running askd",
            ),
            Principal::Member { .. } => (
                "member-scope",
                "a team member may answer and claim asks and read the records and sessions: Settings, members, devices and pairing open with the install's token",
            ),
            Principal::Agent { .. } => (
                "agent-scope",
                "an agent token asks, waits and answers in its client's forms (MCP, the ask API): claims, the human's mode switch, members, devices, pairing and settings changes need a person's login or the install's token",
            ),
        };
        ApiError::new(StatusCode::FORBIDDEN, code, message)
    }
}

/// The principals a route admits: a set of bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allow(u8);

impl Allow {
    pub const INSTALL: Allow = Allow(1);
    pub const AGENT: Allow = Allow(2);
    pub const MEMBER: Allow = Allow(4);
    pub const DEVICE: Allow = Allow(8);
    /// No token at all: the pairing page and the login link (the code or token in the path
    /// is the secret).
    pub const ANONYMOUS: Allow = Allow(16);

    /// Every signed-in principal.
    pub const ANY: Allow = Allow(1 | 2 | 4 | 8);
    /// Everyone, signed in or not.
    pub const PUBLIC: Allow = Allow(1 | 2 | 4 | 8 | 16);
    /// The people who answer (and the agent's in-client forms, attributed to the agent).
    pub const ANSWER: Allow = Allow::ANY;
    /// The install's token and agents: asking, waiting, the agent's own operations.
    pub const AGENTS: Allow = Allow(1 | 2);
    /// Reading history: records and sessions.
    pub const HISTORY: Allow = Allow(1 | 2 | 4);
    /// Claims are people's.
    pub const CLAIM: Allow = Allow(1 | 4);
    /// Moving a deadline and putting an ask off (snooze) are the people's who answer (the
    /// agent set the deadline when it asked).
    pub const DEADLINE: Allow = Allow(1 | 4 | 8);

    pub const fn or(self, other: Allow) -> Allow {
        Allow(self.0 | other.0)
    }

    /// Whether `who` (`None`: anonymous) may.
    pub fn admits(self, who: Option<&Principal>) -> bool {
        let bit = who.map_or(Allow::ANONYMOUS.0, Principal::bit);
        self.0 & bit != 0
    }

    /// The columns of the documented table, in order: install, agent, member, device,
    /// anonymous.
    pub fn columns(self) -> [bool; 5] {
        [1, 2, 4, 8, 16].map(|b| self.0 & b != 0)
    }
}

/// One entry of the access table: a method on a route pattern (axum's syntax, as
/// registered), and who may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `None`: every method (a nested service such as `/mcp`).
    pub method: Option<Method>,
    pub path: String,
    pub allow: Allow,
}

/// The access table of a router: every route's entries.
#[derive(Debug, Clone, Default)]
pub struct Table {
    entries: Vec<Entry>,
}

impl Table {
    pub fn push(&mut self, method: Option<Method>, path: &str, allow: Allow) {
        self.entries.push(Entry {
            method,
            path: path.to_string(),
            allow,
        });
    }

    pub fn extend(&mut self, other: Table) {
        self.entries.extend(other.entries);
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry for a matched route pattern and a method (`HEAD` is served by `GET`).
    /// A nested service's requests match the pattern it was nested at.
    pub fn lookup(&self, method: &Method, path: &str) -> Option<&Entry> {
        let method = if method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        self.entries
            .iter()
            .find(|e| e.path == path && e.method.as_ref().is_none_or(|m| m == method))
    }

    /// Whether the pattern has an entry for any method (a method it does not serve then
    /// answers 405, not 403).
    pub fn knows(&self, path: &str) -> bool {
        self.entries.iter().any(|e| e.path == path)
    }

    /// The table as `docs/api.md` shows it (one row per method and route).
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| Method | Route | install | agent | member | device | no token |\n|---|---|---|---|---|---|---|\n",
        );
        for e in &self.entries {
            let cols: Vec<&str> = e
                .allow
                .columns()
                .iter()
                .map(|&c| if c { "yes" } else { "—" })
                .collect();
            let method = e.method.as_ref().map_or("any", Method::as_str);
            out.push_str(&format!(
                "| {method} | `{}` | {} |\n",
                e.path,
                cols.join(" | ")
            ));
        }
        out
    }
}

/// The access layer (a route layer: it runs once a route matched, so the matched pattern is
/// known): the route's entry admits the request's principal, or the request is refused —
/// 401 for no token, 403 naming the principal's scope. A route with no entry is refused.
pub async fn check(State(table): State<Arc<Table>>, req: Request, next: Next) -> Response {
    let who = req.extensions().get::<Principal>().cloned();
    let Some(pattern) = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
    else {
        return refuse(who.as_ref(), &req);
    };
    // A nested service matches as `/mcp` or `/mcp/{*…}`.
    let pattern = match pattern.split_once("/{*") {
        Some((base, _)) if table.knows(base) && !table.knows(&pattern) => base.to_string(),
        _ => pattern,
    };
    match table.lookup(req.method(), &pattern) {
        Some(e) if e.allow.admits(who.as_ref()) => next.run(req).await,
        Some(_) => refuse(who.as_ref(), &req),
        // A method the route does not serve: 405 for a signed-in caller.
        None if table.knows(&pattern) && who.is_some() => next.run(req).await,
        None => {
            if !table.knows(&pattern) {
                tracing::error!(
                    route = pattern,
                    "a route without an access entry was requested: refused"
                );
            }
            refuse(who.as_ref(), &req)
        }
    }
}

/// The answer to a request with no token for a route that needs one: the data-free bounce
/// page for a link opened from another site, else the 401.
pub fn unauthenticated(req: &Request) -> Response {
    if cross_site_navigation(req) {
        return (
            StatusCode::UNAUTHORIZED,
            [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
            BOUNCE,
        )
            .into_response();
    }
    if wants_page(req) {
        let lang = pages::lang_of(req.headers());
        return page(
            lang,
            StatusCode::UNAUTHORIZED,
            SIGN_IN,
            SIGN_IN_HOW.get(lang),
            false,
        );
    }
    unauthorized()
}

fn unauthorized() -> Response {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "a valid token is required: open the tokenised URL askd printed (…/?token=…), or send Authorization: Bearer <token> (the token is in the data directory's token file)",
    )
    .into_response()
}

/// The page answering a link opened from another site (a notification in Slack or ntfy, a
/// mail) without the install's cookie: the cookie is `SameSite=Strict` (platform §5), so the
/// browser withheld it from this one navigation. The page holds no data and reloads itself;
/// that reload is a navigation from this origin, which carries the cookie. Still a 401. The
/// reload comes as `Sec-Fetch-Site: same-origin`, so a browser with no cookie at all gets
/// the plain 401 next, not a loop.
const BOUNCE: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0\"><meta name=\"viewport\" content=\"width=device-width\"><title>askd</title></head><body><p>Opening askd… If this page stays, open the link askd printed (…/?token=…) in this browser first.</p></body></html>";

/// A top-level `GET` navigation to a page (not the API or an asset) from another site.
fn cross_site_navigation(req: &Request) -> bool {
    let h = req.headers();
    let is = |name: &str, want: &str| h.get(name).and_then(|v| v.to_str().ok()) == Some(want);
    let path = req.uri().path();
    req.method() == Method::GET
        && is("sec-fetch-mode", "navigate")
        && is("sec-fetch-site", "cross-site")
        && !path.starts_with("/api/")
        && !path.starts_with("/assets/")
        && path != "/mcp"
}

/// Whether the request is a browser opening a page (not the API, a file, or MCP): its
/// refusals are pages that say what happened and what to do, not JSON.
pub fn wants_page(req: &Request) -> bool {
    let path = req.uri().path();
    let accepts_html = req
        .headers()
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    (req.method() == Method::GET || req.method() == Method::HEAD)
        && accepts_html
        && !path.starts_with("/api/")
        && !path.starts_with("/assets/")
        && path != "/mcp"
        && !path.starts_with("/mcp/")
}

const SIGN_IN: Text = Text {
    en: "askd needs you to sign in",
    zh: "请先登录 askd",
};
const SIGN_IN_HOW: Text = Text {
    en: "On the computer running askd, open the link askd printed (…/?token=…). A team member opens their login link; a phone is paired with askd pair.",
    zh: "在运行 askd 的电脑上，打开 askd 打印的链接（…/?token=…）。团队成员打开自己的登录链接；手机用 askd pair 配对。",
};
const BACK: Text = Text {
    en: "Back to the inbox",
    zh: "返回收件箱",
};

/// A refusal as a page: the status, a heading, what to do, and a way back to the inbox
/// when the caller may open it.
pub fn page(
    lang: Lang,
    status: StatusCode,
    title: Text,
    what_to_do: &str,
    inbox: bool,
) -> Response {
    let p = Page::new(lang, title.get(lang)).para(what_to_do);
    let p = if inbox { p.link("/", BACK) } else { p };
    p.respond(status)
}

/// No page at this address, for a signed-in browser.
pub fn not_found_page(req: &Request) -> Response {
    let lang = pages::lang_of(req.headers());
    let how = Text {
        en: "askd has no page at this address: the inbox lists every ask.",
        zh: "askd 在这个地址没有页面：收件箱列出了所有问题。",
    };
    let title = Text {
        en: "No such page",
        zh: "没有这个页面",
    };
    page(lang, StatusCode::NOT_FOUND, title, how.get(lang), true)
}

/// An API refusal (`e`) as the page a browser shows for it ([`wants_page`]): the heading and
/// what to do in the browser's language (the English is the API's own message).
pub fn refusal_page(e: &ApiError, req: &Request) -> Response {
    let lang = pages::lang_of(req.headers());
    let (title, zh, inbox) = match e.code.as_str() {
        "device-revoked" => (
            NOT_PAIRED,
            "这台设备已不再与 askd 配对（它被撤销了）：在运行 askd 的电脑上运行 askd pair，再在这里打开新的配对链接。",
            false,
        ),
        "unknown-device" => (
            NOT_PAIRED,
            "askd 不认识这台设备（没有配对，或在 askd 上次启动前就被撤销了）：在运行 askd 的电脑上运行 askd pair，再在这里打开新的配对链接。",
            false,
        ),
        "member-revoked" => (
            LOGIN_GONE,
            "这个成员的登录已失效（该成员已被移除）：请运行 askd 的人给你一个新的登录链接（askd members add 名字）。",
            false,
        ),
        "unknown-member" => (
            LOGIN_GONE,
            "askd 不认识这个浏览器的成员登录（链接输错了，或来自另一个 askd）：重新打开你的登录链接，或请运行 askd 的人给你一个（askd members add 名字）。",
            false,
        ),
        "device-scope" => (
            NOT_OPEN,
            "配对的设备只能回答问题：设置、设备、配对、记录和会话要在运行 askd 的电脑上用安装令牌打开。",
            true,
        ),
        "member-scope" => (
            NOT_OPEN,
            "团队成员可以回答和认领问题，查看记录和会话：设置、成员、设备和配对要用安装令牌打开。",
            true,
        ),
        "agent-scope" => (
            NOT_OPEN,
            "智能体令牌用于提问、等待，以及在它的客户端表单里回答：认领、模式切换、成员、设备、配对和设置的更改需要个人登录或安装令牌。",
            true,
        ),
        "forbidden" => (NOT_OPEN, "安装令牌不能打开这个地址。", true),
        _ => (SIGN_IN, SIGN_IN_HOW.zh, false),
    };
    let what = match lang {
        Lang::En => e.message.as_str(),
        Lang::Zh => zh,
    };
    page(lang, e.status, title, what, inbox)
}

const NOT_PAIRED: Text = Text {
    en: "This phone is not paired with askd",
    zh: "这台设备没有与 askd 配对",
};
const LOGIN_GONE: Text = Text {
    en: "This login no longer works",
    zh: "这个登录已失效",
};
const NOT_OPEN: Text = Text {
    en: "This page is not open to you",
    zh: "这个页面不对你开放",
};

/// The refusal for `who`: no token → the fence's 401 (or its bounce page for a link opened
/// from another site); a principal → its scope's 403.
pub fn refuse(who: Option<&Principal>, req: &Request) -> Response {
    match who {
        None => unauthenticated(req),
        Some(p) if wants_page(req) => refusal_page(&p.refusal(), req),
        Some(p) => p.refusal().into_response(),
    }
}

/// Whether `who` is still valid on `d` (not revoked).
pub fn alive(d: &crate::Daemon, who: &Principal) -> bool {
    match who {
        Principal::Install => true,
        Principal::Device { id, .. } => d.devices.has(id),
        Principal::Member { id, .. } | Principal::Agent { id, .. } => d.members.has(id),
    }
}

/// Resolves when `who` is revoked on `d` (never for the install's token): after each change
/// to the members or devices ([`crate::Daemon::people_changed`]) the principal is looked up
/// again.
pub async fn until_revoked(
    d: Arc<crate::Daemon>,
    who: Principal,
    mut changes: tokio::sync::watch::Receiver<u64>,
) {
    loop {
        if !alive(&d, &who) {
            return;
        }
        if changes.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

/// Team mode: a token this daemon does not know may belong to a member or device another
/// daemon added a moment ago (its `settings.updated` not read yet): members and devices are
/// re-read from the database before the token is refused. One re-read at a time; a request
/// that arrived before the last re-read started uses its outcome.
pub async fn reread(d: &crate::Daemon, arrived: std::time::Instant) {
    if d.settings.database_url.is_none() {
        return;
    }
    let mut last = d.reread.lock().await;
    if last.is_some_and(|at| at >= arrived) {
        return;
    }
    *last = Some(std::time::Instant::now());
    d.devices.load(d.store.as_ref()).await;
    d.members.load(d.store.as_ref()).await;
}

/// What the read scope needs to know of an ask: its state and who settled it.
#[derive(Debug, Clone, PartialEq)]
pub struct AskFacts {
    pub pending: bool,
    /// The settle's `answered_by` (`{kind, id, name}`), when someone other than the
    /// install's token settled it.
    pub answered_by: Option<Value>,
}

impl AskFacts {
    pub fn of(ask: &askd_store::Ask) -> AskFacts {
        AskFacts {
            pending: ask.state == askd_store::AskState::Pending,
            answered_by: ask
                .result
                .as_ref()
                .and_then(|r| r.get("answered_by"))
                .cloned(),
        }
    }
}

/// Whether `who` may read an ask (its view, its export, its events in full):
/// - the install's token, an agent token and a member read every ask (a member reads the
///   records and sessions, `docs/api.md`);
/// - a paired device reads its inbox: the pending asks, and the asks it answered itself.
pub fn may_read(who: &Principal, ask: &AskFacts) -> bool {
    match who {
        Principal::Install | Principal::Agent { .. } | Principal::Member { .. } => true,
        Principal::Device { id, .. } => ask.pending || answered_by_device(ask, id),
    }
}

fn answered_by_device(ask: &AskFacts, id: &str) -> bool {
    ask.answered_by
        .as_ref()
        .is_some_and(|a| a["kind"] == "device" && a["id"] == id)
}

/// Whether an event is about one ask (and which): its `ask_id`.
pub fn event_ask(e: &askd_store::Event) -> Option<&str> {
    e.kind
        .starts_with("ask.")
        .then(|| e.payload.get("ask_id").and_then(Value::as_str))
        .flatten()
}

/// What of an event `who` receives on the event stream (live and replay): the event, a
/// reduced copy, or nothing. `ask` is the facts of the event's ask now ([`event_ask`]),
/// `None` when the event is about no ask or the ask is gone.
///
/// Everyone but a device receives every event. A device receives the events of the asks it
/// may read ([`may_read`]); of an ask settled by someone else only the fact that it left
/// the inbox (`ask.settled` as `{ask_id, kind, outcome, settledAt}`); draft progress
/// without the draft's file path; `settings.updated` (key names only); and nothing of the
/// sessions (alignment, baselines, workspaces) — an allow-list: a new event kind is not
/// sent to a device until it is named here.
pub fn event_view<'e>(
    who: &Principal,
    e: &'e askd_store::Event,
    ask: Option<&AskFacts>,
) -> Option<Cow<'e, askd_store::Event>> {
    let Principal::Device { .. } = who else {
        return Some(Cow::Borrowed(e));
    };
    let reduced = |payload: Value| {
        Cow::Owned(askd_store::Event {
            payload,
            ..e.clone()
        })
    };
    let kind = EventKind::parse(&e.kind)?;
    match kind {
        EventKind::AskCreated
        | EventKind::AskBanked
        | EventKind::AskAutosaved
        | EventKind::AskClaimed
        | EventKind::AskDeadline
        | EventKind::AskDeferred
        | EventKind::AskEscalated
        | EventKind::AskVoted
        | EventKind::AskSettled => {
            let readable = ask.is_some_and(|a| may_read(who, a));
            if readable {
                Some(Cow::Borrowed(e))
            } else if kind == EventKind::AskSettled {
                let p = &e.payload;
                Some(reduced(json!({
                    "ask_id": p.get("ask_id"),
                    "kind": p.get("kind"),
                    "outcome": p.get("outcome"),
                    "settledAt": p.get("settledAt"),
                })))
            } else {
                None
            }
        }
        EventKind::DraftUpdated => {
            let mut p = e.payload.clone();
            if let Some(o) = p.as_object_mut() {
                o.remove("file");
            }
            Some(reduced(p))
        }
        EventKind::SettingsUpdated => Some(Cow::Borrowed(e)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(id: &str) -> Principal {
        Principal::Device {
            id: id.into(),
            name: "phone".into(),
        }
    }

    #[test]
    fn allow_admits_by_principal() {
        let member = Principal::Member {
            id: "m".into(),
            name: "Ana".into(),
        };
        assert!(Allow::HISTORY.admits(Some(&member)));
        assert!(!Allow::HISTORY.admits(Some(&device("d"))));
        assert!(!Allow::ANY.admits(None));
        assert!(Allow::PUBLIC.admits(None));
        assert!(Allow::INSTALL.admits(Some(&Principal::Install)));
    }

    #[test]
    fn a_device_reads_the_pending_and_its_own_answers() {
        let pending = AskFacts {
            pending: true,
            answered_by: None,
        };
        let mine = AskFacts {
            pending: false,
            answered_by: Some(json!({"kind": "device", "id": "d1", "name": "phone"})),
        };
        let theirs = AskFacts {
            pending: false,
            answered_by: Some(json!({"kind": "member", "id": "d1", "name": "Ana"})),
        };
        let desk = AskFacts {
            pending: false,
            answered_by: None,
        };
        let d = device("d1");
        assert!(may_read(&d, &pending));
        assert!(may_read(&d, &mine));
        assert!(!may_read(&d, &theirs));
        assert!(!may_read(&d, &desk));
        assert!(!may_read(&device("d2"), &mine));
        assert!(may_read(&Principal::Install, &desk));
    }

    #[test]
    fn a_device_gets_no_session_events_and_settles_reduced() {
        let ev = |kind: &str, payload: Value| askd_store::Event {
            seq: 1,
            kind: kind.into(),
            payload,
            created_at: "t".into(),
        };
        let d = device("d1");
        let baseline = ev(
            "alignment.baseline_recorded",
            json!({"session": "s", "goal": "g"}),
        );
        assert!(event_view(&d, &baseline, None).is_none());
        assert!(event_view(&d, &ev("session.started", json!({"workspace": "/w"})), None).is_none());
        assert!(event_view(&Principal::Install, &baseline, None).is_some());
        let settled = ev(
            "ask.settled",
            json!({"ask_id": "a", "kind": "questions", "session": "s", "outcome": "answered", "answers": {"q": 1}, "settledAt": "t"}),
        );
        let desk = AskFacts {
            pending: false,
            answered_by: None,
        };
        let seen = event_view(&d, &settled, Some(&desk)).unwrap();
        assert_eq!(
            seen.payload,
            json!({"ask_id": "a", "kind": "questions", "outcome": "answered", "settledAt": "t"})
        );
        let created = ev("ask.created", json!({"ask_id": "a", "title": "secret"}));
        assert!(event_view(&d, &created, Some(&desk)).is_none());
        assert!(event_view(&d, &created, None).is_none());
        let draft = ev(
            "draft.updated",
            json!({"slug": "x", "file": "/home/w/.askd/x.json"}),
        );
        assert_eq!(
            event_view(&d, &draft, None).unwrap().payload,
            json!({"slug": "x"})
        );
    }
}
