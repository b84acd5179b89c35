//! The alignment fold (`alignment.md` §4.4–§4.6): a session's state as a pure function of its
//! event stream (an inherited fork snapshot first, when there is one).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

use crate::AskKind;
use crate::vocab::{Actor, EventKind, Outcome};

/// One event of a session's stream, as the fold reads it (the §4.4 envelope).
///
/// Ask events carry what the fold needs in `data`:
/// - `ask.created`: `{ask_id, kind: "questions"|"survey"|"review"|"drift", tool?,
///   questions?: [{id, question}]}` (for `ask_survey`, the path questions' prompts);
/// - `ask.settled`: `{ask_id, outcome, answers?: [{id, selected, custom?}]}` where
///   `selected` is `[label]` (questions) or `[{key, label}]` (surveys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlignEvent {
    pub seq: i64,
    /// RFC 3339 UTC.
    pub at: String,
    /// `None` for a kind this daemon does not know (a newer one's): it counts in the
    /// session's sequence and changes nothing else.
    pub kind: Option<EventKind>,
    pub actor: Actor,
    pub data: Value,
}

impl AlignEvent {
    /// The event as the fold reads it, from a stored event of the session, or `None` when
    /// the fold does not read events of that kind (see [`EventKind::folded_by_alignment`]).
    /// The actor is the payload's `actor`; without one, the agent created an ask, the human
    /// settled it, and askd did the rest.
    pub fn from_stored(seq: i64, at: String, kind: &str, data: Value) -> Option<AlignEvent> {
        let known = EventKind::parse(kind);
        let folded = match known {
            Some(k) => k.folded_by_alignment(),
            // A newer daemon's session or alignment event still counts in the sequence.
            None => kind.starts_with("alignment.") || kind.starts_with("session."),
        };
        if !folded {
            return None;
        }
        let actor = data
            .get("actor")
            .and_then(Value::as_str)
            .and_then(Actor::parse)
            .unwrap_or(match known {
                Some(EventKind::AskCreated) => Actor::Agent,
                Some(EventKind::AskSettled) => Actor::Human,
                _ => Actor::Askd,
            });
        Some(AlignEvent {
            seq,
            at,
            kind: known,
            actor,
            data,
        })
    }
}

/// An alignment mode (§3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Auto,
    Manual,
    Off,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Manual => "manual",
            Mode::Off => "off",
        }
    }
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "auto" => Some(Mode::Auto),
            "manual" => Some(Mode::Manual),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }
    /// The display name used by the report and T7 ("Auto", "Manual", "Off").
    pub fn title(self) -> &'static str {
        match self {
            Mode::Auto => "Auto",
            Mode::Manual => "Manual",
            Mode::Off => "Off",
        }
    }
}

/// One answered question of a counted round (§4.6 rule 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettledDecision {
    pub ask_id: String,
    /// `ask_user_question` or `ask_survey`.
    pub tool: String,
    pub question_id: String,
    pub question: String,
    /// The chosen option labels, in submission order.
    pub chosen: Vec<String>,
    pub custom: Option<String>,
    pub settled_at: String,
    /// Team mode: the name of the member who answered (`answered_by` of the settle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
}

/// The requirement baseline's five fields (§5.5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    #[serde(default)]
    pub goal: Option<String>,
    #[serde(default)]
    pub explicit_constraints: Vec<String>,
    #[serde(default)]
    pub must_preserve: Vec<String>,
    #[serde(default)]
    pub allowed_scope: Vec<String>,
    #[serde(default)]
    pub user_decisions: Vec<String>,
}

