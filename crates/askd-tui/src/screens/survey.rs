//! A branching survey (`survey.md` §12.19): the intro screen, then one question per page
//! along the live path the daemon computes (`POST /api/asks/{id}/path` after every change —
//! the TUI has no path engine of its own). Lower-case letters and digits choose options;
//! actions are upper-case or symbols. Progress autosaves as the web wizard's draft
//! `{v, position, quickMode, answers}`, so a browser continues where the terminal stopped.

use std::collections::{BTreeMap, HashMap};

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value, json};

use super::{
    Base, Confirm, Effect, FieldKey, cursor, draw_screen, edit, error_lines, field_line,
    focus_style, is_submit_chord, plain, text_lines,
};
use crate::api::{Purpose, Reply, Request};
use crate::text::{clean_line, markdown_line};

#[derive(Debug, Clone)]
struct Opt {
    key: String,
    label: String,
    description: Option<String>,
    insight: Option<String>,
    sources: Vec<String>,
    recommended: bool,
}

#[derive(Debug, Clone)]
struct Question {
    prompt: String,
    header: Option<String>,
    detail: Option<String>,
    multi: bool,
    allow_custom: bool,
    skippable: bool,
    options: Vec<Opt>,
}

/// A quick template (`survey.md` §2): a named set of answers submitted in one go.
#[derive(Debug, Clone)]
struct Quick {
    key: String,
    label: String,
    description: Option<String>,
    /// `(question id, selected keys, custom text)`, in the template's order.
    answers: Vec<(String, Vec<String>, String)>,
}

/// A justification (the "why" of one chosen option) is cut to this many characters.
const WHY_MAX: usize = 500;

#[derive(Debug, Clone, Default)]
struct Answer {
    selected: Vec<String>,
    custom: String,
    skipped: bool,
    justifications: Map<String, Value>,
}

impl Answer {
    fn substantive(&self) -> bool {
        !self.selected.is_empty() || !self.custom.trim().is_empty()
    }
}

/// What waits for the path to catch up with the latest change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Primary,
    /// Skipped: move past this question.
    Advance,
}

#[derive(Debug, Clone)]
pub struct Survey {
    pub base: Base,
    intro: String,
    questions: Vec<(String, Question)>,
    answers: BTreeMap<String, Answer>,
    banked: HashMap<String, Answer>,
    path: Vec<String>,
    /// `None`: the intro screen.
    position: Option<String>,
    saved_position: Option<String>,
    quick_mode: bool,
    quick: Vec<Quick>,
    /// The option whose justification is being typed.
    editing_why: Option<String>,
    focus: usize,
    editing: bool,
    /// Change counter; the path is current when `path_seq == seq`.
    seq: u64,
    path_seq: Option<u64>,
    pending: Option<Pending>,
}

