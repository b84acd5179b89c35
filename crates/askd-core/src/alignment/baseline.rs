//! `establish_baseline` (`alignment.md` §5.5), pure: argument validation, the merge, the
//! per-field diff, the protected-item guard, the warnings, and what to append.

use super::fold::{AlignmentState, Baseline};
use crate::Problem;
use serde_json::{Map, Value, json};

pub const GOAL_MAX: usize = 1000;
pub const LIST_MAX_ITEMS: usize = 32;
pub const ITEM_MAX: usize = 500;
const LISTS: [&str; 4] = [
    "explicit_constraints",
    "must_preserve",
    "allowed_scope",
    "user_decisions",
];
/// The fields `establish_baseline` accepts (the MCP tool's and the daemon's one list).
pub const FIELDS: [&str; 8] = [
    "session",
    "goal",
    "explicit_constraints",
    "must_preserve",
    "allowed_scope",
    "user_decisions",
    "replace",
    "applies",
];

/// Validated arguments: `None` means the field was not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BaselineArgs {
    pub goal: Option<String>,
    pub lists: [Option<Vec<String>>; 4],
    pub replace: bool,
    pub applies: Option<Vec<String>>,
}

/// The comparison key of an item: lower-cased, whitespace collapsed.
pub fn item_key(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Validates the tool arguments; every problem is reported, with its path.
pub fn validate(args: &Value) -> Result<BaselineArgs, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut out = BaselineArgs::default();
    let Some(obj) = args.as_object() else {
        return Err(vec![Problem::new(
            "",
            "invalid_argument",
            "the arguments must be an object",
        )]);
    };
    for k in obj.keys() {
        if !FIELDS.contains(&k.as_str()) {
            problems.push(Problem::new(
                k.clone(),
                "invalid_argument",
                format!("unknown field {k:?}; allowed: {}", FIELDS.join(", ")),
            ));
        }
    }
    match obj.get("goal") {
        None | Some(Value::Null) => {}
        Some(Value::String(g)) => {
            let g = g.trim();
            let n = g.chars().count();
            if n == 0 || n > GOAL_MAX {
                problems.push(Problem::new(
                    "goal",
                    "invalid_argument",
                    format!("goal must be 1 to {GOAL_MAX} characters"),
                ));
            } else {
                out.goal = Some(g.to_string());
            }
        }
        Some(_) => problems.push(Problem::new(
            "goal",
            "invalid_argument",
            "goal must be a string",
        )),
    }
    for (i, name) in LISTS.iter().enumerate() {
        match obj.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                if items.len() > LIST_MAX_ITEMS {
                    problems.push(Problem::new(
                        *name,
                        "invalid_argument",
                        format!("{name} takes at most {LIST_MAX_ITEMS} items"),
                    ));
                    continue;
                }
                let mut list = Vec::new();
                let mut keys: Vec<String> = Vec::new();
                for (j, item) in items.iter().enumerate() {
                    let path = format!("{name}[{j}]");
                    match item.as_str().map(str::trim) {
                        Some(t) if !t.is_empty() && t.chars().count() <= ITEM_MAX => {
                            let key = item_key(t);
                            if keys.contains(&key) {
                                problems.push(Problem::new(
                                    path,
                                    "invalid_argument",
                                    format!("{name} repeats {t:?}"),
                                ));
                            } else {
                                keys.push(key);
                                list.push(t.to_string());
                            }
                        }
                        _ => problems.push(Problem::new(
                            path,
                            "invalid_argument",
                            format!(
                                "each item of {name} must be a string of 1 to {ITEM_MAX} characters"
                            ),
                        )),
                    }
                }
                out.lists[i] = Some(list);
            }
            Some(_) => problems.push(Problem::new(
                *name,
                "invalid_argument",
                format!("{name} must be a list of strings"),
            )),
        }
    }
    match obj.get("replace") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => out.replace = *b,
        Some(_) => problems.push(Problem::new(
            "replace",
            "invalid_argument",
            "replace must be a boolean",
        )),
    }
    match obj.get("applies") {
        None | Some(Value::Null) => {}
        Some(Value::Array(ids)) => {
            let mut list = Vec::new();
            for (j, id) in ids.iter().enumerate() {
                match id.as_str().map(str::trim).filter(|s| !s.is_empty()) {
                    Some(id) => list.push(id.to_string()),
                    None => problems.push(Problem::new(
                        format!("applies[{j}]"),
                        "invalid_argument",
                        "applies takes drift ids such as \"d1\"",
                    )),
                }
            }
            out.applies = Some(list);
        }
        Some(_) => problems.push(Problem::new(
            "applies",
            "invalid_argument",
            "applies must be a list of drift ids",
        )),
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// What a validated call does.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Same content, nothing applied: append nothing.
    Unchanged,
    /// Append `alignment.baseline_recorded` with this data.
    Record(Value),
    /// Append `alignment.baseline_refused` with this data and fail with
    /// `protected_constraint` naming `dropped`.
    Refuse { data: Value, dropped: Vec<String> },
    /// A failure that appends nothing: `(code, field, message)`.
    Fail(&'static str, &'static str, String),
}

