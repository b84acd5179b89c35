//! Plain data in and out of the store. JSON members the store does not interpret (payloads,
//! entries, autosaves, results, records) are `serde_json::Value`, kept verbatim.

use serde::Serialize;
use serde_json::Value;

/// A session to open: one agent conversation as askd sees it.
#[derive(Debug, Clone, Default)]
pub struct NewSession {
    /// An explicit id continues an earlier session; `None` creates a new one.
    pub id: Option<String>,
    /// The client's name (`clientInfo.name` for MCP clients).
    pub client: String,
    /// The agent's workspace directory, when known.
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Session {
    pub id: String,
    pub client: String,
    pub workspace: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AskState {
    Pending,
    Settled,
}

impl AskState {
    pub fn as_str(self) -> &'static str {
        match self {
            AskState::Pending => "pending",
            AskState::Settled => "settled",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(AskState::Pending),
            "settled" => Some(AskState::Settled),
            _ => None,
        }
    }
}

/// A banked answer to write: the question id and the clean entry.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBanked {
    pub question_id: String,
    pub entry: Value,
}

/// A banked answer as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BankedEntry {
    pub question_id: String,
    pub entry: Value,
    pub banked_at: String,
}

/// An ask to create.
#[derive(Debug, Clone)]
pub struct NewAsk {
    pub id: String,
    pub session_id: String,
    /// `survey`, `questions`, later `review`, `drift`.
    pub kind: String,
    pub title: Option<String>,
    /// The normal-form payload (a survey spec, a questions spec…).
    pub payload: Value,
    /// Equal keys mean identical payloads (canonical JSON or its hash): the re-attach key.
    pub payload_key: String,
    /// The survey fingerprint (`survey.md` §9.4), when the kind has one.
    pub fingerprint: Option<String>,
    /// The ask this one replaces: settled with `supersede` in the same transaction when it
    /// is still pending in the same session.
    pub replaces: Option<Supersede>,
    /// Banked answers carried over from a replaced ask.
    pub seed_banked: Vec<NewBanked>,
    /// An autosave carried over from a replaced ask.
    pub seed_autosave: Option<Value>,
    /// Whether an identical ask of the session that settled while no agent call waited (its
    /// result undelivered) is returned instead of a new ask: set for agent calls
    /// (clients.md §2.5), not for plain API creates. The caller decides which kinds it
    /// applies to; the store looks whenever it is set.
    pub return_undelivered: bool,
    /// The ask's deadline, when it has one (issue 35).
    pub expiry: Option<Expiry>,
    /// More than one approver (issue 35): `{required, from, votes: []}`.
    pub approvals: Option<Value>,
}

/// When a pending ask stops waiting and what happens then (issue 35): `expires_at` (UTC,
/// RFC 3339 with milliseconds), and `deadline` as the daemon stores it (`{then, default?,
/// set_at}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Expiry {
    pub expires_at: String,
    pub deadline: Value,
}

/// A session event written in the same transaction as an ask's creation or settle: its
/// payload gets `session` set to the ask's session.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowEvent {
    pub kind: String,
    pub payload: Value,
}

/// How the replaced ask settles.
#[derive(Debug, Clone)]
pub struct Supersede {
    pub ask_id: String,
    pub settlement: Settlement,
}

/// The result of [`crate::AskStore::create_ask`].
#[derive(Debug, Clone)]
pub struct Created {
    pub ask: Ask,
    /// False when an identical pending ask was re-attached.
    pub created: bool,
    /// Events committed with it (empty on re-attach), to fan out to live listeners.
    pub events: Vec<Event>,
}

impl NewAsk {
    /// The ask as a create inserts it (pending, awaited, nothing banked), created `at`, in a
    /// session of `client` and `workspace`: what reading it back would give.
    pub(crate) fn pending(self, at: String, client: String, workspace: Option<String>) -> Ask {
        Ask {
            id: self.id,
            session_id: self.session_id,
            kind: self.kind,
            title: self.title,
            state: AskState::Pending,
            outcome: None,
            payload: self.payload,
            fingerprint: self.fingerprint,
            created_at: at,
            settled_at: None,
            awaited: true,
            banked: Vec::new(),
            autosave: None,
            autosave_revision: 0,
            autosave_saved_at: None,
            result: None,
            delivered_at: None,
            claim: None,
            submission: None,
            expires_at: self.expiry.as_ref().map(|e| e.expires_at.clone()),
            deadline: self.expiry.map(|e| e.deadline),
            deferred_until: None,
            approvals: self.approvals,
            client,
            workspace,
        }
    }
}