fn answer_of(v: &Value) -> Answer {
    Answer {
        selected: v["selected"]
            .as_array()
            .map(|s| {
                s.iter()
                    .filter_map(|k| k.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        custom: v["custom"].as_str().unwrap_or_default().to_string(),
        skipped: v["skipped"].as_bool().unwrap_or(false),
        justifications: v["justifications"].as_object().cloned().unwrap_or_default(),
    }
}

impl Survey {
    pub fn new(view: &Value) -> (Survey, Vec<Effect>) {
        let spec = &view["spec"];
        let questions = spec["questions"]
            .as_object()
            .map(|qs| {
                qs.iter()
                    .map(|(id, q)| {
                        let options: Vec<Opt> = q["options"]
                            .as_array()
                            .map(|os| {
                                os.iter()
                                    .map(|o| Opt {
                                        key: o["key"].as_str().unwrap_or_default().to_string(),
                                        label: o["label"].as_str().unwrap_or_default().to_string(),
                                        description: o["description"].as_str().map(str::to_string),
                                        insight: o["insight"].as_str().map(str::to_string),
                                        sources: o["sources"]
                                            .as_array()
                                            .map(|s| {
                                                s.iter()
                                                    .filter_map(|x| x.as_str().map(str::to_string))
                                                    .collect()
                                            })
                                            .unwrap_or_default(),
                                        recommended: o["recommended"].as_bool().unwrap_or(false),
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        (
                            id.clone(),
                            Question {
                                prompt: q["prompt"].as_str().unwrap_or_default().to_string(),
                                header: q["header"].as_str().map(str::to_string),
                                detail: q["detail"].as_str().map(str::to_string),
                                multi: q["multiSelect"].as_bool().unwrap_or(false),
                                allow_custom: q["allowCustom"].as_bool().unwrap_or(true)
                                    || options.is_empty(),
                                skippable: q["skippable"].as_bool().unwrap_or(true),
                                options,
                            },
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let save = &view["autosave"];
        let answers = save["answers"]
            .as_object()
            .map(|a| a.iter().map(|(id, v)| (id.clone(), answer_of(v))).collect())
            .unwrap_or_default();
        let banked = view["banked"]
            .as_array()
            .map(|b| {
                b.iter()
                    .filter_map(|e| Some((e["id"].as_str()?.to_string(), answer_of(e))))
                    .collect()
            })
            .unwrap_or_default();
        let saved_position = save["position"]
            .as_str()
            .filter(|p| *p != "intro" && *p != "quick")
            .map(str::to_string);
        let quick = spec["quick"]
            .as_array()
            .map(|qs| {
                qs.iter()
                    .take(6)
                    .map(|t| Quick {
                        key: t["key"].as_str().unwrap_or_default().to_string(),
                        label: t["label"].as_str().unwrap_or_default().to_string(),
                        description: t["description"].as_str().map(str::to_string),
                        answers: t["answers"]
                            .as_object()
                            .map(|a| {
                                a.iter()
                                    .map(|(id, v)| {
                                        let a = answer_of(v);
                                        (id.clone(), a.selected, a.custom)
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let s = Survey {
            base: Base::new(view),
            intro: spec["intro"].as_str().unwrap_or_default().to_string(),
            questions,
            answers,
            banked,
            path: Vec::new(),
            position: None,
            saved_position,
            quick_mode: save["quickMode"].as_bool().unwrap_or(false),
            quick,
            editing_why: None,
            focus: 0,
            editing: false,
            seq: 0,
            path_seq: None,
            pending: None,
        };
        let first = vec![s.path_request()];
        (s, first)
    }

    pub fn editing(&self) -> bool {
        self.editing || self.editing_why.is_some()
    }

    pub fn help(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("a–z 0–9", "key.letter"),
            ("↑ ↓ Space", "key.space"),
            ("Tab", "key.text"),
            ("Enter", "key.primary"),
            ("← Backspace", "key.back"),
            ("S", "key.skip"),
            ("B", "key.bank"),
            ("W", "key.why"),
            ("Q", "key.quick"),
            ("R P D", "key.preflight"),
            ("X", "key.cancel"),
            ("Esc", "key.putAway"),
        ]
    }

    fn question(&self, id: &str) -> Option<&Question> {
        self.questions.iter().find(|(q, _)| q == id).map(|(_, q)| q)
    }

    /// The insight and sources of the focused option (shown with the key list).
    pub fn disclosure(&self) -> Vec<Line<'static>> {
        let Some(q) = self.position.as_deref().and_then(|p| self.question(p)) else {
            return vec![];
        };
        let Some(o) = q.options.get(self.focus) else {
            return vec![];
        };
        let mut lines = Vec::new();
        if let Some(i) = &o.insight {
            lines.push(Line::from(Span::styled(
                markdown_line(&o.label),
                Style::default().add_modifier(Modifier::BOLD),
            )));
            lines.extend(text_lines(i, "  ", Style::default()));
        }
        for s in &o.sources {
            lines.push(Line::from(format!("  · {}", clean_line(s))));
        }
        if !lines.is_empty() {
            lines.push(Line::from(""));
        }
        lines
    }

    fn is_answered(&self, id: &str) -> bool {
        self.banked.contains_key(id) || self.answers.get(id).is_some_and(Answer::substantive)
    }

    fn path_request(&self) -> Effect {
        let mut answers = Map::new();
        for (id, a) in &self.answers {
            answers.insert(
                id.clone(),
                json!({"selected": a.selected, "custom": a.custom, "skipped": a.skipped}),
            );
        }
        for (id, b) in &self.banked {
            answers.insert(
                id.clone(),
                json!({"selected": b.selected, "custom": b.custom, "skipped": b.skipped}),
            );
        }
        Effect::Send(Request::post(
            self.base.url("path"),
            json!({"answers": answers}),
            Purpose::Path {
                ask: self.base.id.clone(),
                seq: self.seq,
            },
        ))
    }

    pub fn save(&self) -> Vec<Effect> {
        let mut answers = Map::new();
        for (id, a) in &self.answers {
            if self.banked.contains_key(id) {
                continue;
            }
            let mut j = Map::new();
            for k in &a.selected {
                if let Some(v) = a.justifications.get(k) {
                    j.insert(k.clone(), v.clone());
                }
            }
            answers.insert(
                id.clone(),
                json!({"selected": a.selected, "custom": a.custom, "skipped": a.skipped,
                    "justifications": j}),
            );
        }
        vec![self.base.draft(json!({
            "v": 1,
            "position": self.position.as_deref().unwrap_or("intro"),
            "quickMode": self.quick_mode,
            "answers": answers,
        }))]
    }

    /// After a change: a new path and an autosave.
    fn changed(&mut self) -> Vec<Effect> {
        self.seq += 1;
        self.base.alert = None;
        let mut e = vec![self.path_request()];
        e.extend(self.save());
        e
    }

    fn path_current(&self) -> bool {
        self.path_seq == Some(self.seq)
    }

    fn go(&mut self, position: Option<String>) -> Vec<Effect> {
        self.position = position;
        self.focus = 0;
        self.editing = false;
        self.base.alert = None;
        self.save()
    }

    fn choose(&mut self, index: usize) -> Vec<Effect> {
        let Some(id) = self.position.clone() else {
            return vec![];
        };
        if self.banked.contains_key(&id) {
            return vec![];
        }
        let Some(q) = self.question(&id) else {
            return vec![];
        };
        let Some(key) = q.options.get(index).map(|o| o.key.clone()) else {
            return vec![];
        };
        let multi = q.multi;
        let a = self.answers.entry(id).or_default();
        if multi {
            if let Some(p) = a.selected.iter().position(|k| *k == key) {
                a.selected.remove(p);
                a.justifications.remove(&key);
            } else {
                a.selected.push(key);
            }
        } else {
            let keep = a.justifications.remove(&key);
            a.justifications.clear();
            if let Some(k) = keep {
                a.justifications.insert(key.clone(), k);
            }
            a.selected = vec![key];
        }
        a.skipped = false;
        self.focus = index;
        self.changed()
    }

    fn primary(&mut self) -> Vec<Effect> {
        if !self.path_current() {
            self.pending = Some(Pending::Primary);
            return vec![];
        }
        let Some(id) = self.position.clone() else {
            let first = self.path.first().cloned();
            return if first.is_some() {
                self.go(first)
            } else {
                vec![]
            };
        };
        if !self.is_answered(&id) {
            if self.question(&id).is_some_and(|q| q.options.is_empty()) {
                self.editing = true;
                self.base.caret = usize::MAX;
                return vec![];
            }
            self.base.alert = Some(self.base.t("s.unanswered").into());
            return vec![];
        }
        self.advance(&id)
    }

    /// Next page after `id`, or the submit on the last one.
    fn advance(&mut self, id: &str) -> Vec<Effect> {
        match self.path.iter().position(|p| p == id) {
            Some(i) if i + 1 < self.path.len() => {
                let next = self.path[i + 1].clone();
                self.go(Some(next))
            }
            _ => self.submit(),
        }
    }

    fn entry(&self, id: &str) -> Value {
        if let Some(b) = self.banked.get(id) {
            let mut e = json!({"id": id, "selected": b.selected});
            if !b.custom.trim().is_empty() {
                e["custom"] = json!(b.custom);
            }
            if b.skipped {
                e["skipped"] = json!(true);
            }
            return e;
        }
        let a = self.answers.get(id).cloned().unwrap_or_default();
        if a.substantive() {
            let mut e = json!({"id": id, "selected": a.selected});
            if !a.custom.trim().is_empty() {
                e["custom"] = json!(a.custom.trim());
            }
            let j: Map<String, Value> = a
                .selected
                .iter()
                .filter_map(|k| {
                    let v = a.justifications.get(k)?.as_str()?.trim();
                    (!v.is_empty()).then(|| (k.clone(), json!(v)))
                })
                .collect();
            if !j.is_empty() {
                e["justifications"] = Value::Object(j);
            }
            e
        } else if a.skipped {
            json!({"id": id, "selected": [], "skipped": true})
        } else {
            json!({"id": id, "selected": []})
        }
    }

    fn submit(&mut self) -> Vec<Effect> {
        let answers: Vec<Value> = self.path.iter().map(|id| self.entry(id)).collect();
        self.base
            .submit(json!({"answers": answers, "surface": "terminal"}))
    }

    fn bank(&mut self) -> Vec<Effect> {
        let Some(id) = self.position.clone() else {
            return vec![];
        };
        if !self.path_current() || self.banked.contains_key(&id) || !self.is_answered(&id) {
            return vec![];
        }
        let upto = self.path.iter().position(|p| *p == id).unwrap_or(0);
        let entries: Vec<Value> = self.path[..=upto]
            .iter()
            .filter(|q| {
                !self.banked.contains_key(*q)
                    && self
                        .answers
                        .get(*q)
                        .is_some_and(|a| a.substantive() || a.skipped)
            })
            .map(|q| self.entry(q))
            .collect();
        let mut e = self.save();
        e.push(Effect::Send(Request::post(
            self.base.url("bank"),
            json!({"answers": entries}),
            Purpose::Bank(self.base.id.clone()),
        )));
        for entry in &entries {
            if let Some(q) = entry["id"].as_str() {
                self.banked.insert(q.to_string(), answer_of(entry));
            }
        }
        e.extend(self.advance_no_submit(&id));
        e
    }

    fn advance_no_submit(&mut self, id: &str) -> Vec<Effect> {
        match self.path.iter().position(|p| p == id) {
            Some(i) if i + 1 < self.path.len() => {
                let next = self.path[i + 1].clone();
                self.go(Some(next))
            }
            _ => vec![],
        }
    }

    fn back(&mut self) -> Vec<Effect> {
        let Some(id) = self.position.clone() else {
            return vec![];
        };
        let i = self.path.iter().position(|p| *p == id).unwrap_or(0);
        let prev = if i == 0 {
            None
        } else {
            Some(self.path[i - 1].clone())
        };
        self.go(prev)
    }

    fn skip(&mut self) -> Vec<Effect> {
        let Some(id) = self.position.clone() else {
            return vec![];
        };
        if self.banked.contains_key(&id) {
            return vec![];
        }
        if self.question(&id).is_some_and(|q| !q.skippable) {
            self.base.alert = Some(self.base.t("s.notSkippable").into());
            return vec![];
        }
        self.answers.insert(
            id,
            Answer {
                skipped: true,
                ..Answer::default()
            },
        );
        self.pending = Some(Pending::Advance);
        self.changed()
    }

    pub fn key(&mut self, key: &KeyEvent) -> Vec<Effect> {
        if let Some(c) = &self.base.confirm {
            let pick = c.pick(key);
            if pick.is_some() {
                self.base.confirm = None;
            }
            return match pick {
                Some("cancel") => self.base.cancel(),
                Some("quick") => self.quick_path(),
                Some(action @ ("reroll" | "push" | "discuss")) => {
                    vec![Effect::Send(Request::post(
                        self.base.url("preflight"),
                        json!({"action": action}),
                        Purpose::Preflight(self.base.id.clone()),
                    ))]
                }
                _ => vec![],
            };
        }
        if let Some(k) = self.editing_why.clone() {
            return self.edit_why(&k, key);
        }
        if self.quick_mode && self.position.is_none() {
            return self.quick_key(key);
        }
        if self.editing {
            let Some(id) = self.position.clone() else {
                self.editing = false;
                return vec![];
            };
            let a = self.answers.entry(id).or_default();
            return match edit(&mut a.custom, &mut self.base.caret, key) {
                FieldKey::Changed => {
                    a.skipped = false;
                    vec![]
                }
                FieldKey::Leave => {
                    self.editing = false;
                    self.changed()
                }
                FieldKey::Ignored => vec![],
            };
        }
        if is_submit_chord(key) {
            return self.primary();
        }
        if !plain(key) || self.base.busy {
            return vec![];
        }
        let intro = self.position.is_none();
        match key.code {
            KeyCode::Enter => return self.primary(),
            KeyCode::Left | KeyCode::Backspace => return self.back(),
            KeyCode::Esc => {
                let mut e = self.save();
                e.push(Effect::Leave);
                return e;
            }
            KeyCode::Char('X') => {
                self.base.confirm = Some(Confirm::yes_no("s.cancelConfirm", "cancel"));
            }
            KeyCode::Char(c @ ('R' | 'P' | 'D')) if intro => {
                let tag = match c {
                    'R' => "reroll",
                    'P' => "push",
                    _ => "discuss",
                };
                self.base.confirm = Some(Confirm::yes_no("s.preflightConfirm", tag));
            }
            KeyCode::Char('Q') if intro => {
                if self.quick.is_empty() || !self.banked.is_empty() {
                    self.base.alert = Some(self.base.t("s.noQuick").into());
                } else {
                    self.quick_mode = true;
                    self.focus = 0;
                    return self.save();
                }
            }
            _ if intro => {}
            KeyCode::Char('S') => return self.skip(),
            KeyCode::Char('W') => return self.start_why(),
            KeyCode::Char('B') => return self.bank(),
            KeyCode::Up => self.focus = self.focus.saturating_sub(1),
            KeyCode::Down => {
                let rows = self.rows();
                if self.focus + 1 < rows {
                    self.focus += 1;
                }
            }
            KeyCode::Tab => self.start_editing(),
            KeyCode::Char(' ') => {
                let n = self.options_len();
                if self.focus < n {
                    return self.choose(self.focus);
                }
                self.start_editing();
            }
            KeyCode::Char(c) if c.is_ascii_lowercase() || c.is_ascii_digit() => {
                let id = self.position.clone().unwrap_or_default();
                let Some(q) = self.question(&id) else {
                    return vec![];
                };
                let by_key = q.options.iter().position(|o| o.key == c.to_string());
                let index = by_key.or_else(|| match c {
                    '1'..='9' => Some(c as usize - '1' as usize),
                    _ => None,
                });
                if let Some(i) = index {
                    return self.choose(i);
                }
            }
            _ => {}
        }
        vec![]
    }

    /// `W` on a chosen option: type its justification (the web wizard's "why").
    fn start_why(&mut self) -> Vec<Effect> {
        let Some(id) = self.position.clone() else {
            return vec![];
        };
        if self.banked.contains_key(&id) {
            return vec![];
        }
        let Some(key) = self
            .question(&id)
            .and_then(|q| q.options.get(self.focus))
            .map(|o| o.key.clone())
        else {
            return vec![];
        };
        if !self
            .answers
            .get(&id)
            .is_some_and(|a| a.selected.contains(&key))
        {
            self.base.alert = Some(self.base.t("s.whyChooseFirst").into());
            return vec![];
        }
        self.editing_why = Some(key);
        self.base.caret = usize::MAX;
        vec![]
    }

    fn edit_why(&mut self, key_of: &str, key: &KeyEvent) -> Vec<Effect> {
        let Some(id) = self.position.clone() else {
            self.editing_why = None;
            return vec![];
        };
        let a = self.answers.entry(id).or_default();
        let mut text = a
            .justifications
            .get(key_of)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let r = edit(&mut text, &mut self.base.caret, key);
        if text.chars().count() > WHY_MAX {
            text = text.chars().take(WHY_MAX).collect();
        }
        if text.is_empty() {
            a.justifications.remove(key_of);
        } else {
            a.justifications
                .insert(key_of.to_string(), Value::String(text));
        }
        match r {
            FieldKey::Leave => {
                self.editing_why = None;
                self.changed()
            }
            _ => vec![],
        }
    }

    /// The quick templates' page: a–f (the template's place) or ↑↓ focus, Enter asks to
    /// submit the focused one (its answers are on screen), Esc or ← goes back to the intro.
    fn quick_key(&mut self, key: &KeyEvent) -> Vec<Effect> {
        if !plain(key) || self.base.busy {
            return vec![];
        }
        match key.code {
            KeyCode::Esc | KeyCode::Left | KeyCode::Backspace => {
                self.quick_mode = false;
                self.focus = 0;
                return self.save();
            }
            KeyCode::Up => self.focus = self.focus.saturating_sub(1),
            KeyCode::Down if self.focus + 1 < self.quick.len() => self.focus += 1,
            KeyCode::Char(c @ 'a'..='f') => {
                let i = c as usize - 'a' as usize;
                if i < self.quick.len() {
                    self.focus = i;
                }
            }
            KeyCode::Enter | KeyCode::Char(' ') if self.focus < self.quick.len() => {
                self.base.confirm = Some(Confirm::yes_no("s.quickConfirm", "quick"));
            }
            _ => {}
        }
        vec![]
    }

    /// The template's answers as the path request's and the submit's answers.
    fn quick_answers(&self) -> Option<(String, Map<String, Value>)> {
        let t = self.quick.get(self.focus)?;
        let mut answers = Map::new();
        for (id, selected, custom) in &t.answers {
            if self.question(id).is_some() {
                answers.insert(
                    id.clone(),
                    json!({"selected": selected, "custom": custom, "skipped": false}),
                );
            }
        }
        Some((t.key.clone(), answers))
    }

    fn quick_path(&mut self) -> Vec<Effect> {
        let Some((key, answers)) = self.quick_answers() else {
            return vec![];
        };
        vec![Effect::Send(Request::post(
            self.base.url("path"),
            json!({"answers": answers}),
            Purpose::QuickPath {
                ask: self.base.id.clone(),
                key,
            },
        ))]
    }

    fn options_len(&self) -> usize {
        self.position
            .as_deref()
            .and_then(|p| self.question(p))
            .map_or(0, |q| q.options.len())
    }

    fn rows(&self) -> usize {
        let q = self.position.as_deref().and_then(|p| self.question(p));
        q.map_or(0, |q| q.options.len() + usize::from(q.allow_custom))
    }

    fn start_editing(&mut self) {
        let Some(id) = self.position.clone() else {
            return;
        };
        if self.banked.contains_key(&id) || !self.question(&id).is_some_and(|q| q.allow_custom) {
            return;
        }
        self.focus = self.options_len();
        self.editing = true;
        self.base.caret = usize::MAX;
    }

    pub fn reply(&mut self, reply: &Reply) -> Vec<Effect> {
        if let Some(e) = self.base.common_reply(reply) {
            return e;
        }
        match &reply.purpose {
            Purpose::Path { seq, .. } => {
                if *seq != self.seq {
                    return vec![];
                }
                if !reply.ok() {
                    self.base.fail(reply);
                    self.pending = None;
                    return vec![];
                }
                self.path = reply.body["path"]
                    .as_array()
                    .map(|p| {
                        p.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                let first_path = self.path_seq.is_none();
                self.path_seq = Some(*seq);
                let mut e = Vec::new();
                if first_path
                    && let Some(p) = self.saved_position.take()
                    && self.path.contains(&p)
                {
                    self.position = Some(p);
                }
                if let Some(p) = &self.position
                    && !self.path.contains(p)
                {
                    let open = self.path.iter().find(|id| !self.is_answered(id)).cloned();
                    self.position = open.or_else(|| self.path.last().cloned());
                }
                match self.pending.take() {
                    Some(Pending::Primary) => e.extend(self.primary()),
                    Some(Pending::Advance) => {
                        if let Some(id) = self.position.clone() {
                            e.extend(self.advance(&id));
                        }
                    }
                    None => {}
                }
                e
            }
            Purpose::QuickPath { key, .. } => {
                if !reply.ok() {
                    self.base.fail(reply);
                    return vec![];
                }
                let Some((_, answers)) = self.quick_answers() else {
                    return vec![];
                };
                let entries: Vec<Value> = reply.body["path"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|id| {
                        let a = answers.get(id).map(answer_of).unwrap_or_default();
                        let mut e = json!({"id": id, "selected": a.selected});
                        if !a.custom.trim().is_empty() {
                            e["custom"] = json!(a.custom.trim());
                        }
                        e
                    })
                    .collect();
                self.base
                    .submit(json!({"answers": entries, "quick": key, "surface": "terminal"}))
            }
            Purpose::Bank(_) => {
                if !reply.ok() {
                    self.base.fail(reply);
                }
                vec![]
            }
            Purpose::Preflight(_) => {
                if reply.ok() {
                    let outcome = reply.body["outcome"].as_str().unwrap_or("answered");
                    return vec![Effect::Settled {
                        outcome: outcome.to_string(),
                        mine: true,
                    }];
                }
                self.base.fail(reply);
                vec![]
            }
            _ => vec![],
        }
    }

    /// The quick templates, each with the answers it fills in; returns the focused line.
    fn render_quick(&self, lines: &mut Vec<Line<'static>>) -> usize {
        let t = |k| self.base.t(k);
        lines.push(Line::from(Span::styled(
            t("s.quickTitle"),
            Style::default().add_modifier(Modifier::BOLD),
        )));
        lines.push(Line::from(""));
        let mut focus_line = lines.len();
        for (i, tpl) in self.quick.iter().enumerate() {
            let focused = i == self.focus;
            if focused {
                focus_line = lines.len();
            }
            let letter = (b'a' + i as u8) as char;
            lines.push(Line::from(vec![
                Span::raw(cursor(focused)),
                Span::styled(
                    format!("{letter}  {}", markdown_line(&tpl.label)),
                    focus_style(focused),
                ),
            ]));
            if let Some(d) = &tpl.description {
                lines.extend(text_lines(
                    d,
                    "      ",
                    Style::default().fg(Color::DarkGray),
                ));
            }
            for (id, selected, custom) in &tpl.answers {
                let Some(q) = self.question(id) else {
                    continue;
                };
                let mut picks: Vec<String> = selected
                    .iter()
                    .map(|k| {
                        q.options
                            .iter()
                            .find(|o| o.key == *k)
                            .map_or_else(|| clean_line(k), |o| markdown_line(&o.label))
                    })
                    .collect();
                if !custom.trim().is_empty() {
                    picks.push(format!("“{}”", clean_line(custom.trim())));
                }
                lines.push(Line::from(Span::styled(
                    format!("      {} → {}", markdown_line(&q.prompt), picks.join(", ")),
                    Style::default().fg(Color::Gray),
                )));
            }
        }
        focus_line
    }

    /// The progress line: questions answered on the path, and banked ones.
    fn render_progress(&self, lines: &mut Vec<Line<'static>>) {
        let t = |k| self.base.t(k);
        let answered = self.path.iter().filter(|id| self.is_answered(id)).count();
        let banked = self.banked.len();
        let mut progress = format!("{answered}/{} {}", self.path.len(), t("s.progress"));
        if banked > 0 {
            progress.push_str(&format!(" · {banked} {}", t("s.banked")));
        }
        lines.push(Line::from(Span::styled(
            progress,
            Style::default().fg(Color::DarkGray),
        )));
    }

    /// The question's heading: its position, header and state, then its prompt and detail.
    fn render_heading(
        &self,
        q: &Question,
        index: usize,
        is_banked: bool,
        a: &Answer,
        lines: &mut Vec<Line<'static>>,
    ) {
        let t = |k| self.base.t(k);
        let mut top = vec![Span::styled(
            format!("[{}/{}] ", index + 1, self.path.len()),
            Style::default().fg(Color::DarkGray),
        )];
        if let Some(h) = &q.header {
            top.push(Span::styled(
                format!("{} ", clean_line(h)),
                Style::default().fg(Color::Cyan),
            ));
        }
        if is_banked {
            top.push(Span::styled(
                format!("({})", t("s.banked")),
                Style::default().fg(Color::Green),
            ));
        } else if a.skipped {
            top.push(Span::styled(
                format!("({})", t("s.skipped")),
                Style::default().fg(Color::DarkGray),
            ));
        }
        lines.push(Line::from(top));
        lines.extend(text_lines(
            &q.prompt,
            "",
            Style::default().add_modifier(Modifier::BOLD),
        ));
        if let Some(d) = &q.detail {
            lines.extend(text_lines(d, "  ", Style::default().fg(Color::Gray)));
        }
    }

    /// The options, each with its description and why-text; the focused option's line.
    fn render_options(&self, q: &Question, a: &Answer, lines: &mut Vec<Line<'static>>) -> usize {
        let t = |k| self.base.t(k);
        let mut focus_line = lines.len();
        for (i, o) in q.options.iter().enumerate() {
            let focused = i == self.focus && !self.editing;
            if i == self.focus {
                focus_line = lines.len();
            }
            let chosen = a.selected.contains(&o.key);
            let mark = match (q.multi, chosen) {
                (true, true) => "[x]",
                (true, false) => "[ ]",
                (false, true) => "(•)",
                (false, false) => "( )",
            };
            let star = if o.recommended { " ★" } else { "" };
            lines.push(Line::from(vec![
                Span::raw(cursor(focused)),
                Span::styled(
                    format!(
                        "{} {mark} {}{star}",
                        clean_line(&o.key),
                        markdown_line(&o.label)
                    ),
                    focus_style(focused),
                ),
            ]));
            if let Some(d) = &o.description {
                lines.extend(text_lines(
                    d,
                    "        ",
                    Style::default().fg(Color::DarkGray),
                ));
            }
            let typing = self.editing_why.as_deref() == Some(o.key.as_str());
            let why = a
                .justifications
                .get(&o.key)
                .and_then(Value::as_str)
                .unwrap_or_default();
            if chosen && (typing || !why.is_empty()) {
                lines.extend(field_line(
                    t("s.why"),
                    why,
                    typing.then_some(self.base.caret),
                    "        ",
                ));
            }
        }
        focus_line
    }

    /// The custom-answer field.
    fn render_custom(&self, q: &Question, a: &Answer, lines: &mut Vec<Line<'static>>) {
        let t = |k| self.base.t(k);
        let focused = self.focus == q.options.len();
        let mut field = field_line(
            t("q.other"),
            &a.custom,
            self.editing.then_some(self.base.caret),
            "",
        );
        if let Some(first) = field.first_mut() {
            first
                .spans
                .insert(0, Span::raw(cursor(focused && !self.editing)));
        }
        lines.extend(field);
    }

    pub fn render(&self, f: &mut Frame, area: Rect) {
        let t = |k| self.base.t(k);
        let mut lines: Vec<Line<'static>> = Vec::new();
        self.render_progress(&mut lines);
        lines.push(Line::from(""));
        if self.quick_mode && self.position.is_none() && !self.quick.is_empty() {
            let focus_line = self.render_quick(&mut lines);
            draw_screen(f, area, &self.base, lines, focus_line, "s.quickHint");
            return;
        }
        let Some(id) = self.position.clone() else {
            lines.push(Line::from(Span::styled(
                t("s.intro"),
                Style::default().add_modifier(Modifier::BOLD),
            )));
            lines.extend(text_lines(&self.intro, "  ", Style::default()));
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled(
                t("s.start"),
                Style::default().fg(Color::Green),
            )));
            draw_screen(f, area, &self.base, lines, 0, "s.introHint");
            return;
        };
        let Some(q) = self.question(&id) else {
            draw_screen(f, area, &self.base, lines, 0, "s.hint");
            return;
        };
        let index = self.path.iter().position(|p| *p == id).unwrap_or(0);
        let is_banked = self.banked.contains_key(&id);
        let a = self
            .banked
            .get(&id)
            .or_else(|| self.answers.get(&id))
            .cloned()
            .unwrap_or_default();
        self.render_heading(q, index, is_banked, &a, &mut lines);
        let focus_line = self.render_options(q, &a, &mut lines);
        if q.allow_custom {
            self.render_custom(q, &a, &mut lines);
        }
        lines.extend(error_lines(
            &self.base.errors_at(&format!("answers[{index}]")),
            "  ",
        ));
        lines.push(Line::from(""));
        let next = if index + 1 == self.path.len() {
            t("s.last")
        } else {
            t("s.next")
        };
        lines.push(Line::from(Span::styled(
            next,
            Style::default().fg(Color::Green),
        )));
        let hint = if self.editing() { "editing" } else { "s.hint" };
        draw_screen(f, area, &self.base, lines, focus_line, hint);
    }
}
