//! The scenario table of `alignment.md` §8.2 (and the fork checks of §8.3), as far as the
//! fold and the tail alone decide them: each test builds the session's event stream the
//! daemon would record and asserts the folded state and the returned lines.

use super::fold::{AlignEvent, AlignmentState, Mode, Posture, fold};
use super::tail::{Lang, TailContext, repeat_of, tail_lines};
use serde_json::{Value, json};

struct Stream(Vec<AlignEvent>);

impl Stream {
    fn new() -> Self {
        let mut s = Stream(Vec::new());
        s.push(
            "session.started",
            "askd",
            json!({"origin": "new", "transport": "stdio", "client": "test"}),
        );
        s
    }
    fn push(&mut self, kind: &str, actor: &str, data: Value) -> &mut Self {
        let seq = self.0.len() as i64 + 1;
        self.0.push(AlignEvent {
            seq,
            at: format!("2026-11-29T10:{:02}:{:02}Z", seq / 60, seq % 60),
            kind: crate::EventKind::parse(kind),
            actor: crate::Actor::parse(actor).expect("a test actor"),
            data,
        });
        self
    }
    fn ask(&mut self, id: &str, question: &str, chosen: &[&str]) -> &mut Self {
        self.push("ask.created", "agent", json!({"ask_id": id, "kind": "questions", "tool": "ask_user_question", "questions": [{"id": "q1", "question": question}]}));
        self.push("ask.settled", "human", json!({"ask_id": id, "kind": "questions", "outcome": "answered", "answers": [{"id": "q1", "selected": chosen}]}))
    }
    fn baseline(&mut self, revision: u32, baseline: Value, applied: &[&str]) -> &mut Self {
        self.push("alignment.baseline_recorded", "agent", json!({"revision": revision, "baseline": baseline, "changes": {}, "applied": applied, "warnings": []}))
    }
    fn drift(&mut self, id: &str, reason: &str, extra: Value) -> &mut Self {
        let mut data = json!({"drift_id": id, "reason": reason, "description": "d", "ask_id": format!("card-{id}")});
        if let (Some(d), Some(e)) = (data.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        self.push(
            "ask.created",
            "agent",
            json!({"ask_id": format!("card-{id}"), "kind": "drift"}),
        );
        self.push("alignment.drift_reported", "agent", data)
    }
    fn decide(&mut self, id: &str, data: Value) -> &mut Self {
        let mut d = data;
        d["drift_id"] = json!(id);
        self.push(
            "ask.settled",
            "human",
            json!({"ask_id": format!("card-{id}"), "outcome": "answered"}),
        );
        self.push("alignment.drift_decided", "human", d)
    }
    fn state(&self) -> AlignmentState {
        fold(&self.0)
    }
    fn kinds(&self) -> Vec<&str> {
        self.0
            .iter()
            .map(|e| e.kind.map_or("?", |k| k.as_str()))
            .collect()
    }
}

fn tail(s: &AlignmentState) -> Vec<String> {
    tail_lines(
        s,
        &TailContext {
            session_id: "S",
            lang: Lang::En,
            earlier: 0,
        },
    )
}

#[test]
fn s1_greenfield() {
    let mut st = Stream::new();
    st.ask(
        "a1",
        "Where should the first version run?",
        &["Local web app"],
    );
    let after_ask = tail(&st.state());
    assert!(after_ask[1].starts_with("Alignment memory: 1 question round(s)"));
    assert!(after_ask.iter().any(|l| l.contains("Local web app")));
    st.baseline(
        1,
        json!({"goal": "A local task app", "user_decisions": ["Local web app"]}),
        &[],
    );
    assert_eq!(
        st.kinds(),
        [
            "session.started",
            "ask.created",
            "ask.settled",
            "alignment.baseline_recorded"
        ]
    );
    let s = st.state();
    assert_eq!(s.rounds, 1);
    assert_eq!(s.settled.len(), 1);
    assert_eq!(s.settled[0].chosen, ["Local web app"]);
    assert!(s.drifts.is_empty());
    assert_eq!((s.revision, s.posture()), (1, Posture::Aligned));
}

#[test]
fn s2_typo_status_has_only_t1() {
    assert_eq!(fold(&[]).rounds, 0);
    let s = Stream::new().state();
    assert_eq!((s.rounds, s.posture()), (0, Posture::NoBaseline));
    assert_eq!(tail(&s), ["askd session: S"]);
}

#[test]
fn s3_bugfix_with_protected_scope() {
    let mut st = Stream::new();
    st.baseline(1, json!({"goal": "Submit no longer throws when form.email is undefined", "explicit_constraints": ["No UI changes", "Public API unchanged"]}), &[]);
    let s = st.state();
    assert_eq!(
        (s.revision, s.posture(), s.rounds),
        (1, Posture::Aligned, 0)
    );
    assert!(s.history[0].warnings.is_empty());
    assert!(
        tail(&s)
            .contains(&"- Explicit constraints: No UI changes; Public API unchanged".to_string())
    );
}

#[test]
fn s4_pick_whatever() {
    let mut st = Stream::new();
    st.ask("a1", "Who is the first version for?", &["Just me"]);
    st.baseline(
        1,
        json!({"user_decisions": ["The first version is for me"]}),
        &[],
    );
    let s = st.state();
    assert_eq!((s.rounds, s.settled.len(), s.revision), (1, 1, 1));
    let t = tail(&s);
    assert!(t[1].contains("1 question round(s)"));
    assert_eq!(t[2], "Settled: Who is the first version for? → Just me");
}

fn seeded_filter() -> Stream {
    let mut st = Stream::new();
    st.baseline(1, json!({"goal": "Fix the result-page category filter", "allowed_scope": ["Result-page filtering UI"], "explicit_constraints": ["No backend refactoring"]}), &[]);
    st
}

#[test]
fn s5_scope_drift_rejected() {
    let mut st = seeded_filter();
    st.drift(
        "d1",
        "scope-expansion",
        json!({"required_change": "Allow a change to server-side filtering"}),
    );
    assert_eq!(st.state().posture(), Posture::DriftPending);
    st.decide("d1", json!({"decision": "reject"}));
    st.push(
        "alignment.baseline_refused",
        "agent",
        json!({"attempted": {"explicit_constraints": []}, "dropped": ["No backend refactoring"]}),
    );
    let s = st.state();
    assert_eq!(
        (s.revision, s.posture(), s.rounds),
        (1, Posture::Aligned, 0)
    );
    assert!(s.pending_updates.is_empty());
    assert_eq!(s.drift("d1").unwrap().decision.as_deref(), Some("reject"));
    assert_eq!(s.refusals[0]["dropped"], json!(["No backend refactoring"]));
    assert!(tail(&s).contains(&"Last drift decision: d1 reject".to_string()));
}

#[test]
fn s6_architecture_shift_approved_then_applied() {
    let mut st = Stream::new();
    st.baseline(1, json!({"goal": "Single-user local task app", "explicit_constraints": ["No accounts", "No server"]}), &[]);
    st.drift(
        "d1",
        "architecture-shift",
        json!({"required_change": "Multi-device with accounts and cloud sync"}),
    );
    st.decide(
        "d1",
        json!({"decision": "approve", "note": "Keep an offline mode"}),
    );
    let s = st.state();
    assert_eq!(s.posture(), Posture::BaselineUpdatePending);
    assert_eq!(s.pending_updates, ["d1"]);
    assert!(
        tail(&s)
            .last()
            .unwrap()
            .starts_with("Baseline update pending (d1): the human approved the change.")
    );
    st.baseline(2, json!({"goal": "Multi-device task app", "explicit_constraints": ["Offline mode keeps working"]}), &["d1"]);
    let s = st.state();
    assert_eq!((s.revision, s.posture()), (2, Posture::Aligned));
    assert!(s.pending_updates.is_empty());
    assert_eq!(s.history[1].applied, ["d1"]);
    assert_eq!(s.rounds, 0, "drift cards never add rounds");
}

#[test]
fn s7_realign_and_repeat() {
    let mut st = Stream::new();
    st.ask(
        "a1",
        "Where should the first version run?",
        &["Local web app"],
    );
    st.ask("a2", "How should accounts and sync work?", &["No accounts"]);
    let s = st.state();
    assert_eq!(
        repeat_of(&s, "How should accounts and sync work?"),
        Some(json!({"ask_id": "a2", "question_id": "q1", "chosen": ["No accounts"]}))
    );
    assert!(tail(&s)[1].contains("2 question round(s)"));
    let r = repeat_of(&s, "Where should the first version run?").unwrap();
    assert_eq!(r["ask_id"], "a1");
    st.ask(
        "a3",
        "Where should the first version run?",
        &["Local web app"],
    );
    let s = st.state();
    assert_eq!((s.rounds, s.settled.len()), (3, 3));
    assert!(tail(&s)[1].contains("3 question round(s)"));
}

#[test]
fn s8_sessions_are_isolated() {
    let mut a = Stream::new();
    a.ask("a1", "Where?", &["Web"]);
    a.push("alignment.mode_set", "agent", json!({"mode": "manual"}));
    a.baseline(1, json!({"goal": "G"}), &[]);
    a.push("alignment.checked", "agent", json!({"via": "tool"}));
    let b_before = Stream::new().state();
    assert_eq!(
        (b_before.rounds, b_before.mode_override, b_before.revision),
        (0, None, 0)
    );
    assert_eq!(
        b_before.effective_mode(Some(Mode::Auto)),
        (Mode::Auto, "config")
    );
    assert!(b_before.baseline.is_none());
    let mut b = Stream::new();
    b.ask("b1", "What?", &["X"]);
    let (sa, sb) = (a.state(), b.state());
    assert_eq!(
        (sa.mode_override, sa.revision, sa.checks, sa.rounds),
        (Some(Mode::Manual), 1, 1, 1)
    );
    assert_eq!(
        (sb.mode_override, sb.revision, sb.checks, sb.rounds),
        (None, 0, 0, 1)
    );
    assert!(tail(&sb)[1].contains("1 question round(s)"));
}

#[test]
fn s9_subagent_shares_the_session() {
    let mut st = Stream::new();
    st.ask("a1", "Where?", &["Web"]);
    st.baseline(
        1,
        json!({"must_preserve": ["api.js public API stays stable"]}),
        &[],
    );
    let parent_tail = tail(&st.state());
    st.push(
        "session.attached",
        "askd",
        json!({"transport": "stdio", "client": "subagent"}),
    );
    assert_eq!(tail(&st.state()), parent_tail, "attaching changes no state");
    st.drift(
        "d1",
        "behaviour-change",
        json!({"required_change": "Add deleteItem to api.js"}),
    );
    st.decide("d1", json!({"decision": "approve"}));
    st.baseline(2, json!({"must_preserve": ["api.js public API stays stable"], "allowed_scope": ["deleteItem"]}), &["d1"]);
    let s = st.state();
    assert_eq!(
        (s.revision, s.posture(), s.rounds),
        (2, Posture::Aligned, 1)
    );
}

#[test]
fn s10_drift_with_options_redirected() {
    let mut st = Stream::new();
    st.baseline(1, json!({"goal": "Single-user app"}), &[]);
    st.drift(
        "d1",
        "user-direction-change",
        json!({"options": [{"label": "Use export files"}, {"label": "Add cloud sync"}]}),
    );
    st.decide("d1", json!({"decision": "revise", "choice": "Use export files", "choice_source": "option", "option_index": 0}));
    let s = st.state();
    assert_eq!((s.posture(), s.rounds), (Posture::BaselineUpdatePending, 0));
    let d = s.drift("d1").unwrap();
    assert_eq!(
        (d.choice.as_deref(), d.choice_source.as_deref()),
        (Some("Use export files"), Some("option"))
    );
    assert!(
        tail(&s)
            .last()
            .unwrap()
            .contains("the human chose \"Use export files\"")
    );
    st.baseline(
        2,
        json!({"goal": "Single-user app with export files"}),
        &["d1"],
    );
    assert_eq!(st.state().posture(), Posture::Aligned);
}

#[test]
fn s12_s13_interrupted_drift_decided_later() {
    let mut st = Stream::new();
    st.baseline(
        1,
        json!({"explicit_constraints": ["No accounts", "No server"]}),
        &[],
    );
    st.drift(
        "d1",
        "architecture-shift",
        json!({"options": [{"label": "Use export files"}, {"label": "Add cloud sync"}]}),
    );
    assert_eq!(st.state().posture(), Posture::DriftPending);
    st.push("session.attached", "askd", json!({"client": "C"}));
    st.decide("d1", json!({"decision": "revise", "choice": "Use export files", "choice_source": "option", "note": "CSV is enough"}));
    let s = st.state();
    assert_eq!(s.posture(), Posture::BaselineUpdatePending);
    let t = tail(&s);
    assert!(
        t.contains(
            &r#"Last drift decision: d1 revise: "Use export files" (note: "CSV is enough")"#
                .to_string()
        )
    );
    assert!(t.iter().any(|l| l.contains(r#"chose "Use export files""#)));
    // The fold is a pure function of the stream: a restart folds to the same state.
    assert_eq!(fold(&st.0), s);
}

#[test]
fn s14_mode_switches_change_no_rounds_or_baseline() {
    let mut st = Stream::new();
    st.baseline(1, json!({"goal": "G"}), &[]);
    st.push("alignment.mode_set", "agent", json!({"mode": "off"}));
    st.ask("a1", "Q1?", &["A"]);
    st.push("alignment.mode_set", "human", json!({"mode": "manual"}));
    st.ask("a2", "Q2?", &["B"]);
    st.push("alignment.checked", "agent", json!({"via": "tool"}));
    st.push("alignment.mode_set", "human", json!({"mode": null}));
    let s = st.state();
    assert_eq!(
        (s.rounds, s.revision, s.mode_override, s.checks),
        (2, 1, None, 1)
    );
}

#[test]
fn forks_copy_the_state_at_an_inclusive_point() {
    // Parent: r1 at seq 3, r2 at seq 6, r3 at seq 9.
    let mut p = Stream::new();
    p.push("alignment.checked", "agent", json!({}));
    p.push("alignment.mode_set", "agent", json!({"mode": "manual"}));
    p.baseline(1, json!({"goal": "r1"}), &[]);
    p.push("alignment.checked", "agent", json!({}));
    p.push("alignment.checked", "agent", json!({}));
    p.baseline(2, json!({"goal": "r2"}), &[]);
    p.push("alignment.checked", "agent", json!({}));
    p.push("alignment.checked", "agent", json!({}));
    p.baseline(3, json!({"goal": "r3"}), &[]);
    assert_eq!(p.0[3].seq, 4);
    let fork = |events: &[AlignEvent], at: usize| -> Stream {
        let snapshot = serde_json::to_value(fold(&events[..at])).unwrap();
        let mut c = Stream(Vec::new());
        c.push(
            "session.started",
            "askd",
            json!({"origin": "fork", "parent": "P", "fork_at": at, "inherited": snapshot}),
        );
        c
    };
    // Seq n is index n-1; the fold of seq <= at is events[..at].
    assert_eq!(fork(&p.0, 5).state().revision, 1);
    assert_eq!(fork(&p.0, 7).state().revision, 2);
    let c = fork(&p.0, p.0.len());
    assert_eq!(c.state().revision, 3);
    assert_eq!(c.state().mode_override, Some(Mode::Manual));
    let c5 = fork(&p.0, 5);
    assert_eq!(fork(&c5.0, 1).state().revision, 1, "a fork of a fork");
    let mut child = fork(&p.0, 5);
    child.push("alignment.checked", "agent", json!({}));
    assert_eq!(child.state().checks, 3);
    assert_eq!(
        p.state().checks,
        5,
        "the child's events never reach the parent"
    );
}