/// An ask with everything the UI and the waiters need.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ask {
    pub id: String,
    pub session_id: String,
    pub kind: String,
    pub title: Option<String>,
    pub state: AskState,
    pub outcome: Option<String>,
    pub payload: Value,
    pub fingerprint: Option<String>,
    pub created_at: String,
    pub settled_at: Option<String>,
    /// Whether an agent call is (believed to be) waiting on it.
    pub awaited: bool,
    /// Banked answers in bank order.
    pub banked: Vec<BankedEntry>,
    pub autosave: Option<Value>,
    pub autosave_revision: i64,
    pub autosave_saved_at: Option<String>,
    /// The result returned to the agent, once settled.
    pub result: Option<Value>,
    /// When an agent call first got the result; `None` while it is undelivered (settled
    /// with no call waiting) or the ask is pending.
    pub delivered_at: Option<String>,
    /// Who is on it (team mode): `{id, name, at}` of the member who claimed it, while
    /// pending; kept after the settle as it was.
    pub claim: Option<Value>,
    /// The digest of the submit that settled it ([`Settlement::submission`]); left out of
    /// the serialised form when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission: Option<String>,
    /// When the pending ask stops waiting (issue 35); `None` without a deadline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// What happens at `expires_at` (`{then, default?, set_at}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Value>,
    /// Snooze (issue 35): when the ask the human put off comes back to the inbox; kept
    /// after the settle (the record says it was put off). Past: it is back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred_until: Option<String>,
    /// More than one approver (issue 35, team mode): `{required, from, votes}` — the votes
    /// so far, kept after the settle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvals: Option<Value>,
    /// Client name and workspace of the asking session.
    pub client: String,
    pub workspace: Option<String>,
}

/// One row of an ask listing (no payload).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskSummary {
    pub id: String,
    pub session_id: String,
    pub client: String,
    pub workspace: Option<String>,
    pub kind: String,
    pub title: Option<String>,
    pub state: AskState,
    pub outcome: Option<String>,
    pub created_at: String,
    pub settled_at: Option<String>,
    pub awaited: bool,
    pub banked: u64,
    /// [`Ask::claim`].
    pub claim: Option<Value>,
    /// [`Ask::expires_at`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// [`Ask::deferred_until`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred_until: Option<String>,
    /// Whom the ask was last offered to when nobody answered by its deadline (escalation:
    /// a member's name, or `everyone`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalated_to: Option<String>,
    /// More than one approver: `{required, votes, voters}` (how many are in, and whose).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvals: Option<Value>,
}

#[derive(Debug, Clone, Default)]
pub struct AskFilter {
    pub state: Option<AskState>,
    pub session_id: Option<String>,
    pub kind: Option<String>,
    /// At most this many (newest first); `None` = no limit.
    pub limit: Option<u32>,
}

/// What [`crate::AskStore::vote`] did: the events it appended (`ask.voted`, then the settle's
/// when the vote decided), the ask's approvals after it, and the settlement it made.
#[derive(Debug, Clone)]
pub struct Voted {
    pub events: Vec<Event>,
    pub approvals: Value,
    /// The settlement as committed (with `votes` and `approvals`), when the vote decided.
    pub settled: Option<Settlement>,
}

/// What a settle writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    pub outcome: String,
    /// RFC 3339 UTC; the caller chooses it so the record can carry the same instant.
    pub settled_at: String,
    /// The result handed to the agent (also served to re-attaching waiters).
    pub result: Value,
    /// The full record (`survey.md` §11.1 for surveys).
    pub record: Value,
    /// When set, the settle happens only if the ask still has exactly this many banked
    /// answers — the ones the caller validated against — and is a
    /// [`crate::StoreError::Conflict`] otherwise (a bank landed in between).
    pub expect_banked: Option<usize>,
    /// Whether the result counts as delivered as it settles (`delivered_at` = the settle
    /// time): no agent call is owed it, so an identical repeat with
    /// [`NewAsk::return_undelivered`] gets a new ask, not this one. The caller decides (the
    /// daemon: an ask the agent ended itself, or one superseded); the store knows no
    /// outcome names.
    pub delivered: bool,
    /// What settled it, as the daemon identifies a submit (who and what was sent), so a
    /// repeat of that very submit can be answered with the saved result; `None` for a
    /// settle no submit made (a cancel, a withdraw, a supersede).
    pub submission: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Banked {
    /// Total banked answers of the ask after this bank.
    pub total: usize,
    pub event: Event,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Autosaved {
    pub revision: i64,
    pub saved_at: String,
    pub event: Event,
}

/// One entry of the event log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub seq: i64,
    /// `ask.created`, `ask.banked`, `ask.autosaved`, `ask.settled`, …
    pub kind: String,
    pub payload: Value,
    pub created_at: String,
}