fn lists_of(b: &Baseline) -> [&Vec<String>; 4] {
    [
        &b.explicit_constraints,
        &b.must_preserve,
        &b.allowed_scope,
        &b.user_decisions,
    ]
}

fn diff(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let ok: Vec<String> = old.iter().map(|s| item_key(s)).collect();
    let nk: Vec<String> = new.iter().map(|s| item_key(s)).collect();
    let added = new
        .iter()
        .zip(&nk)
        .filter(|(_, k)| !ok.contains(k))
        .map(|(s, _)| s.clone())
        .collect();
    let removed = old
        .iter()
        .zip(&ok)
        .filter(|(_, k)| !nk.contains(k))
        .map(|(s, _)| s.clone())
        .collect();
    (added, removed)
}

/// Plans a revision against the session's current state (§5.5 steps 2–8).
pub fn plan(state: &AlignmentState, args: &BaselineArgs) -> Plan {
    let current = state.baseline.clone().unwrap_or_default();
    let mut candidate = if args.replace {
        Baseline::default()
    } else {
        current.clone()
    };
    if let Some(g) = &args.goal {
        candidate.goal = Some(g.clone());
    }
    {
        let slots = [
            &mut candidate.explicit_constraints,
            &mut candidate.must_preserve,
            &mut candidate.allowed_scope,
            &mut candidate.user_decisions,
        ];
        for (slot, given) in slots.into_iter().zip(&args.lists) {
            if let Some(l) = given {
                *slot = l.clone();
            }
        }
    }
    if candidate.goal.is_none() && lists_of(&candidate).iter().all(|l| l.is_empty()) {
        return Plan::Fail(
            "empty_baseline",
            "goal",
            "the baseline would have no goal and no items; give a goal or at least one item".into(),
        );
    }
    let applied = match &args.applies {
        Some(ids) => {
            if let Some(bad) = ids.iter().find(|id| !state.pending_updates.contains(id)) {
                return Plan::Fail(
                    "not_pending",
                    "applies",
                    format!(
                        "{bad} is not in the pending-update queue ({})",
                        if state.pending_updates.is_empty() {
                            "empty".to_string()
                        } else {
                            state.pending_updates.join(", ")
                        }
                    ),
                );
            }
            ids.clone()
        }
        None => state.pending_updates.clone(),
    };
    // The diff, field by field.
    let mut changes = Map::new();
    if candidate.goal != current.goal {
        changes.insert(
            "goal".into(),
            json!({"from": current.goal, "to": candidate.goal}),
        );
    }
    for (name, (old, new)) in LISTS
        .iter()
        .zip(lists_of(&current).into_iter().zip(lists_of(&candidate)))
    {
        let (added, removed) = diff(old, new);
        if !added.is_empty() || !removed.is_empty() {
            changes.insert((*name).into(), json!({"added": added, "removed": removed}));
        }
    }
    // The protected-item guard: constraints and must-preserve, taken together.
    let kept: Vec<String> = candidate
        .explicit_constraints
        .iter()
        .chain(&candidate.must_preserve)
        .map(|s| item_key(s))
        .collect();
    let dropped: Vec<String> = current
        .explicit_constraints
        .iter()
        .chain(&current.must_preserve)
        .filter(|s| !kept.contains(&item_key(s)))
        .cloned()
        .collect();
    let attempted = serde_json::to_value(&candidate).unwrap_or(Value::Null);
    if !dropped.is_empty() && applied.is_empty() {
        return Plan::Refuse {
            data: json!({"attempted": attempted, "dropped": dropped}),
            dropped,
        };
    }
    let first = state.revision == 0;
    let mut warnings = Vec::new();
    if !first && applied.is_empty() {
        if changes.contains_key("goal") {
            warnings.push("unratified-goal-change");
        }
        if changes
            .get("allowed_scope")
            .is_some_and(|c| c["added"].as_array().is_some_and(|a| !a.is_empty()))
        {
            warnings.push("unratified-scope-expansion");
        }
    }
    if changes.is_empty() && applied.is_empty() && !first {
        return Plan::Unchanged;
    }
    let authorised_by = if dropped.is_empty() {
        Vec::new()
    } else {
        applied.clone()
    };
    Plan::Record(json!({
        "revision": state.revision + 1,
        "baseline": attempted,
        "changes": Value::Object(changes),
        "applied": applied,
        "dropped": dropped,
        "authorised_by": authorised_by,
        "warnings": warnings,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::fold::{AlignEvent, fold};
    use super::*;

    fn ev(seq: i64, kind: &str, data: Value) -> AlignEvent {
        AlignEvent {
            seq,
            at: format!("2026-11-29T10:00:{seq:02}Z"),
            kind: crate::EventKind::parse(kind),
            actor: crate::Actor::Agent,
            data,
        }
    }
    fn args(v: Value) -> BaselineArgs {
        validate(&v).unwrap()
    }
    fn recorded(p: Plan) -> Value {
        match p {
            Plan::Record(v) => v,
            other => panic!("expected a record, got {other:?}"),
        }
    }
    fn with(plan_data: Value) -> AlignmentState {
        fold(&[ev(1, "alignment.baseline_recorded", plan_data)])
    }

    #[test]
    fn validation_reports_every_problem_with_its_path() {
        let e = validate(&json!({"goal": " ", "explicit_constraints": ["A", " a ", ""], "replace": "yes", "bogus": 1, "applies": [3]})).unwrap_err();
        let paths: Vec<&str> = e.iter().map(|p| p.path.as_str()).collect();
        for p in [
            "bogus",
            "goal",
            "explicit_constraints[1]",
            "explicit_constraints[2]",
            "replace",
            "applies[0]",
        ] {
            assert!(paths.contains(&p), "{p} missing in {paths:?}");
        }
        let long: Vec<String> = (0..33).map(|i| format!("c{i}")).collect();
        assert_eq!(
            validate(&json!({"must_preserve": long})).unwrap_err()[0].path,
            "must_preserve"
        );
        assert_eq!(
            validate(&json!({"goal": "x".repeat(1001)})).unwrap_err()[0].path,
            "goal"
        );
    }

    #[test]
    fn first_revision_merge_and_unchanged() {
        let s = AlignmentState::default();
        let r1 = recorded(plan(
            &s,
            &args(
                json!({"goal": "G", "explicit_constraints": ["No UI changes", "Public API unchanged"]}),
            ),
        ));
        assert_eq!(r1["revision"], 1);
        assert_eq!(r1["warnings"], json!([]));
        let s = with(r1.clone());
        // Only the goal given: the lists are kept (merge).
        let r2 = recorded(plan(&s, &args(json!({"goal": "G2"}))));
        assert_eq!(
            r2["baseline"]["explicit_constraints"],
            json!(["No UI changes", "Public API unchanged"])
        );
        assert_eq!(r2["warnings"], json!(["unratified-goal-change"]));
        assert_eq!(r2["changes"]["goal"], json!({"from": "G", "to": "G2"}));
        // Identical content: nothing to record.
        assert_eq!(
            plan(
                &s,
                &args(
                    json!({"goal": "G", "explicit_constraints": ["no ui  changes", "Public API unchanged"]})
                )
            ),
            Plan::Unchanged
        );
        assert_eq!(
            plan(&AlignmentState::default(), &args(json!({}))),
            Plan::Fail("empty_baseline", "goal", plan_msg())
        );
    }

    fn plan_msg() -> String {
        "the baseline would have no goal and no items; give a goal or at least one item".into()
    }

    #[test]
    fn protected_items_cannot_be_dropped_without_an_applied_decision() {
        let s = with(
            json!({"revision": 1, "baseline": {"goal": "Fix the filter", "explicit_constraints": ["No backend refactoring"], "allowed_scope": ["Result-page filtering UI"]}}),
        );
        match plan(&s, &args(json!({"explicit_constraints": []}))) {
            Plan::Refuse { dropped, data } => {
                assert_eq!(dropped, ["No backend refactoring"]);
                assert_eq!(data["dropped"], json!(["No backend refactoring"]));
            }
            other => panic!("{other:?}"),
        }
        // replace: true clears omitted lists, which drops the constraint too.
        assert!(matches!(
            plan(&s, &args(json!({"replace": true, "goal": "x"}))),
            Plan::Refuse { .. }
        ));
        // Moving an item between the protected lists is not a drop.
        let moved = recorded(plan(
            &s,
            &args(json!({"explicit_constraints": [], "must_preserve": ["No backend refactoring"]})),
        ));
        assert_eq!(moved["dropped"], json!([]));
        // Scope expansion without a decision is recorded with a warning.
        let wider = recorded(plan(
            &s,
            &args(json!({"allowed_scope": ["Result-page filtering UI", "Server filtering"]})),
        ));
        assert_eq!(wider["warnings"], json!(["unratified-scope-expansion"]));
    }

    #[test]
    fn an_approved_drift_authorises_the_drop_and_is_applied() {
        let s = fold(&[
            ev(
                1,
                "alignment.baseline_recorded",
                json!({"revision": 1, "baseline": {"goal": "Single-user local task app", "explicit_constraints": ["No accounts", "No server"]}}),
            ),
            ev(
                2,
                "alignment.drift_reported",
                json!({"drift_id": "d1", "reason": "architecture-shift", "description": "sync"}),
            ),
            ev(
                3,
                "alignment.drift_decided",
                json!({"drift_id": "d1", "decision": "approve"}),
            ),
        ]);
        assert_eq!(
            plan(&s, &args(json!({"goal": "x", "applies": ["d2"]}))).clone(),
            Plan::Fail(
                "not_pending",
                "applies",
                "d2 is not in the pending-update queue (d1)".into()
            )
        );
        let r2 = recorded(plan(
            &s,
            &args(
                json!({"replace": true, "goal": "Multi-device task app", "explicit_constraints": ["Offline mode keeps working"]}),
            ),
        ));
        assert_eq!(r2["revision"], 2);
        assert_eq!(r2["applied"], json!(["d1"]));
        assert_eq!(r2["dropped"], json!(["No accounts", "No server"]));
        assert_eq!(r2["authorised_by"], json!(["d1"]));
        assert_eq!(r2["warnings"], json!([]));
        let mut s = s;
        s.apply(&ev(4, "alignment.baseline_recorded", r2));
        assert!(s.pending_updates.is_empty());
    }
}