/// One drift record (§5.3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drift {
    pub drift_id: String,
    /// The drift card's ask (absent in snapshots written before it was recorded).
    #[serde(default)]
    pub ask_id: Option<String>,
    pub reported_at: String,
    pub reason: String,
    pub description: String,
    pub required_change: Option<String>,
    pub options: Vec<Value>,
    /// `open`, `decided`, `dismissed`, `withdrawn` or `superseded`.
    pub state: String,
    pub inherited: bool,
    pub decision: Option<String>,
    pub choice: Option<String>,
    pub choice_source: Option<String>,
    /// The index of the chosen option, for a revise by option.
    #[serde(default)]
    pub option_index: Option<u32>,
    pub note: Option<String>,
    pub decided_at: Option<String>,
    pub decided_by: Option<String>,
    pub applied_in_revision: Option<u32>,
}

/// One recorded baseline revision with its audit members (§4.6 rule 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    pub revision: u32,
    pub recorded_at: String,
    pub baseline: Baseline,
    pub changes: Value,
    pub applied: Vec<String>,
    pub warnings: Vec<String>,
}

/// A session's folded alignment state (§4.5). It is also the fork snapshot (§4.3): a fork's
/// `session.started` carries it as `inherited`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AlignmentState {
    pub mode_override: Option<Mode>,
    /// Who made the last mode change (`agent` or `human`), for the T7 notice.
    #[serde(default)]
    pub mode_set_by: Option<String>,
    pub rounds: u32,
    pub settled: Vec<SettledDecision>,
    pub checks: u32,
    pub last_check_at: Option<String>,
    pub revision: u32,
    pub baseline: Option<Baseline>,
    pub baseline_recorded_at: Option<String>,
    pub history: Vec<Revision>,
    pub drifts: Vec<Drift>,
    /// Drift ids approved or redirected and not yet applied, in decision order.
    pub pending_updates: Vec<String>,
    /// The number of drifts ever reported (the next id is `d{drift_count + 1}`).
    pub drift_count: u32,
    /// `{attempted, dropped, at}` of each refused revision.
    pub refusals: Vec<Value>,
    /// Lineage from `session.started` (not part of the copied snapshot).
    #[serde(skip)]
    pub origin: Option<String>,
    #[serde(skip)]
    pub parent: Option<String>,
    #[serde(skip)]
    pub fork_at: Option<i64>,
    #[serde(skip)]
    pub started_at: Option<String>,
    /// The connections that recorded or continued the session (`session.started`,
    /// `session.attached`), oldest first. Not copied to a fork.
    #[serde(skip)]
    pub connections: Vec<Connection>,
    /// The time of the session's last event.
    #[serde(skip)]
    pub last_activity: Option<String>,
    /// How many events of the session's own stream were folded (its last seq).
    #[serde(skip)]
    pub last_seq: u32,
    /// Live asks of this session: id → (kind, tool, questions). Never copied to a fork.
    #[serde(skip)]
    pub(super) asks: HashMap<String, LiveAsk>,
}

/// One connection bound to a session (§7 Connections).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connection {
    /// `started` (it recorded the session) or `attached` (it continued it).
    pub how: String,
    pub client: Option<String>,
    pub transport: Option<String>,
    pub cwd: Option<String>,
    pub at: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct LiveAsk {
    pub(super) kind: String,
    pub(super) tool: Option<String>,
    pub(super) questions: Vec<(String, String)>,
}

/// A session's posture (§4.6 rule 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Posture {
    NoBaseline,
    Aligned,
    DriftPending,
    BaselineUpdatePending,
}

impl Posture {
    pub fn as_str(self) -> &'static str {
        match self {
            Posture::NoBaseline => "no-baseline",
            Posture::Aligned => "aligned",
            Posture::DriftPending => "drift-pending",
            Posture::BaselineUpdatePending => "baseline-update-pending",
        }
    }
}

