//! The normal form (§2.7), built once the spec is valid, and the cycle check on it.

use super::*;

/// A borrowed string, which repair leaves as it is (checked in debug builds).
pub(super) fn clean(t: &str) -> &str {
    debug_assert!(
        !t.contains(['\\', '\n', '\r']),
        "borrowed JSON string with an escape"
    );
    t
}

/// §2.7: the normal form of a survey that passed every rule of §4.1–§4.8.
pub(super) fn build(s: &Object) -> SurveySpec {
    let text = |o: &Object, f: &str| o.get_present(f).and_then(Json::as_str).map(str::to_string);
    // A string borrowed from the JSON text had no escape sequence there, so it holds no
    // backslash and no line break (`json` module invariant): repair is the identity and is
    // skipped without scanning. Only strings that had escapes are repaired.
    let prose = |o: &Object, f: &str| match o.get_present(f)? {
        Json::String(Cow::Borrowed(t)) => Some(clean(t).to_string()),
        Json::String(Cow::Owned(t)) => Some(repair::block(t).into_owned()),
        _ => None,
    };
    let line = |o: &Object, f: &str| match o.get_present(f)? {
        Json::String(Cow::Borrowed(t)) => Some(clean(t).to_string()),
        Json::String(Cow::Owned(t)) => Some(repair::one_line(t).into_owned()),
        _ => None,
    };
    let flag = |o: &Object, f: &str| o.get_present(f).and_then(Json::as_bool);
    let strings = |o: &Object, f: &str| {
        o.get_present(f).and_then(Json::as_array).map(|a| {
            a.iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
    };
    let next = |o: &Object| -> Option<Next> {
        match o.get("next")? {
            Json::Null => Some(Next::End),
            Json::String(s) => Some(Next::One(s.to_string())),
            Json::Array(a) => Some(Next::Many(
                a.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_string)
                    .collect(),
            )),
            _ => None,
        }
    };
    let empty = Object::new();
    let questions = s
        .get("questions")
        .and_then(Json::as_object)
        .unwrap_or(&empty)
        .iter()
        .map(|(id, q)| {
            let q = q.as_object().unwrap_or(&empty);
            let options = q
                .get_present("options")
                .and_then(Json::as_array)
                .map(|opts| {
                    opts.iter()
                        .map(|o| {
                            let o = o.as_object().unwrap_or(&empty);
                            SurveyOption {
                                key: text(o, "key").unwrap_or_default(),
                                label: line(o, "label").unwrap_or_default(),
                                description: line(o, "description"),
                                insight: prose(o, "insight"),
                                diagram: text(o, "diagram"),
                                sources: strings(o, "sources"),
                                recommended: flag(o, "recommended"),
                                next: next(o),
                            }
                        })
                        .collect()
                });
            let question = Question {
                prompt: prose(q, "prompt").unwrap_or_default(),
                header: line(q, "header"),
                detail: prose(q, "detail"),
                multi_select: flag(q, "multiSelect"),
                allow_custom: flag(q, "allowCustom"),
                skippable: flag(q, "skippable"),
                options,
                next: next(q),
            };
            (id.to_string(), question)
        })
        .collect();
    let quick = s.get_present("quick").and_then(Json::as_array).map(|ts| {
        ts.iter()
            .map(|t| {
                let t = t.as_object().unwrap_or(&empty);
                let answers = t
                    .get_present("answers")
                    .and_then(Json::as_object)
                    .unwrap_or(&empty)
                    .iter()
                    .map(|(a, v)| {
                        let v = v.as_object().unwrap_or(&empty);
                        let answer = QuickAnswer {
                            selected: strings(v, "selected"),
                            custom: text(v, "custom"),
                        };
                        (a.to_string(), answer)
                    })
                    .collect();
                QuickTemplate {
                    key: text(t, "key").unwrap_or_default(),
                    label: line(t, "label").unwrap_or_default(),
                    description: line(t, "description"),
                    insight: prose(t, "insight"),
                    diagram: text(t, "diagram"),
                    sources: strings(t, "sources"),
                    recommended: flag(t, "recommended"),
                    answers,
                }
            })
            .collect()
    });
    SurveySpec {
        title: text(s, "title"),
        intro: prose(s, "intro"),
        entry: text(s, "entry").unwrap_or_default(),
        questions,
        quick,
    }
}

/// §4.9: white/gray/black depth-first search over every question in id order.
pub(super) fn find_cycle(spec: &SurveySpec) -> Option<Problem> {
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Gray,
        Black,
    }
    let ids: Vec<&str> = spec.questions.keys().map(String::as_str).collect();
    let index = |id: &str| spec.questions.get_index_of(id);
    // Ordered, de-duplicated adjacency: question-level targets, then option targets.
    let adjacency: Vec<Vec<usize>> = spec
        .questions
        .values()
        .map(|q| {
            let mut out: Vec<usize> = Vec::new();
            let own = q.next.iter().flat_map(Next::targets);
            let opts = q
                .options()
                .iter()
                .filter(|o| o.next.as_ref().is_some_and(|n| *n != Next::End))
                .flat_map(|o| o.next.iter().flat_map(Next::targets));
            for t in own.chain(opts) {
                if let Some(i) = index(t)
                    && !out.contains(&i)
                {
                    out.push(i);
                }
            }
            out
        })
        .collect();
    let mut colour = vec![Colour::White; ids.len()];
    for start in 0..ids.len() {
        if colour[start] != Colour::White {
            continue;
        }
        // Explicit stack of (node, next adjacency position).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = Colour::Gray;
        while let Some(&mut (u, ref mut pos)) = stack.last_mut() {
            if let Some(&v) = adjacency[u].get(*pos) {
                *pos += 1;
                match colour[v] {
                    Colour::White => {
                        colour[v] = Colour::Gray;
                        stack.push((v, 0));
                    }
                    Colour::Gray => return Some(cycle_problem(spec, &ids, &stack, u, v)),
                    Colour::Black => {}
                }
            } else {
                colour[u] = Colour::Black;
                stack.pop();
            }
        }
    }
    None
}

pub(super) fn cycle_problem(
    spec: &SurveySpec,
    ids: &[&str],
    stack: &[(usize, usize)],
    u: usize,
    v: usize,
) -> Problem {
    let from = ids[u];
    let target = ids[v];
    let q = &spec.questions[u];
    let base = PathBuf::root().field("questions").id(from);
    let path = if q
        .next
        .as_ref()
        .is_some_and(|n| n.targets().any(|t| t == target))
    {
        base.field("next")
    } else {
        let i = q
            .options()
            .iter()
            .position(|o| {
                o.next
                    .as_ref()
                    .is_some_and(|n| n.targets().any(|t| t == target))
            })
            .unwrap_or(0);
        base.field("options").index(i).field("next")
    };
    let start = stack.iter().position(|(n, _)| *n == v).unwrap_or(0);
    let mut cycle: Vec<String> = stack[start..]
        .iter()
        .map(|(n, _)| ids[*n].to_string())
        .collect();
    cycle.push(target.to_string());
    let mut p = Problem::new(
        path,
        "cycle",
        "survey graph contains a cycle (a question can follow itself through option branches)",
    );
    p.cycle = Some(cycle);
    p
}
