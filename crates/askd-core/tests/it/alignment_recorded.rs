//! The alignment fold over events recorded from the real daemon (never shapes typed by
//! hand): `fixtures/recorded/answered-session.json` is written by the daemon's test
//! `hardening_1_survey_answers_become_settled_decisions` (re-record with `ASKD_BLESS=1`).

use askd_core::alignment::{AlignEvent, fold};

fn recorded() -> Vec<AlignEvent> {
    let text = include_str!("../fixtures/recorded/answered-session.json");
    serde_json::from_str(text).expect("the recorded events parse as the fold's input")
}

/// Issue "Hardening" item 1: an answered survey adds one settled decision per answered
/// path question (alignment.md §4.6 rule 2): `chosen` = the labels in submission order,
/// `custom` when given; the questions ask after it adds its own.
#[test]
fn hardening_1_recorded_survey_answers_fold_into_settled_decisions() {
    let s = fold(&recorded());
    assert_eq!(s.rounds, 2);
    let got: Vec<(&str, &str, Vec<&str>, Option<&str>)> = s
        .settled
        .iter()
        .map(|d| {
            (
                d.tool.as_str(),
                d.question_id.as_str(),
                d.chosen.iter().map(String::as_str).collect(),
                d.custom.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("ask_survey", "scope", vec!["Ship the public API"], None),
            ("ask_survey", "api", vec![], Some("REST endpoints first")),
            (
                "ask_survey",
                "ship",
                vec!["Docs complete", "Migration guide"],
                None
            ),
            ("ask_user_question", "db", vec!["PostgreSQL"], None),
        ]
    );
    assert_eq!(
        s.settled[0].question,
        "Which direction fits the 2.0 release?"
    );
    assert_eq!(s.settled[0].ask_id, "ask-survey");
    // The survey asked again afterwards is still open: no round, no decision.
    assert!(s.settled.iter().all(|d| d.ask_id != "ask-survey-again"));
}

/// Issue 32: the daemon gives an ask's tool and questions to its `ask.settled`
/// (`questions_with_settle` on its `ask.created`), so the fold keeps nothing of a pending
/// ask and a checkpoint does not grow with a session's pending asks. The events the daemon
/// recorded before that change — questions on the `ask.created` — fold to the same state.
#[test]
fn both_recorded_shapes_fold_to_the_same_decisions_and_pending_asks_are_not_kept() {
    let before: Vec<AlignEvent> = serde_json::from_str(include_str!(
        "../fixtures/recorded/answered-session-created-questions.json"
    ))
    .expect("the earlier recording parses");
    let (old, new) = (fold(&before), fold(&recorded()));
    assert_eq!(old.settled, new.settled);
    assert_eq!(old.rounds, new.rounds);
    // The survey asked again is pending: the earlier shape keeps its questions in the
    // checkpoint, the current one keeps nothing of it.
    let size = |s: &askd_core::alignment::AlignmentState| {
        serde_json::to_string(&askd_core::alignment::Checkpoint::of(s, 0))
            .unwrap()
            .len()
    };
    assert!(size(&new) < size(&old), "{} ≥ {}", size(&new), size(&old));
    assert!(
        !serde_json::to_string(&askd_core::alignment::Checkpoint::of(&new, 0))
            .unwrap()
            .contains("ask-survey-again")
    );
}

/// Issue 16: a checkpoint equals the fold of the events up to it. Cut the recorded session
/// after every event, store the checkpoint (as JSON) and its decisions apart, resume, fold
/// the rest: the state is the one folded from scratch.
#[test]
fn recorded_events_fold_the_same_from_any_checkpoint() {
    use askd_core::alignment::{Checkpoint, SettledDecision};
    let events = recorded();
    let whole = fold(&events);
    for cut in 0..=events.len() {
        let head = fold(&events[..cut]);
        let text = serde_json::to_string(&Checkpoint::of(&head, 0)).unwrap();
        let kept: Vec<SettledDecision> = head.settled.clone();
        let cp: Checkpoint = serde_json::from_str(&text).unwrap();
        let (mut s, held) = cp.resume().expect("this version resumes");
        assert_eq!(held, kept.len());
        assert!(s.settled.is_empty(), "the decisions are kept apart");
        for e in &events[cut..] {
            s.apply(e);
        }
        // A second checkpoint, on top of the first one's decisions.
        let again = Checkpoint::of(&s, held);
        assert_eq!(again.settled, whole.settled.len());
        let mut settled = kept;
        settled.append(&mut s.settled);
        s.settled = settled;
        assert_eq!(s, whole, "cut after {cut} events");
    }
}