/// Folds a session's events, oldest first.
pub fn fold(events: &[AlignEvent]) -> AlignmentState {
    let mut s = AlignmentState::default();
    for e in events {
        s.apply(e);
    }
    s
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The chosen labels of an answer's `selected`, in submission order: plain labels
/// (`ask_user_question` settles `["Local web app"]`) or selected options (`ask_survey`
/// settles `[{key, label}]`, §8.3), whose label is what was chosen.
fn labels(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| match x {
                    Value::String(s) => Some(s.clone()),
                    Value::Object(_) => x
                        .get("label")
                        .or_else(|| x.get("key"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

impl AlignmentState {
    /// The posture: the first matching rule of §4.6 rule 8 wins.
    pub fn posture(&self) -> Posture {
        if self.open_drift().is_some() {
            Posture::DriftPending
        } else if !self.pending_updates.is_empty() {
            Posture::BaselineUpdatePending
        } else if self.revision == 0 {
            Posture::NoBaseline
        } else {
            Posture::Aligned
        }
    }

    /// The baseline as views show it (§5.3): `revision`, the five fields, `recorded_at`;
    /// `None` before any baseline.
    pub fn baseline_view(&self) -> Option<Value> {
        self.baseline.as_ref().map(|b| {
            serde_json::json!({
                "revision": self.revision,
                "goal": b.goal,
                "explicit_constraints": b.explicit_constraints,
                "must_preserve": b.must_preserve,
                "allowed_scope": b.allowed_scope,
                "user_decisions": b.user_decisions,
                "recorded_at": self.baseline_recorded_at,
            })
        })
    }

    /// The open drift, if any (at most one, §4.6 rule 6).
    pub fn open_drift(&self) -> Option<&Drift> {
        self.drifts.iter().rev().find(|d| d.state == "open")
    }

    /// The drift with this id.
    pub fn drift(&self, id: &str) -> Option<&Drift> {
        self.drifts.iter().find(|d| d.drift_id == id)
    }

    /// The most recently decided drift.
    pub fn last_decision(&self) -> Option<&Drift> {
        self.drifts
            .iter()
            .filter(|d| d.state == "decided")
            .max_by(|a, b| a.decided_at.cmp(&b.decided_at))
    }

    /// The effective mode and its source (§3.2): `session`, `config` or `default`.
    pub fn effective_mode(&self, configured: Option<Mode>) -> (Mode, &'static str) {
        match (self.mode_override, configured) {
            (Some(m), _) => (m, "session"),
            (None, Some(m)) => (m, "config"),
            (None, None) => (Mode::Auto, "default"),
        }
    }

    fn drift_mut(&mut self, id: &str) -> Option<&mut Drift> {
        self.drifts.iter_mut().find(|d| d.drift_id == id)
    }

    /// Applies one event. Unknown kinds and malformed data change nothing.
    pub fn apply(&mut self, e: &AlignEvent) {
        let d = &e.data;
        self.last_seq += 1;
        self.last_activity = Some(e.at.clone());
        let Some(kind) = e.kind else { return };
        match kind {
            EventKind::SessionAttached => self.connections.push(Connection {
                how: "attached".into(),
                client: text(d, "client"),
                transport: text(d, "transport"),
                cwd: text(d, "cwd"),
                at: e.at.clone(),
            }),
            EventKind::SessionStarted => self.apply_started(e),
            EventKind::AskCreated => self.apply_ask_created(e),
            EventKind::AskSettled => self.apply_settled(e),
            EventKind::AlignmentModeSet => {
                self.mode_override = d.get("mode").and_then(Value::as_str).and_then(Mode::parse);
                self.mode_set_by = Some(e.actor.as_str().to_string());
            }
            EventKind::AlignmentChecked => {
                self.checks += 1;
                self.last_check_at = Some(e.at.clone());
            }
            EventKind::AlignmentBaselineRecorded => self.apply_baseline_recorded(e),
            EventKind::AlignmentBaselineRefused => {
                self.refusals.push(serde_json::json!({
                    "attempted": d.get("attempted").cloned().unwrap_or(Value::Null),
                    "dropped": d.get("dropped").cloned().unwrap_or(Value::Array(vec![])),
                    "at": e.at,
                }));
            }
            EventKind::AlignmentDriftReported => self.apply_drift_reported(e),
            EventKind::AlignmentDriftDecided => self.apply_drift_decided(e),
            EventKind::AlignmentDriftClosed => self.apply_drift_closed(e),
            _ => {}
        }
    }

    /// `session.started`: the inherited state, if any, then the origin and the first connection.
    fn apply_started(&mut self, e: &AlignEvent) {
        let d = &e.data;
        if let Some(snap) = d.get("inherited")
            && let Ok(mut inherited) = serde_json::from_value::<AlignmentState>(snap.clone())
        {
            for drift in &mut inherited.drifts {
                if drift.state == "open" {
                    drift.inherited = true;
                }
            }
            let (seq, activity) = (self.last_seq, self.last_activity.take());
            *self = inherited;
            (self.last_seq, self.last_activity) = (seq, activity);
        }
        self.origin = Some(text(d, "origin").unwrap_or_else(|| "new".into()));
        self.parent = text(d, "parent");
        self.fork_at = d.get("fork_at").and_then(Value::as_i64);
        self.started_at = Some(e.at.clone());
        self.connections.push(Connection {
            how: "started".into(),
            client: text(d, "client"),
            transport: text(d, "transport"),
            cwd: text(d, "cwd"),
            at: e.at.clone(),
        });
    }

    /// `ask.created`: the ask goes live, with its questions — unless they come with its
    /// settle (`questions_with_settle`: the daemon adds the ask's tool and questions to its
    /// `ask.settled`), so nothing is kept while it is pending and neither the state nor its
    /// checkpoint grows with the session's pending asks.
    fn apply_ask_created(&mut self, e: &AlignEvent) {
        let d = &e.data;
        let Some(id) = text(d, "ask_id") else { return };
        if d.get("questions_with_settle").and_then(Value::as_bool) == Some(true) {
            return;
        }
        self.asks.insert(id, live_ask(d));
    }

    /// `alignment.baseline_recorded`: a new revision, applying the drifts it names.
    fn apply_baseline_recorded(&mut self, e: &AlignEvent) {
        let d = &e.data;
        let Ok(baseline) =
            serde_json::from_value::<Baseline>(d.get("baseline").cloned().unwrap_or(Value::Null))
        else {
            return;
        };
        let revision = d
            .get("revision")
            .and_then(Value::as_u64)
            .map(|r| r as u32)
            .unwrap_or(self.revision + 1);
        let applied = strings(d.get("applied"));
        for id in &applied {
            self.pending_updates.retain(|p| p != id);
            if let Some(drift) = self.drift_mut(id) {
                drift.applied_in_revision = Some(revision);
            }
        }
        self.revision = revision;
        self.baseline = Some(baseline.clone());
        self.baseline_recorded_at = Some(e.at.clone());
        self.history.push(Revision {
            revision,
            recorded_at: e.at.clone(),
            baseline,
            changes: d.get("changes").cloned().unwrap_or(Value::Null),
            applied,
            warnings: strings(d.get("warnings")),
        });
    }

    /// `alignment.drift_reported`: a new open drift.
    fn apply_drift_reported(&mut self, e: &AlignEvent) {
        let d = &e.data;
        let Some(id) = text(d, "drift_id") else {
            return;
        };
        self.drift_count += 1;
        if let Some(n) = id.strip_prefix('d').and_then(|n| n.parse::<u32>().ok()) {
            self.drift_count = self.drift_count.max(n);
        }
        self.drifts.push(Drift {
            drift_id: id,
            ask_id: text(d, "ask_id"),
            reported_at: e.at.clone(),
            reason: text(d, "reason").unwrap_or_default(),
            description: text(d, "description").unwrap_or_default(),
            required_change: text(d, "required_change"),
            options: d
                .get("options")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            state: "open".into(),
            inherited: false,
            decision: None,
            choice: None,
            choice_source: None,
            option_index: None,
            note: None,
            decided_at: None,
            decided_by: None,
            applied_in_revision: None,
        });
    }

    /// `alignment.drift_decided`: the open drift is decided; an approved or revised one awaits
    /// the next baseline.
    fn apply_drift_decided(&mut self, e: &AlignEvent) {
        let d = &e.data;
        let Some(id) = text(d, "drift_id") else {
            return;
        };
        let Some(decision) = text(d, "decision") else {
            return;
        };
        let at = e.at.clone();
        // Team mode: the member who decided (`answered_by`), else the actor.
        let member = d
            .get("answered_by")
            .and_then(|b| b.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let by = member
            .or_else(|| text(d, "decided_by"))
            .or_else(|| Some(e.actor.as_str().to_string()));
        let Some(drift) = self.drift_mut(&id) else {
            return;
        };
        if drift.state != "open" {
            return;
        }
        drift.state = "decided".into();
        drift.decision = Some(decision.clone());
        drift.choice = text(d, "choice");
        drift.choice_source = text(d, "choice_source");
        drift.option_index = d
            .get("option_index")
            .and_then(Value::as_u64)
            .map(|i| i as u32);
        drift.note = text(d, "note");
        drift.decided_at = Some(at);
        drift.decided_by = by;
        if (decision == "approve" || decision == "revise") && !self.pending_updates.contains(&id) {
            self.pending_updates.push(id);
        }
    }

    /// `alignment.drift_closed`: the open drift ends with the outcome.
    fn apply_drift_closed(&mut self, e: &AlignEvent) {
        let d = &e.data;
        let Some(id) = text(d, "drift_id") else {
            return;
        };
        let Some(outcome) = text(d, "outcome") else {
            return;
        };
        if let Some(drift) = self.drift_mut(&id)
            && drift.state == "open"
        {
            drift.state = outcome;
        }
    }

    fn apply_settled(&mut self, e: &AlignEvent) {
        let d = &e.data;
        let Some(id) = text(d, "ask_id") else { return };
        let kept = self.asks.remove(&id);
        // The ask's questions come with its settle, or were kept since its creation.
        let ask = if d.get("questions").is_some_and(Value::is_array) {
            live_ask(d)
        } else {
            let Some(ask) = kept else {
                return;
            };
            ask
        };
        if text(d, "outcome").and_then(|o| Outcome::parse(&o)) != Some(Outcome::Answered) {
            return;
        }
        let tool = match AskKind::parse(&ask.kind) {
            Ok(k @ (AskKind::Questions | AskKind::Survey)) => k.tool(),
            _ => return,
        };
        let tool = ask.tool.clone().unwrap_or_else(|| tool.to_string());
        let settled_at = text(d, "settledAt")
            .or_else(|| text(d, "settled_at"))
            .unwrap_or_else(|| e.at.clone());
        let answered_by = d
            .get("answered_by")
            .and_then(|b| b.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut decisions = Vec::new();
        for entry in answer_entries(d.get("answers")) {
            let Some(qid) = text(&entry, "id").or_else(|| text(&entry, "question_id")) else {
                continue;
            };
            let chosen = labels(entry.get("selected").or_else(|| entry.get("chosen")));
            let custom = text(&entry, "custom");
            if chosen.is_empty() && custom.is_none() {
                continue; // skipped
            }
            let question = ask
                .questions
                .iter()
                .find(|(q, _)| *q == qid)
                .map(|(_, t)| t.clone())
                .unwrap_or_else(|| qid.clone());
            decisions.push(SettledDecision {
                ask_id: id.clone(),
                tool: tool.clone(),
                question_id: qid,
                question,
                chosen,
                custom,
                settled_at: settled_at.clone(),
                answered_by: answered_by.clone(),
            });
        }
        self.rounds += 1;
        self.settled.extend(decisions);
    }
}

/// What the fold keeps of an ask: its kind, tool and `(id, text)` questions, from an
/// `ask.created` (or an `ask.settled` the daemon gave them to).
fn live_ask(d: &Value) -> LiveAsk {
    let questions = d
        .get("questions")
        .and_then(Value::as_array)
        .map(|qs| {
            qs.iter()
                .filter_map(|q| {
                    let id = text(q, "id")?;
                    let question = text(q, "question")
                        .or_else(|| text(q, "prompt"))
                        .unwrap_or_else(|| id.clone());
                    Some((id, question))
                })
                .collect()
        })
        .unwrap_or_default();
    LiveAsk {
        kind: text(d, "kind").unwrap_or_default(),
        tool: text(d, "tool"),
        questions,
    }
}

/// Answers as a list of `{id, selected, custom}` entries: an array of entries, or an object
/// keyed by question id whose values are entries or label lists.
fn answer_entries(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| {
                let mut entry = match v {
                    Value::Object(_) => v.clone(),
                    Value::Array(_) => serde_json::json!({"selected": v}),
                    Value::String(s) => serde_json::json!({"selected": [s]}),
                    _ => serde_json::json!({}),
                };
                entry["id"] = Value::String(k.clone());
                entry
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_baseline_view_has_its_members_in_order() {
        assert_eq!(AlignmentState::default().baseline_view(), None);
        let s = AlignmentState {
            baseline: Some(Baseline {
                goal: Some("G".into()),
                ..Baseline::default()
            }),
            revision: 2,
            baseline_recorded_at: Some("t".into()),
            ..AlignmentState::default()
        };
        let v = s.baseline_view().unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "revision",
                "goal",
                "explicit_constraints",
                "must_preserve",
                "allowed_scope",
                "user_decisions",
                "recorded_at"
            ]
        );
        assert_eq!(v["revision"], 2);
        assert_eq!(v["must_preserve"], json!([]));
    }

    pub(crate) fn ev(seq: i64, kind: &str, actor: &str, data: Value) -> AlignEvent {
        AlignEvent {
            seq,
            at: format!("2026-11-29T10:00:{seq:02}Z"),
            kind: EventKind::parse(kind),
            actor: Actor::parse(actor).expect("a test actor"),
            data,
        }
    }

    fn question_ask(
        seq: i64,
        id: &str,
        q: &str,
        outcome: &str,
        selected: Value,
    ) -> Vec<AlignEvent> {
        vec![
            ev(
                seq,
                "ask.created",
                "agent",
                json!({"ask_id": id, "kind": "questions", "questions": [{"id": "q1", "question": q}]}),
            ),
            ev(
                seq + 1,
                "ask.settled",
                "human",
                json!({"ask_id": id, "outcome": outcome, "answers": [{"id": "q1", "selected": selected}]}),
            ),
        ]
    }

    #[test]
    fn only_answered_questions_and_surveys_count() {
        let mut events = vec![ev(1, "session.started", "askd", json!({"origin": "new"}))];
        events.extend(question_ask(
            2,
            "a1",
            "Where?",
            "answered",
            json!(["Local web app"]),
        ));
        events.extend(question_ask(4, "a2", "Who?", "cancelled", json!([])));
        events.push(ev(
            6,
            "ask.created",
            "agent",
            json!({"ask_id": "r1", "kind": "review"}),
        ));
        events.push(ev(
            7,
            "ask.settled",
            "human",
            json!({"ask_id": "r1", "outcome": "answered"}),
        ));
        events.push(ev(8, "ask.created", "agent", json!({"ask_id": "s1", "kind": "survey", "questions": [{"id": "p", "prompt": "Pick a path"}]})));
        events.push(ev(
            9,
            "ask.settled",
            "human",
            json!({"ask_id": "s1", "outcome": "answered", "answers": {"p": ["A"]}}),
        ));
        events.push(ev(
            10,
            "ask.created",
            "agent",
            json!({"ask_id": "s2", "kind": "survey"}),
        ));
        events.push(ev(
            11,
            "ask.settled",
            "human",
            json!({"ask_id": "s2", "outcome": "reroll"}),
        ));
        let s = fold(&events);
        assert_eq!(s.rounds, 2);
        assert_eq!(s.settled.len(), 2);
        assert_eq!(s.settled[0].question, "Where?");
        assert_eq!(s.settled[0].chosen, vec!["Local web app"]);
        assert_eq!(s.settled[0].tool, "ask_user_question");
        assert_eq!(s.settled[1].question, "Pick a path");
        assert_eq!(s.settled[1].tool, "ask_survey");
        assert_eq!(s.origin.as_deref(), Some("new"));
    }

    #[test]
    fn skipped_questions_add_no_decision_but_the_round_counts() {
        let events = vec![
            ev(
                1,
                "ask.created",
                "agent",
                json!({"ask_id": "a", "kind": "questions", "questions": [{"id": "x", "question": "X?"}, {"id": "y", "question": "Y?"}]}),
            ),
            ev(
                2,
                "ask.settled",
                "human",
                json!({"ask_id": "a", "outcome": "answered", "answers": [{"id": "x", "selected": [], "custom": "my own"}, {"id": "y", "selected": []}]}),
            ),
        ];
        let s = fold(&events);
        assert_eq!(s.rounds, 1);
        assert_eq!(s.settled.len(), 1);
        assert_eq!(s.settled[0].custom.as_deref(), Some("my own"));
        assert!(s.settled[0].chosen.is_empty());
    }

    #[test]
    fn settle_without_created_in_this_stream_counts_nothing() {
        // The round belongs to the session where the ask was created.
        let s = fold(&[ev(
            1,
            "ask.settled",
            "human",
            json!({"ask_id": "a", "outcome": "answered", "answers": [{"id": "q", "selected": ["A"]}]}),
        )]);
        assert_eq!(s.rounds, 0);
    }

    #[test]
    fn checks_and_mode_override() {
        let s = fold(&[
            ev(1, "alignment.checked", "human", json!({"via": "prompt"})),
            ev(2, "alignment.mode_set", "agent", json!({"mode": "manual"})),
            ev(3, "alignment.checked", "agent", json!({"via": "tool"})),
        ]);
        assert_eq!(s.checks, 2);
        assert_eq!(s.last_check_at.as_deref(), Some("2026-11-29T10:00:03Z"));
        assert_eq!(s.mode_override, Some(Mode::Manual));
        assert_eq!(
            s.effective_mode(Some(Mode::Auto)),
            (Mode::Manual, "session")
        );
        let s = fold(&[
            ev(1, "alignment.mode_set", "agent", json!({"mode": "off"})),
            ev(2, "alignment.mode_set", "human", json!({"mode": null})),
        ]);
        assert_eq!(s.mode_override, None);
        assert_eq!(
            s.effective_mode(Some(Mode::Manual)),
            (Mode::Manual, "config")
        );
        assert_eq!(s.effective_mode(None), (Mode::Auto, "default"));
    }

    #[test]
    fn unknown_kinds_and_fields_are_ignored() {
        let s = fold(&[
            ev(1, "alignment.future_thing", "askd", json!({"x": 1})),
            ev(
                2,
                "alignment.checked",
                "agent",
                json!({"via": "tool", "extra": true}),
            ),
            ev(
                3,
                "alignment.baseline_recorded",
                "agent",
                json!({"baseline": "not an object"}),
            ),
        ]);
        assert_eq!(s.checks, 1);
        assert_eq!(s.revision, 0);
    }

    #[test]
    fn pending_queue_survives_later_reject_and_clears_on_apply() {
        let base = json!({"revision": 1, "baseline": {"goal": "G", "explicit_constraints": ["No accounts"]}, "applied": [], "warnings": []});
        let mut s = fold(&[
            ev(1, "alignment.baseline_recorded", "agent", base),
            ev(
                2,
                "alignment.drift_reported",
                "agent",
                json!({"drift_id": "d1", "reason": "architecture-shift", "description": "sync"}),
            ),
            ev(
                3,
                "alignment.drift_decided",
                "human",
                json!({"drift_id": "d1", "decision": "approve"}),
            ),
            ev(
                4,
                "alignment.drift_reported",
                "agent",
                json!({"drift_id": "d2", "reason": "scope-expansion", "description": "more"}),
            ),
        ]);
        assert_eq!(s.posture(), Posture::DriftPending);
        s.apply(&ev(
            5,
            "alignment.drift_decided",
            "human",
            json!({"drift_id": "d2", "decision": "reject"}),
        ));
        assert_eq!(s.posture(), Posture::BaselineUpdatePending);
        assert_eq!(s.pending_updates, vec!["d1"]);
        assert_eq!(s.last_decision().unwrap().drift_id, "d2");
        s.apply(&ev(
            6,
            "alignment.baseline_recorded",
            "agent",
            json!({"revision": 2, "baseline": {"goal": "G2"}, "applied": ["d1"]}),
        ));
        assert_eq!(s.posture(), Posture::Aligned);
        assert_eq!(s.revision, 2);
        assert_eq!(s.drift("d1").unwrap().applied_in_revision, Some(2));
        assert_eq!(s.history.len(), 2);
        assert_eq!(s.drift_count, 2);
    }

    #[test]
    fn closed_drifts_and_refusals() {
        let s = fold(&[
            ev(
                1,
                "alignment.drift_reported",
                "agent",
                json!({"drift_id": "d1", "reason": "scope-expansion", "description": "x"}),
            ),
            ev(
                2,
                "alignment.drift_closed",
                "human",
                json!({"drift_id": "d1", "outcome": "dismissed"}),
            ),
            ev(
                3,
                "alignment.baseline_refused",
                "agent",
                json!({"attempted": {}, "dropped": ["No server"]}),
            ),
            // A decision on a closed drift changes nothing.
            ev(
                4,
                "alignment.drift_decided",
                "human",
                json!({"drift_id": "d1", "decision": "approve"}),
            ),
        ]);
        assert_eq!(s.drift("d1").unwrap().state, "dismissed");
        assert_eq!(s.posture(), Posture::NoBaseline);
        assert!(s.pending_updates.is_empty());
        assert_eq!(s.refusals.len(), 1);
    }

    #[test]
    fn fork_snapshot_is_copied_and_open_drifts_become_inherited() {
        let parent = fold(&[
            ev(1, "alignment.mode_set", "agent", json!({"mode": "manual"})),
            ev(
                2,
                "alignment.baseline_recorded",
                "agent",
                json!({"revision": 1, "baseline": {"goal": "G"}}),
            ),
            ev(
                3,
                "alignment.drift_reported",
                "agent",
                json!({"drift_id": "d1", "reason": "scope-expansion", "description": "x"}),
            ),
        ]);
        let snapshot = serde_json::to_value(&parent).unwrap();
        let child = fold(&[ev(
            1,
            "session.started",
            "askd",
            json!({"origin": "fork", "parent": "P", "fork_at": 3, "inherited": snapshot}),
        )]);
        assert_eq!(child.mode_override, Some(Mode::Manual));
        assert_eq!(child.revision, 1);
        assert_eq!(child.posture(), Posture::DriftPending);
        assert!(child.open_drift().unwrap().inherited);
        assert_eq!(child.origin.as_deref(), Some("fork"));
        assert_eq!(child.parent.as_deref(), Some("P"));
        assert_eq!(child.fork_at, Some(3));
        assert_eq!(child.drift_count, 1);
    }
}