/// A session's alignment checkpoint: the daemon's fold of the session's events up to
/// `last_seq` (a derived value, kept verbatim), and how many settled decisions precede it
/// (kept one by one, [`CheckpointDecision`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AlignmentCheckpoint {
    /// The seq of the last event folded into `state`.
    pub last_seq: i64,
    pub state: Value,
    /// How many decisions (`idx` 0 to `decisions - 1`) belong to this checkpoint.
    pub decisions: u64,
}

/// One settled decision kept beside a session's checkpoint: its place in the session's
/// order, a lookup key the caller chooses (the normalised question) and the decision itself.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointDecision {
    pub idx: u64,
    pub key: String,
    pub ask_id: String,
    pub decision: Value,
}

/// A settled ask's record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub ask_id: String,
    pub session_id: String,
    pub kind: String,
    pub outcome: String,
    pub created_at: String,
    pub settled_at: String,
    pub record: Value,
}

/// Which records a list returns, newest settled first. Every filter given narrows the list.
#[derive(Debug, Clone, Default)]
pub struct RecordFilter {
    pub kind: Option<String>,
    pub session_id: Option<String>,
    pub outcome: Option<String>,
    /// Settled at or after this time (an RFC 3339 UTC timestamp as the store writes them, or a
    /// prefix such as a date: times compare as text).
    pub since: Option<String>,
    /// Settled before this time (same form as `since`).
    pub until: Option<String>,
    /// Records whose text contains this, ASCII case-insensitively: the record as JSON with
    /// its shared members (the ask's payload, title and result) put back.
    pub text: Option<String>,
    /// The page after this record (its ask id, the last one of the previous page): records
    /// settled before it, in the list's order. An ask id with no record gives an empty page.
    pub after: Option<String>,
    pub limit: Option<u32>,
}

/// One builder draft in the manifest (`survey.md` §10.2). The draft file holds the content;
/// this row holds the status, the launched ask and the progress the UI shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Draft {
    pub slug: String,
    /// The session that owns the draft.
    pub session_id: String,
    pub title: String,
    /// `building`, `launched`, `answered`, `reopened` or `discarded`.
    pub status: String,
    /// The draft file's absolute path.
    pub file: String,
    pub workspace: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub revision: i64,
    /// Whether the launch gate would pass.
    pub ready: bool,
    pub progress: DraftProgress,
    /// `standard` or `internal`.
    pub grounding: String,
    /// The survey ask of the latest launch.
    pub ask_id: Option<String>,
}

/// `{questions, complete, missingFields}` of a draft's checklist.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DraftProgress {
    pub questions: i64,
    pub complete: i64,
    pub missing_fields: i64,
}

/// What a manifest write does to the sessions' active-draft pointers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActivePointer {
    /// Leave every pointer as it is.
    Keep,
    /// Make the draft the active draft of this session (replacing its previous one).
    Set(String),
    /// Clear every pointer to the draft.
    ClearAll,
}

/// One manifest write: the row (inserted or replaced), the pointer change and the
/// `draft.updated` event, in one transaction.
#[derive(Debug, Clone)]
pub struct DraftSave {
    pub draft: Draft,
    pub active: ActivePointer,
    /// The `draft.updated` payload, kept verbatim; `None` appends no event.
    pub event: Option<Value>,
    /// Compare-and-set: write only when the stored row has this status and ask id
    /// ([`crate::StoreError::Conflict`] otherwise, and nothing changes).
    pub expect: Option<(String, Option<String>)>,
}
