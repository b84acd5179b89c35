//! The question builder's rules (`survey.md` §10), pure: the draft file model (§10.2), the
//! edits of `survey_draft_set` (§10.4: stub-in, patch, structure), the checklist of
//! `survey_draft_get` (§10.5), the launch gate (§10.6) and the builder's error codes and
//! messages (§10.7).
//!
//! Everything works on `serde_json::Value` (member order preserved), because a draft is
//! half-written by definition: stubs, hand edits and missing fields must all be readable.
//! File I/O, locks, the manifest and the ask itself are the daemon's.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::model::SurveySpec;
use super::validate::validate;
use crate::json::Json;
use crate::problem::{Problem, is_blank, join_messages};

/// The `v` of a draft file.
pub const FILE_VERSION: u64 = 1;
/// Questions per `op=patch` call (§2.6).
pub const PATCH_MAX_QUESTIONS: usize = 3;
/// `structureQuestionCap`: default and bounds (§10.4). The cap is exclusive.
pub const STRUCTURE_CAP_DEFAULT: usize = 40;
pub const STRUCTURE_CAP_MIN: usize = 1;
pub const STRUCTURE_CAP_MAX: usize = 151;
/// The title `begin` gives a draft that names none.
pub const DEFAULT_TITLE: &str = "Draft survey";
/// The slug used when the title gives nothing (§10.2).
pub const SLUG_FALLBACK: &str = "draft";
/// Where drafts live inside a workspace, and below the data directory without one.
pub const WORKSPACE_DIR: &str = ".askd/survey-drafts";
pub const FALLBACK_DIR: &str = "survey-drafts/files";

/// The builder's error codes (§10.7).
pub mod codes {
    pub const MISSING: &str = "SURVEY_DRAFT_MISSING";
    pub const BAD_OP: &str = "SURVEY_DRAFT_BAD_OP";
    pub const BAD_FILE: &str = "SURVEY_DRAFT_BAD_FILE";
    pub const BAD_SPEC: &str = "SURVEY_DRAFT_BAD_SPEC";
    pub const INCOMPLETE: &str = "SURVEY_DRAFT_INCOMPLETE";
    pub const UNGROUNDED: &str = "SURVEY_DRAFT_UNGROUNDED";
    pub const STATE: &str = "SURVEY_DRAFT_STATE";
}

/// Question fields a patch overwrites and structure carries over.
const QUESTION_PROSE: &[&str] = &[
    "prompt",
    "header",
    "detail",
    "multiSelect",
    "allowCustom",
    "skippable",
];
/// Option fields structure carries over.
const OPTION_PROSE: &[&str] = &[
    "label",
    "description",
    "insight",
    "diagram",
    "sources",
    "recommended",
];

/// A refused builder operation: one of [`codes`], the message the agent reads, and the
/// §4 problems when the survey failed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftError {
    pub code: &'static str,
    pub message: String,
    pub errors: Vec<Problem>,
}

impl DraftError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        DraftError {
            code,
            message: message.into(),
            errors: Vec::new(),
        }
    }

    fn bad_op(message: impl Into<String>) -> Self {
        DraftError::new(codes::BAD_OP, message)
    }
}

impl std::fmt::Display for DraftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for DraftError {}

/// A draft's status (§10.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Building,
    Launched,
    Answered,
    Reopened,
    Discarded,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Building => "building",
            Status::Launched => "launched",
            Status::Answered => "answered",
            Status::Reopened => "reopened",
            Status::Discarded => "discarded",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "building" => Status::Building,
            "launched" => Status::Launched,
            "answered" => Status::Answered,
            "reopened" => Status::Reopened,
            "discarded" => Status::Discarded,
            _ => return None,
        })
    }

    /// The status a launched draft takes when its ask settles with `outcome` (§10.3):
    /// `answered`, or `reopened` for every other outcome.
    pub fn after_settle(outcome: &str) -> Status {
        if outcome == "answered" {
            Status::Answered
        } else {
            Status::Reopened
        }
    }
}

/// The grounding mode (§10.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grounding {
    #[default]
    Standard,
    Internal,
}

impl Grounding {
    pub fn as_str(self) -> &'static str {
        match self {
            Grounding::Standard => "standard",
            Grounding::Internal => "internal",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "standard" => Some(Grounding::Standard),
            "internal" => Some(Grounding::Internal),
            _ => None,
        }
    }
}

/// A `survey_draft_set` op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Begin,
    Patch,
    Structure,
    Discard,
    Reopen,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Begin => "begin",
            Op::Patch => "patch",
            Op::Structure => "structure",
            Op::Discard => "discard",
            Op::Reopen => "reopen",
        }
    }
}

// ---------------------------------------------------------------------------------------
// The draft file (§10.2)
// ---------------------------------------------------------------------------------------

/// A draft file's content.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftFile {
    pub slug: String,
    pub title: String,
    pub status: Status,
    pub session: String,
    pub created_at: String,
    pub updated_at: String,
    pub revision: u64,
    pub grounding: Grounding,
    pub ask_id: Option<String>,
    /// The graph: the normal form after askd's own writes, anything after a hand edit.
    pub survey: Value,
}

impl DraftFile {
    /// The file text: members in the order of §10.2, 2-space indentation, a trailing
    /// newline.
    pub fn to_text(&self) -> String {
        let v = json!({
            "v": FILE_VERSION,
            "slug": self.slug,
            "title": self.title,
            "status": self.status.as_str(),
            "session": self.session,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "revision": self.revision,
            "grounding": self.grounding.as_str(),
            "askId": self.ask_id,
            "survey": self.survey,
        });
        let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a file's text; `None` when it "could not be read": unparseable, not an object,
    /// or `v` other than 1. Other members are read leniently (a hand edit may have broken
    /// them): `slug` defaults to `fallback_slug`, a missing or unknown status to
    /// `building`, a missing grounding to `standard`.
    pub fn parse(text: &str, fallback_slug: &str) -> Option<DraftFile> {
        let v: Value = serde_json::from_str(text).ok()?;
        let o = v.as_object()?;
        if o.get("v").and_then(Value::as_u64) != Some(FILE_VERSION) {
            return None;
        }
        let s = |name: &str| o.get(name).and_then(Value::as_str).map(str::to_string);
        Some(DraftFile {
            slug: s("slug").unwrap_or_else(|| fallback_slug.to_string()),
            title: s("title").unwrap_or_default(),
            status: s("status")
                .as_deref()
                .and_then(Status::parse)
                .unwrap_or(Status::Building),
            session: s("session").unwrap_or_default(),
            created_at: s("createdAt").unwrap_or_default(),
            updated_at: s("updatedAt").unwrap_or_default(),
            revision: o.get("revision").and_then(Value::as_u64).unwrap_or(0),
            grounding: s("grounding")
                .as_deref()
                .and_then(Grounding::parse)
                .unwrap_or_default(),
            ask_id: s("askId"),
            survey: o.get("survey").cloned().unwrap_or(Value::Null),
        })
    }

    /// The draft title to show: the file's `title`, else the survey's, else the default.
    pub fn display_title(&self) -> String {
        if !is_blank(&self.title) {
            return self.title.clone();
        }
        self.survey
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !is_blank(t))
            .unwrap_or(DEFAULT_TITLE)
            .to_string()
    }
}

/// Whether `s` is a slug askd could have made (§10.2, plus a `-n` collision suffix): only
/// such names are ever joined to a directory.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The first free slug: `base`, then `base-2`, `base-3`, … while `taken` says so (§10.2
/// collisions).
pub fn free_slug(base: &str, mut taken: impl FnMut(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    let mut n = 2u64;
    loop {
        let candidate = format!("{base}-{n}");
        if !taken(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

/// The slug of a new draft titled `title` (§10.2).
pub fn base_slug(title: &str) -> String {
    super::records::slug(title, SLUG_FALLBACK)
}

// ---------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------

/// `op`, required.
pub fn parse_op(args: &Map<String, Value>) -> Result<Op, DraftError> {
    match args.get("op") {
        Some(Value::String(s)) => Ok(match s.as_str() {
            "begin" => Op::Begin,
            "patch" => Op::Patch,
            "structure" => Op::Structure,
            "discard" => Op::Discard,
            "reopen" => Op::Reopen,
            other => {
                return Err(DraftError::bad_op(format!(
                    "survey_draft_set received unknown op \"{other}\""
                )));
            }
        }),
        None | Some(Value::Null) => Err(DraftError::bad_op(
            "survey_draft_set requires op: begin, patch, structure, discard or reopen",
        )),
        Some(other) => Err(DraftError::bad_op(format!(
            "survey_draft_set received unknown op {other} — op is one of begin, patch, structure, discard, reopen"
        ))),
    }
}

/// `grounding`, when present.
pub fn parse_grounding(args: &Map<String, Value>) -> Result<Option<Grounding>, DraftError> {
    match args.get("grounding") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Grounding::parse(s).map(Some).ok_or_else(|| {
            DraftError::bad_op(format!(
                "grounding must be \"standard\" or \"internal\", got \"{s}\""
            ))
        }),
        Some(other) => Err(DraftError::bad_op(format!(
            "grounding must be \"standard\" or \"internal\", got {other}"
        ))),
    }
}

/// `slug`, when present: a string (any string; one askd never made simply names no draft).
pub fn parse_slug(args: &Map<String, Value>) -> Result<Option<String>, DraftError> {
    match args.get("slug") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(other) => Err(DraftError::bad_op(format!(
            "slug must be a string, got {other}"
        ))),
    }
}

/// `title`, when present and not blank.
pub fn parse_title(args: &Map<String, Value>) -> Result<Option<String>, DraftError> {
    match args.get("title") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if is_blank(s) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(DraftError::bad_op(format!(
            "title must be a string, got {other}"
        ))),
    }
}

/// `survey` for begin and structure: an object, or JSON text holding one (§3 step 5).
fn survey_arg(args: &Map<String, Value>, op: Op) -> Result<Map<String, Value>, DraftError> {
    let missing = || {
        DraftError::bad_op(format!(
            "survey_draft_set op={} requires survey {{entry, questions}}",
            op.as_str()
        ))
    };
    match args.get("survey") {
        None | Some(Value::Null) => Err(missing()),
        Some(Value::Object(o)) => Ok(o.clone()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(other) => Err(DraftError::bad_op(format!(
                "survey_draft_set op={}: the \"survey\" text parsed but is not a JSON object — got {}; send the survey as an object",
                op.as_str(),
                kind(&other)
            ))),
            Err(e) => Err(DraftError::bad_op(format!(
                "survey_draft_set op={}: the \"survey\" field arrived as a JSON text string, but the text failed to parse as JSON ({e}); send a smaller payload, or use file=",
                op.as_str()
            ))),
        },
        Some(other) => Err(DraftError::bad_op(format!(
            "survey_draft_set op={}: \"survey\" must be an object {{entry, questions}} — got {}",
            op.as_str(),
            kind(other)
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ---------------------------------------------------------------------------------------
// Edits (§10.4)
// ---------------------------------------------------------------------------------------

/// Stub-in (§10.4 step 3), in place: `null` fields go (except `next`) at the survey,
/// question and option levels; a missing or blank prompt becomes `TODO: prompt for ‹id›`,
/// a missing or blank option label `TODO: label ‹i+1›`; an absent survey title becomes
/// `draft_title`.
pub fn stub_in(survey: &mut Value, draft_title: &str) {
    let Some(s) = survey.as_object_mut() else {
        return;
    };
    s.retain(|k, v| k == "next" || !v.is_null());
    if !s.contains_key("title") {
        s.insert("title".into(), json!(draft_title));
    }
    let Some(questions) = s.get_mut("questions").and_then(Value::as_object_mut) else {
        return;
    };
    for (id, q) in questions.iter_mut() {
        let Some(q) = q.as_object_mut() else { continue };
        q.retain(|k, v| k == "next" || !v.is_null());
        let blank = match q.get("prompt") {
            None => true,
            Some(Value::String(p)) => is_blank(p),
            Some(_) => false,
        };
        if blank {
            q.insert("prompt".into(), json!(format!("TODO: prompt for {id}")));
        }
        let Some(options) = q.get_mut("options").and_then(Value::as_array_mut) else {
            continue;
        };
        for (i, o) in options.iter_mut().enumerate() {
            let Some(o) = o.as_object_mut() else { continue };
            o.retain(|k, v| k == "next" || !v.is_null());
            let blank = match o.get("label") {
                None => true,
                Some(Value::String(l)) => is_blank(l),
                Some(_) => false,
            };
            if blank {
                o.insert("label".into(), json!(format!("TODO: label {}", i + 1)));
            }
        }
    }
}

/// §10.4 step 4: the full §4 validation; success gives the normal form to store.
pub fn check(survey: &Value, op: Op) -> Result<Value, DraftError> {
    match validate(&Json::from_value(survey)) {
        Ok(spec) => Ok(serde_json::to_value(&spec).unwrap_or(Value::Null)),
        Err(problems) => Err(DraftError {
            code: codes::BAD_SPEC,
            message: format!(
                "survey_draft_set {} failed: invalid draft structure: {} (nothing was written — fix the reported fields and re-send)",
                op.as_str(),
                join_messages(&problems)
            ),
            errors: problems,
        }),
    }
}

/// What an edit produced: the survey to store (normal form) and the draft title, which is
/// the survey's title.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub survey: Value,
    pub title: String,
}

fn finish(mut survey: Value, draft_title: &str, op: Op) -> Result<Edited, DraftError> {
    stub_in(&mut survey, draft_title);
    let survey = check(&survey, op)?;
    let title = survey
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or(draft_title)
        .to_string();
    Ok(Edited { survey, title })
}

/// `op=begin`: the skeleton, stubbed in and validated. The title is the `title` argument,
/// else the survey's own, else [`DEFAULT_TITLE`]; a `title` argument also titles the survey.
pub fn begin(args: &Map<String, Value>) -> Result<Edited, DraftError> {
    let mut survey = survey_arg(args, Op::Begin)?;
    let title = match parse_title(args)? {
        Some(t) => {
            survey.insert("title".into(), json!(t));
            t
        }
        None => survey
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !is_blank(t))
            .unwrap_or(DEFAULT_TITLE)
            .to_string(),
    };
    finish(Value::Object(survey), &title, Op::Begin)
}

/// What a patch or structure edit needs to know about the stored draft.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub slug: &'a str,
    pub title: &'a str,
    pub status: Status,
    pub ask_id: Option<&'a str>,
    /// `structureQuestionCap`.
    pub cap: usize,
}

/// The refusal of an edit or discard of a launched draft (§10.7).
pub fn launched_refusal(slug: &str, ask_id: Option<&str>) -> DraftError {
    DraftError::new(
        codes::STATE,
        format!(
            "draft \"{slug}\" is launched and waiting for the user (ask {}) — wait for the result with await_answer before editing or discarding it",
            ask_id.unwrap_or("unknown")
        ),
    )
}

fn question_count(survey: &Value) -> usize {
    survey
        .get("questions")
        .and_then(Value::as_object)
        .map_or(0, Map::len)
}

/// Overwrites `target`'s members with `patch`'s, except `skip`; `null` deletes.
fn overwrite(target: &mut Map<String, Value>, patch: &Map<String, Value>, skip: &[&str]) {
    for (k, v) in patch {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if v.is_null() {
            target.shift_remove(k);
        } else {
            target.insert(k.clone(), v.clone());
        }
    }
}

/// `op=patch` (prose only): the refusals in the order of §10.4, then the merge by key or
/// index, stub-in and validation.
pub fn patch(stored: &Value, args: &Map<String, Value>, t: Target) -> Result<Edited, DraftError> {
    // 1. Nothing to do.
    if !["questions", "intro", "quick", "title", "grounding"]
        .iter()
        .any(|k| args.contains_key(*k))
    {
        return Err(DraftError::bad_op(
            "patch carries nothing — provide questions, intro, and/or quick",
        ));
    }
    // 2. At most three questions.
    let questions = match args.get("questions") {
        None | Some(Value::Null) => None,
        Some(Value::Object(q)) => Some(q),
        Some(other) => {
            return Err(DraftError::bad_op(format!(
                "questions must be an object of question id → question patch, got {}",
                kind(other)
            )));
        }
    };
    if let Some(q) = questions
        && q.len() > PATCH_MAX_QUESTIONS
    {
        return Err(DraftError::bad_op(format!(
            "patch carries {} questions — at most {PATCH_MAX_QUESTIONS} per call (keep each payload small)",
            q.len()
        )));
    }
    // 3–4. intro and quick types.
    let intro = args.get("intro");
    if intro.is_some_and(|v| !v.is_null() && !v.is_string()) {
        return Err(DraftError::bad_op(
            "intro must be a string (markdown first page)",
        ));
    }
    let quick = args.get("quick");
    if quick.is_some_and(|v| !v.is_null() && !v.is_array()) {
        return Err(DraftError::bad_op(
            "quick must be an array of template objects (same shape as ask_survey quick)",
        ));
    }
    let title = parse_title(args)?;
    // 5. State.
    if t.status == Status::Launched {
        return Err(launched_refusal(t.slug, t.ask_id));
    }
    let mut survey = stored.clone();
    if !survey.is_object() {
        survey = json!({});
    }
    let s = survey.as_object_mut().expect("an object");
    // 6. Known ids only.
    let stored_questions = stored.get("questions").and_then(Value::as_object);
    if let Some(q) = questions {
        for id in q.keys() {
            if !stored_questions.is_some_and(|sq| sq.contains_key(id)) {
                return Err(DraftError::bad_op(format!(
                    "patch names question \"{id}\" which does not exist in draft \"{}\" — add it via the structure op",
                    t.slug
                )));
            }
        }
    }
    let frozen = question_count(stored) >= t.cap;
    let rewire = |place: String| {
        let mut m = format!(
            "patch is prose-only — \"{place}.next\" would rewire the graph; rewire with op=structure"
        );
        if frozen {
            m.push_str(&format!(
                " (structure edits are frozen: the draft has {} questions and the cap is {} — content patches still work)",
                question_count(stored),
                t.cap
            ));
        }
        DraftError::bad_op(m)
    };
    if let Some(q) = questions {
        for (id, p) in q {
            let Some(p) = p.as_object() else {
                return Err(DraftError::bad_op(format!(
                    "patch for \"{id}\" must be an object of question fields, got {}",
                    kind(p)
                )));
            };
            let Some(target) = s
                .get_mut("questions")
                .and_then(Value::as_object_mut)
                .and_then(|qs| qs.get_mut(id))
                .and_then(Value::as_object_mut)
            else {
                return Err(DraftError::bad_op(format!(
                    "patch names question \"{id}\" which is not an object in draft \"{}\" — fix it via the structure op",
                    t.slug
                )));
            };
            if let Some(next) = p.get("next")
                && target.get("next") != Some(next)
            {
                return Err(rewire(id.clone()));
            }
            overwrite(target, p, &["next", "options"]);
            match p.get("options") {
                None => {}
                Some(Value::Null) => {
                    return Err(DraftError::bad_op(format!(
                        "patch for \"{id}\": options cannot be deleted by a patch — remove options with op=structure"
                    )));
                }
                Some(Value::Array(entries)) => merge_options(id, target, entries, &rewire)?,
                Some(other) => {
                    return Err(DraftError::bad_op(format!(
                        "patch for \"{id}\": options must be an array of option objects, got {}",
                        kind(other)
                    )));
                }
            }
        }
    }
    match intro {
        Some(Value::Null) => {
            s.shift_remove("intro");
        }
        Some(v) => {
            s.insert("intro".into(), v.clone());
        }
        None => {}
    }
    match quick {
        Some(Value::Null) => {
            s.shift_remove("quick");
        }
        Some(v) => {
            s.insert("quick".into(), v.clone());
        }
        None => {}
    }
    if let Some(title) = &title {
        s.insert("title".into(), json!(title));
    }
    let draft_title = title.as_deref().unwrap_or(t.title);
    finish(survey, draft_title, Op::Patch)
}

/// The option merge of a patch: by key when every entry has one, by index when none has.
fn merge_options(
    id: &str,
    question: &mut Map<String, Value>,
    entries: &[Value],
    rewire: &dyn Fn(String) -> DraftError,
) -> Result<(), DraftError> {
    let mut objects = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        match e.as_object() {
            Some(o) => objects.push(o),
            None => {
                return Err(DraftError::bad_op(format!(
                    "patch for \"{id}\": options[{i}] must be an object"
                )));
            }
        }
    }
    let keyed = objects
        .iter()
        .filter(|o| o.get("key").is_some_and(|k| !k.is_null()))
        .count();
    if keyed != 0 && keyed != objects.len() {
        return Err(DraftError::bad_op(format!(
            "patch for \"{id}\" mixes keyed and keyless option entries — give every entry its key"
        )));
    }
    let mut list: Vec<Value> = question
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, entry) in objects.into_iter().enumerate() {
        let at = if keyed > 0 {
            let key = &entry["key"];
            list.iter().position(|o| o.get("key") == Some(key))
        } else {
            (i < list.len()).then_some(i)
        };
        match at {
            Some(at) => {
                let slot = &mut list[at];
                if !slot.is_object() {
                    *slot = json!({});
                }
                let target = slot.as_object_mut().expect("an object");
                if let Some(next) = entry.get("next")
                    && target.get("next") != Some(next)
                {
                    return Err(rewire(format!("{id}.options[{at}]")));
                }
                overwrite(target, entry, &["next", "key"]);
            }
            None => {
                if entry.contains_key("next") {
                    return Err(rewire(format!("{id}.options[{}]", list.len())));
                }
                let mut fresh = Map::new();
                overwrite(&mut fresh, entry, &[]);
                list.push(Value::Object(fresh));
            }
        }
    }
    question.insert("options".into(), Value::Array(list));
    Ok(())
}

/// `op=structure`: the whole graph replaced under the exclusive cap, with prose carried
/// over by question id and option key; `intro` and `quick` kept when absent.
pub fn structure(
    stored: &Value,
    args: &Map<String, Value>,
    t: Target,
) -> Result<Edited, DraftError> {
    let incoming = survey_arg(args, Op::Structure)?;
    let n = incoming
        .get("questions")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    if n >= t.cap {
        return Err(DraftError::bad_op(format!(
            "structure refused: the incoming graph has {n} questions and the cap is {} (drafts freeze for structure edits at the cap) — content patches continue to work",
            t.cap
        )));
    }
    if t.status == Status::Launched {
        return Err(launched_refusal(t.slug, t.ask_id));
    }
    let title = parse_title(args)?;
    let mut survey = incoming;
    for member in ["title", "intro", "quick"] {
        if !survey.contains_key(member)
            && let Some(v) = stored.get(member)
        {
            survey.insert(member.into(), v.clone());
        }
    }
    if let Some(title) = &title {
        survey.insert("title".into(), json!(title));
    }
    let stored_questions = stored.get("questions").and_then(Value::as_object);
    if let (Some(qs), Some(old_qs)) = (
        survey.get_mut("questions").and_then(Value::as_object_mut),
        stored_questions,
    ) {
        for (id, q) in qs.iter_mut() {
            let (Some(q), Some(old)) =
                (q.as_object_mut(), old_qs.get(id).and_then(Value::as_object))
            else {
                continue;
            };
            carry(q, old, QUESTION_PROSE);
            let old_options = old.get("options").and_then(Value::as_array);
            let (Some(options), Some(old_options)) = (
                q.get_mut("options").and_then(Value::as_array_mut),
                old_options,
            ) else {
                continue;
            };
            for o in options.iter_mut().filter_map(Value::as_object_mut) {
                let Some(key) = o.get("key").filter(|k| k.is_string()) else {
                    continue;
                };
                if let Some(old_o) = old_options
                    .iter()
                    .filter_map(Value::as_object)
                    .find(|old_o| old_o.get("key") == Some(key))
                {
                    carry(o, old_o, OPTION_PROSE);
                }
            }
        }
    }
    let draft_title = title.as_deref().unwrap_or(t.title);
    finish(Value::Object(survey), draft_title, Op::Structure)
}

/// Copies `fields` the incoming object omits (absent, not `null`) from the stored one.
fn carry(into: &mut Map<String, Value>, from: &Map<String, Value>, fields: &[&str]) {
    for f in fields {
        if !into.contains_key(*f)
            && let Some(v) = from.get(*f)
        {
            into.insert((*f).to_string(), v.clone());
        }
    }
}

// ---------------------------------------------------------------------------------------
// The checklist (§10.5)
// ---------------------------------------------------------------------------------------

/// Whether text starts with the `TODO` marker: after leading whitespace, `TODO` followed by
/// `:`, whitespace or the end (case-sensitive).
pub fn is_marked(s: &str) -> bool {
    let Some(rest) = s.trim_start().strip_prefix("TODO") else {
        return false;
    };
    match rest.chars().next() {
        None => true,
        Some(c) => c == ':' || c.is_whitespace(),
    }
}

/// The stub rule: not a string, blank, or marked.
pub fn is_stub(v: Option<&Value>) -> bool {
    match v {
        Some(Value::String(s)) => is_blank(s) || is_marked(s),
        _ => true,
    }
}

/// An optional field counts only when it is present, non-blank and marked.
fn optional_marked(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(s)) if !is_blank(s) && is_marked(s))
}

fn has_source(o: &Value) -> bool {
    o.get("sources")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|x| x.as_str().is_some_and(|x| !is_blank(x))))
}

/// One question's gaps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub id: String,
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub questions: usize,
    pub complete: usize,
    pub missing_fields: usize,
}

/// The required-field checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completeness {
    pub ready: bool,
    pub totals: Totals,
    pub incomplete: Vec<Gap>,
    pub survey_level: Vec<String>,
}

fn questions_of(survey: &Value) -> impl Iterator<Item = (&String, &Value)> {
    survey
        .get("questions")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|q| q.iter())
}

fn options_of(q: &Value) -> &[Value] {
    q.get("options")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// §10.5 completeness, over whatever the file holds.
pub fn completeness(survey: &Value) -> Completeness {
    let mut incomplete = Vec::new();
    let mut questions = 0;
    let mut missing_fields = 0;
    for (id, q) in questions_of(survey) {
        questions += 1;
        let mut missing = Vec::new();
        if is_stub(q.get("prompt")) {
            missing.push("prompt".to_string());
        }
        let options = options_of(q);
        if options.is_empty() {
            missing.push("options: none declared".to_string());
        }
        for (i, o) in options.iter().enumerate() {
            for f in ["label", "description", "insight"] {
                if is_stub(o.get(f)) {
                    missing.push(format!("options[{i}].{f}"));
                }
            }
            if !has_source(o) {
                missing.push(format!("options[{i}].sources"));
            }
        }
        for f in ["header", "detail"] {
            if optional_marked(q.get(f)) {
                missing.push(f.to_string());
            }
        }
        for (i, o) in options.iter().enumerate() {
            if optional_marked(o.get("diagram")) {
                missing.push(format!("options[{i}].diagram"));
            }
        }
        if !missing.is_empty() {
            missing_fields += missing.len();
            incomplete.push(Gap {
                id: id.clone(),
                missing,
            });
        }
    }
    let mut survey_level = Vec::new();
    for f in ["title", "intro"] {
        if optional_marked(survey.get(f)) {
            survey_level.push(f.to_string());
        }
    }
    if let Some(quick) = survey.get("quick").and_then(Value::as_array) {
        for (t, tpl) in quick.iter().enumerate() {
            if is_stub(tpl.get("label")) {
                survey_level.push(format!("quick[{t}].label"));
            }
            for f in ["description", "insight"] {
                if optional_marked(tpl.get(f)) {
                    survey_level.push(format!("quick[{t}].{f}"));
                }
            }
        }
    }
    missing_fields += survey_level.len();
    let complete = questions - incomplete.len();
    Completeness {
        ready: questions > 0 && incomplete.is_empty() && survey_level.is_empty(),
        totals: Totals {
            questions,
            complete,
            missing_fields,
        },
        incomplete,
        survey_level,
    }
}

/// The grounding check of §10.5.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroundingReport {
    pub ready: bool,
    pub mode: Grounding,
    pub gaps: Vec<Gap>,
}

/// The gap text of a question whose options cite no path or URL (standard mode).
pub const COMPARISON_GAP: &str =
    "comparison: no option cites a file path or URL — name where the comparison target lives";

pub fn grounding(survey: &Value, mode: Grounding) -> GroundingReport {
    let mut gaps = Vec::new();
    for (id, q) in questions_of(survey) {
        let options = options_of(q);
        let mut missing = Vec::new();
        for (i, o) in options.iter().enumerate() {
            if !has_source(o) {
                missing.push(format!("options[{i}].sources"));
            }
        }
        let cites_location = options.iter().any(|o| {
            o.get("sources").and_then(Value::as_array).is_some_and(|s| {
                s.iter()
                    .filter_map(Value::as_str)
                    .any(|x| x.contains(['/', '\\']))
            })
        });
        if mode == Grounding::Standard && !options.is_empty() && !cites_location {
            missing.push(COMPARISON_GAP.to_string());
        }
        if !missing.is_empty() {
            gaps.push(Gap {
                id: id.clone(),
                missing,
            });
        }
    }
    GroundingReport {
        ready: gaps.is_empty(),
        mode,
        gaps,
    }
}

/// §4 on the current file: `{ok, errors}`.
pub fn validation(survey: &Value) -> (bool, Vec<Problem>) {
    match validate(&Json::from_value(survey)) {
        Ok(_) => (true, Vec::new()),
        Err(p) => (false, p),
    }
}

/// The manifest's `ready`: the launch gate would pass (valid, complete, grounded).
pub fn launchable(survey: &Value, mode: Grounding) -> bool {
    validation(survey).0 && completeness(survey).ready && grounding(survey, mode).ready
}

// ---------------------------------------------------------------------------------------
// The launch gate (§10.6)
// ---------------------------------------------------------------------------------------

/// What step 2 of the gate decided from the draft's status.
#[derive(Debug, Clone, PartialEq)]
pub enum LaunchState {
    /// `launched` with a pending ask: wait on it again.
    Attach,
    /// `building` or `reopened`: run the gate.
    Gate,
}

/// Step 2 (status). `launched` attaches only when the ask is still pending (`pending`);
/// the daemon applies a missed settle transition before asking.
pub fn launch_state(
    status: Status,
    slug: &str,
    ask_id: Option<&str>,
    pending: bool,
) -> Result<LaunchState, DraftError> {
    match status {
        Status::Launched if pending => Ok(LaunchState::Attach),
        Status::Launched | Status::Building | Status::Reopened => Ok(LaunchState::Gate),
        Status::Answered => Err(DraftError::new(
            codes::STATE,
            format!(
                "survey_draft_launch refused — draft \"{slug}\" was already answered (ask {}); patch it to launch a revised version",
                ask_id.unwrap_or("unknown")
            ),
        )),
        Status::Discarded => Err(DraftError::new(
            codes::STATE,
            format!(
                "survey_draft_launch refused — draft \"{slug}\" is discarded; patch it to revive it, or begin a new draft"
            ),
        )),
    }
}

fn gap_lines(gaps: &[Gap]) -> String {
    let mut out = String::new();
    for g in gaps {
        out.push_str(&format!("\n- {}: {}", g.id, g.missing.join(", ")));
    }
    out
}

/// Steps 3–5: valid, complete, grounded. Success gives the normal form to ask.
pub fn launch_gate(survey: &Value, mode: Grounding) -> Result<SurveySpec, DraftError> {
    let spec = validate(&Json::from_value(survey)).map_err(|problems| DraftError {
        code: codes::BAD_SPEC,
        message: format!(
            "survey_draft_launch blocked — fix the structure first (op=structure): {}",
            join_messages(&problems)
        ),
        errors: problems,
    })?;
    let c = completeness(survey);
    if !c.ready {
        let mut message = String::from(
            "survey_draft_launch blocked — required fields still missing. Fix them with survey_draft_set op=patch, then relaunch:",
        );
        message.push_str(&gap_lines(&c.incomplete));
        if !c.survey_level.is_empty() {
            message.push_str(&format!("\n- survey: {}", c.survey_level.join(", ")));
        }
        return Err(DraftError::new(codes::INCOMPLETE, message));
    }
    let g = grounding(survey, mode);
    if !g.ready {
        let mut message = String::from(
            "survey_draft_launch blocked by the grounding bar — every option needs a source, and one option per question must cite where its comparison target lives (file path or URL). Fix with survey_draft_set op=patch, then relaunch:",
        );
        message.push_str(&gap_lines(&g.gaps));
        return Err(DraftError::new(codes::UNGROUNDED, message));
    }
    Ok(spec)
}

/// The builder note appended to a pre-flight or superseded instruction of a launched
/// draft (§10.6).
pub fn reopened_note(slug: &str) -> String {
    format!(
        " This survey was launched from the builder draft \"{slug}\", which is now reopened: when you revise it, re-enter the builder loop for this slug (survey_draft_set op=patch, or op=structure while the graph is under the cap, then survey_draft_get, then survey_draft_launch) rather than one-shot a new ask_survey."
    )
}

/// Shapes a launched ask's result for `survey_draft_launch` (§10.6 results): `answered`
/// and `pending` gain `draft`; pre-flight and superseded gain `draft`, `draftReopened` and
/// the builder note; cancelled and aborted errors gain `draft` and `draftReopened`.
pub fn launch_result(mut result: Value, slug: &str) -> Value {
    let Some(o) = result.as_object_mut() else {
        return result;
    };
    let outcome = o
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    match outcome.as_str() {
        "answered" | "pending" => {
            o.insert("draft".into(), json!(slug));
        }
        "reroll" | "push" | "discuss" | "superseded" => {
            if let Some(Value::String(i)) = o.get_mut("instruction") {
                i.push_str(&reopened_note(slug));
            }
            o.insert("draft".into(), json!(slug));
            o.insert("draftReopened".into(), json!(true));
        }
        _ => {
            if let Some(e) = o.get_mut("error").and_then(Value::as_object_mut) {
                e.insert("draft".into(), json!(slug));
                e.insert("draftReopened".into(), json!(true));
            } else {
                o.insert("draft".into(), json!(slug));
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn keys5() -> Value {
        json!([{"key": "a"}, {"key": "b"}, {"key": "c"}, {"key": "d"}, {"key": "e"}])
    }

    /// A two-question skeleton: q1 branches to q2 on `a`, keys only.
    fn skeleton() -> Value {
        json!({"entry": "q1", "questions": {
            "q1": {"options": [{"key": "a", "next": "q2"}, {"key": "b"}, {"key": "c"}, {"key": "d"}, {"key": "e", "next": null}]},
            "q2": {"prompt": "TODO: stance", "options": keys5()}
        }})
    }

    fn target<'a>(slug: &'a str) -> Target<'a> {
        Target {
            slug,
            title: "Draft survey",
            status: Status::Building,
            ask_id: None,
            cap: 40,
        }
    }

    fn full_option(key: &str, source: &str) -> Value {
        json!({"key": key, "label": format!("Option {key}"), "description": "One sentence.",
               "insight": "- **Promise** — a.\n- **Price** — b.\n- **Present** — c.",
               "sources": [source]})
    }

    fn full_question(prompt: &str) -> Value {
        json!({"prompt": prompt, "options": [
            full_option("a", "docs/a.md"), full_option("b", "Vendor page"), full_option("c", "x"),
            full_option("d", "y"), full_option("e", "z")]})
    }

    fn begun() -> Value {
        begin(&args(
            json!({"title": "API Deprecation Survey", "survey": skeleton()}),
        ))
        .unwrap()
        .survey
    }

    // --- file model --------------------------------------------------------------------

    #[test]
    fn file_text_has_the_members_in_order_pretty_with_a_newline() {
        let f = DraftFile {
            slug: "s".into(),
            title: "T".into(),
            status: Status::Building,
            session: "sess".into(),
            created_at: "2026-11-29T22:47:00Z".into(),
            updated_at: "2026-11-29T23:05:12Z".into(),
            revision: 0,
            grounding: Grounding::Standard,
            ask_id: None,
            survey: json!({"title": "T", "entry": "q1", "questions": {}}),
        };
        let text = f.to_text();
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
        assert!(
            text.starts_with("{\n  \"v\": 1,\n  \"slug\": \"s\",\n"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "v",
                "slug",
                "title",
                "status",
                "session",
                "createdAt",
                "updatedAt",
                "revision",
                "grounding",
                "askId",
                "survey"
            ]
        );
        assert_eq!(v["askId"], Value::Null);
        assert_eq!(DraftFile::parse(&text, "x"), Some(f));
    }

    #[test]
    fn unreadable_files() {
        assert_eq!(DraftFile::parse("{", "x"), None);
        assert_eq!(DraftFile::parse("[]", "x"), None);
        assert_eq!(DraftFile::parse(r#"{"v": 2, "survey": {}}"#, "x"), None);
        assert_eq!(DraftFile::parse(r#"{"survey": {}}"#, "x"), None);
        let lenient = DraftFile::parse(r#"{"v": 1, "status": "weird"}"#, "x").unwrap();
        assert_eq!(lenient.slug, "x");
        assert_eq!(lenient.status, Status::Building);
        assert_eq!(lenient.display_title(), DEFAULT_TITLE);
    }

    #[test]
    fn slugs_and_collisions() {
        assert_eq!(
            base_slug("Question Builder — design lock!"),
            "question-builder-design-lock"
        );
        assert_eq!(base_slug(""), "draft");
        assert_eq!(base_slug("全部中文"), "draft");
        let taken = ["a", "a-2"];
        assert_eq!(free_slug("a", |s| taken.contains(&s)), "a-3");
        assert_eq!(free_slug("b", |s| taken.contains(&s)), "b");
        assert!(is_slug("api-survey-2"));
        for bad in ["", "../x", "A", "a/b", "-a", "a-", "a.json"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }

    // --- arguments ---------------------------------------------------------------------

    #[test]
    fn ops_and_grounding_parse() {
        assert_eq!(parse_op(&args(json!({"op": "patch"}))).unwrap(), Op::Patch);
        let e = parse_op(&args(json!({"op": "merge"}))).unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(e.message, "survey_draft_set received unknown op \"merge\"");
        assert_eq!(parse_op(&args(json!({}))).unwrap_err().code, codes::BAD_OP);
        assert_eq!(
            parse_grounding(&args(json!({"grounding": "internal"}))).unwrap(),
            Some(Grounding::Internal)
        );
        assert!(parse_grounding(&args(json!({"grounding": "loose"}))).is_err());
        assert_eq!(parse_grounding(&args(json!({}))).unwrap(), None);
    }

    // --- stub-in and begin -------------------------------------------------------------

    #[test]
    fn stub_in_fills_prompts_labels_and_title_and_drops_nulls_except_next() {
        let mut s = json!({"intro": null, "entry": "q1", "questions": {
            "q1": {"prompt": "  ", "header": null, "next": null,
                   "options": [{"key": "a", "label": "", "description": null, "next": null}, {"key": "b"}]}
        }});
        stub_in(&mut s, "My draft");
        assert_eq!(
            s,
            json!({"entry": "q1", "questions": {
                "q1": {"prompt": "TODO: prompt for q1", "next": null,
                       "options": [{"key": "a", "label": "TODO: label 1", "next": null},
                                   {"key": "b", "label": "TODO: label 2"}]}
            }, "title": "My draft"})
        );
        // A present title is kept.
        let mut t = json!({"title": "Own", "entry": "q", "questions": {}});
        stub_in(&mut t, "Draft");
        assert_eq!(t["title"], "Own");
    }

    #[test]
    fn begin_stubs_validates_and_titles() {
        let e = begin(&args(
            json!({"survey": skeleton(), "title": "API Deprecation Survey"}),
        ))
        .unwrap();
        assert_eq!(e.title, "API Deprecation Survey");
        assert_eq!(e.survey["title"], "API Deprecation Survey");
        assert_eq!(e.survey["questions"]["q1"]["prompt"], "TODO: prompt for q1");
        assert_eq!(
            e.survey["questions"]["q1"]["options"][4]["next"],
            Value::Null
        );
        assert!(
            e.survey["questions"]["q1"]["options"][4]
                .as_object()
                .unwrap()
                .contains_key("next"),
            "next: null is kept as written"
        );
        // Default title.
        let d = begin(&args(json!({"survey": skeleton()}))).unwrap();
        assert_eq!(d.title, DEFAULT_TITLE);
        // The survey as JSON text (§3 step 5).
        let text = begin(&args(json!({"survey": skeleton().to_string()}))).unwrap();
        assert_eq!(text.survey, d.survey);
    }

    #[test]
    fn begin_requires_a_survey_and_validates_in_full() {
        let e = begin(&args(json!({"title": "x"}))).unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(
            e.message,
            "survey_draft_set op=begin requires survey {entry, questions}"
        );
        // Fewer than five options fails §4.
        let e = begin(&args(json!({"survey": {"entry": "q1", "questions": {
            "q1": {"options": [{"key": "a"}]}}}})))
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_SPEC);
        assert!(
            e.message
                .starts_with("survey_draft_set begin failed: invalid draft structure: ")
        );
        assert!(
            e.message
                .ends_with("(nothing was written — fix the reported fields and re-send)")
        );
        assert!(!e.errors.is_empty());
    }

    // --- patch -------------------------------------------------------------------------

    #[test]
    fn patch_refusals_in_order() {
        let stored = begun();
        let t = target("api");
        let msg = |a: Value| patch(&stored, &args(a), t).unwrap_err();
        let e = msg(json!({"op": "patch"}));
        assert_eq!(
            e.message,
            "patch carries nothing — provide questions, intro, and/or quick"
        );
        let e = msg(json!({"questions": {"q1": {}, "q2": {}, "q3": {}, "q4": {}}}));
        assert_eq!(
            e.message,
            "patch carries 4 questions — at most 3 per call (keep each payload small)"
        );
        assert_eq!(
            msg(json!({"intro": 3})).message,
            "intro must be a string (markdown first page)"
        );
        assert_eq!(
            msg(json!({"quick": {}})).message,
            "quick must be an array of template objects (same shape as ask_survey quick)"
        );
        let launched = Target {
            status: Status::Launched,
            ask_id: Some("A1"),
            ..t
        };
        let e = patch(&stored, &args(json!({"intro": "x"})), launched).unwrap_err();
        assert_eq!(e.code, codes::STATE);
        assert_eq!(
            e.message,
            "draft \"api\" is launched and waiting for the user (ask A1) — wait for the result with await_answer before editing or discarding it"
        );
        let e = msg(json!({"questions": {"q9": {"prompt": "x"}}}));
        assert_eq!(
            e.message,
            "patch names question \"q9\" which does not exist in draft \"api\" — add it via the structure op"
        );
        // Every refusal is BAD_OP except the state.
        assert_eq!(msg(json!({"quick": 1})).code, codes::BAD_OP);
    }

    #[test]
    fn patch_merges_by_key_wherever_the_option_sits_and_appends_unknown_keys() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(
                json!({"questions": {"q1": {"prompt": "Which path?", "options": [
                    {"key": "c", "label": "Third", "sources": ["a/b.md"]},
                    {"key": "a", "description": "First one."},
                    {"key": "f", "label": "Sixth"}
                ]}}}),
            ),
            target("api"),
        )
        .unwrap();
        let q1 = &e.survey["questions"]["q1"];
        assert_eq!(q1["prompt"], "Which path?");
        assert_eq!(q1["options"][2]["label"], "Third");
        assert_eq!(q1["options"][2]["sources"], json!(["a/b.md"]));
        assert_eq!(q1["options"][0]["description"], "First one.");
        assert_eq!(q1["options"][0]["next"], "q2", "wiring untouched");
        assert_eq!(q1["options"][5]["key"], "f");
        assert_eq!(q1["options"][5]["label"], "Sixth");
        assert_eq!(q1["options"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn patch_merges_by_index_over_the_longer_list() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"options": [
                {"label": "Zero"}, {"label": "One", "insight": "x"}
            ]}}})),
            target("api"),
        )
        .unwrap();
        let opts = e.survey["questions"]["q2"]["options"].as_array().unwrap();
        assert_eq!(opts.len(), 5, "a shorter patch leaves the tail");
        assert_eq!(opts[0]["label"], "Zero");
        assert_eq!(opts[0]["key"], "a");
        assert_eq!(opts[1]["insight"], "x");
        assert_eq!(opts[4]["label"], "TODO: label 5");
    }

    #[test]
    fn patch_null_deletes_and_sources_replace() {
        let mut stored = begun();
        stored["questions"]["q2"]["header"] = json!("Chip");
        stored["questions"]["q2"]["options"][0]["sources"] = json!(["one", "two"]);
        stored["questions"]["q2"]["options"][0]["description"] = json!("Desc.");
        stored["intro"] = json!("Old intro");
        let e = patch(
            &stored,
            &args(
                json!({"intro": null, "questions": {"q2": {"header": null, "prompt": null,
                "options": [{"key": "a", "sources": ["three"], "description": null}]}}}),
            ),
            target("api"),
        )
        .unwrap();
        let q2 = &e.survey["questions"]["q2"];
        assert!(q2.get("header").is_none());
        assert_eq!(
            q2["prompt"], "TODO: prompt for q2",
            "a deleted prompt is stubbed"
        );
        assert_eq!(q2["options"][0]["sources"], json!(["three"]));
        assert!(q2["options"][0].get("description").is_none());
        assert!(e.survey.get("intro").is_none());
    }

    #[test]
    fn patch_keeps_an_equal_next_and_refuses_a_rewire() {
        let stored = begun();
        // Equal values are no-ops, including `next: null` as written.
        patch(
            &stored,
            &args(json!({"questions": {"q1": {"options": [
                {"key": "a", "next": "q2"}, {"key": "e", "next": null}]}}})),
            target("api"),
        )
        .unwrap();
        let e = patch(
            &stored,
            &args(json!({"questions": {"q1": {"options": [{"key": "b", "next": "q2"}]}}})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(
            e.message,
            "patch is prose-only — \"q1.options[1].next\" would rewire the graph; rewire with op=structure"
        );
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"next": "q1"}}})),
            target("api"),
        )
        .unwrap_err();
        assert!(
            e.message.contains("\"q2.next\" would rewire"),
            "{}",
            e.message
        );
        // An appended option must not carry a next.
        let e = patch(
            &stored,
            &args(json!({"questions": {"q1": {"options": [{"key": "z", "next": null}]}}})),
            target("api"),
        )
        .unwrap_err();
        assert!(
            e.message.contains("\"q1.options[5].next\""),
            "{}",
            e.message
        );
        // At the cap the message says structure is frozen.
        let frozen = Target {
            cap: 2,
            ..target("api")
        };
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"next": "q1"}}})),
            frozen,
        )
        .unwrap_err();
        assert!(e.message.ends_with(
            " (structure edits are frozen: the draft has 2 questions and the cap is 2 — content patches still work)"
        ), "{}", e.message);
    }

    #[test]
    fn patch_refuses_mixed_and_non_object_option_entries() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"options": [{"key": "a"}, {"label": "x"}]}}})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "patch for \"q2\" mixes keyed and keyless option entries — give every entry its key"
        );
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"options": [{"key": "a"}, 3]}}})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(e.message, "patch for \"q2\": options[1] must be an object");
    }

    #[test]
    fn patch_sets_intro_quick_title_and_checks_quick_coverage_at_once() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(json!({"title": "Renamed", "intro": "Why now."})),
            target("api"),
        )
        .unwrap();
        assert_eq!(e.title, "Renamed");
        assert_eq!(e.survey["title"], "Renamed");
        assert_eq!(e.survey["intro"], "Why now.");
        // A template that misses a reached question fails coverage now, not at launch.
        let e = patch(
            &stored,
            &args(json!({"quick": [{"key": "a", "label": "All in",
                "answers": {"q1": {"selected": ["a"]}}}]})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_SPEC);
        let ok = patch(
            &stored,
            &args(json!({"quick": [{"key": "a", "label": "All in",
                "answers": {"q1": {"selected": ["a"]}, "q2": {"selected": ["b"]}}}]})),
            target("api"),
        )
        .unwrap();
        assert_eq!(ok.survey["quick"][0]["key"], "a");
        let gone = patch(&ok.survey, &args(json!({"quick": null})), target("api")).unwrap();
        assert!(gone.survey.get("quick").is_none());
    }

    // --- structure ---------------------------------------------------------------------

    #[test]
    fn structure_replaces_the_graph_and_carries_prose_over() {
        let mut stored = begun();
        stored["intro"] = json!("Kept intro");
        stored["questions"]["q2"]["prompt"] = json!("Stored prompt");
        stored["questions"]["q2"]["options"][1]["insight"] = json!("Stored insight");
        let e = structure(
            &stored,
            &args(json!({"survey": {"entry": "q2", "questions": {
                "q2": {"options": [{"key": "b"}, {"key": "a", "label": "New label"},
                                   {"key": "c"}, {"key": "d"}, {"key": "x", "next": "q3"}]},
                "q3": {"header": null, "options": keys5()}
            }}})),
            target("api"),
        )
        .unwrap();
        let s = &e.survey;
        assert_eq!(s["entry"], "q2");
        assert_eq!(s["intro"], "Kept intro");
        assert_eq!(s["title"], "API Deprecation Survey");
        let ids: Vec<&String> = s["questions"].as_object().unwrap().keys().collect();
        assert_eq!(ids, ["q2", "q3"]);
        let q2 = &s["questions"]["q2"];
        assert_eq!(q2["prompt"], "Stored prompt");
        assert_eq!(q2["options"][0]["key"], "b");
        assert_eq!(q2["options"][0]["insight"], "Stored insight");
        assert_eq!(q2["options"][1]["label"], "New label");
        assert_eq!(q2["options"][4]["next"], "q3");
        assert_eq!(s["questions"]["q3"]["prompt"], "TODO: prompt for q3");
    }

    #[test]
    fn structure_cap_is_exclusive_and_launched_refuses() {
        let stored = begun();
        let two = json!({"survey": skeleton()});
        let e = structure(
            &stored,
            &args(two.clone()),
            Target {
                cap: 2,
                ..target("api")
            },
        )
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(
            e.message,
            "structure refused: the incoming graph has 2 questions and the cap is 2 (drafts freeze for structure edits at the cap) — content patches continue to work"
        );
        structure(
            &stored,
            &args(two.clone()),
            Target {
                cap: 3,
                ..target("api")
            },
        )
        .unwrap();
        let e = structure(
            &stored,
            &args(two),
            Target {
                status: Status::Launched,
                ..target("api")
            },
        )
        .unwrap_err();
        assert_eq!(e.code, codes::STATE);
        let e = structure(&stored, &args(json!({})), target("api")).unwrap_err();
        assert_eq!(
            e.message,
            "survey_draft_set op=structure requires survey {entry, questions}"
        );
    }

    #[test]
    fn structure_replaces_or_deletes_intro_and_revalidates_kept_quick() {
        let stored = patch(
            &begun(),
            &args(json!({"quick": [{"key": "a", "label": "All",
                "answers": {"q1": {"selected": ["a"]}, "q2": {"selected": ["b"]}}}],
                "intro": "Old"})),
            target("api"),
        )
        .unwrap()
        .survey;
        let e = structure(
            &stored,
            &args(
                json!({"survey": {"intro": null, "entry": "q1", "questions": {
                "q1": {"options": keys5()}}}}),
            ),
            target("api"),
        )
        .unwrap_err();
        // The kept quick template now answers q2, which no longer exists.
        assert_eq!(e.code, codes::BAD_SPEC);
        let ok = structure(
            &stored,
            &args(
                json!({"survey": {"intro": null, "quick": null, "entry": "q1", "questions": {
                "q1": {"options": keys5()}}}}),
            ),
            target("api"),
        )
        .unwrap();
        assert!(ok.survey.get("intro").is_none() && ok.survey.get("quick").is_none());
    }

    // --- checklist ---------------------------------------------------------------------

    #[test]
    fn the_stub_rule() {
        for stub in ["TODO: stance", "TODO", "  TODO x", "", "   "] {
            assert!(is_stub(Some(&json!(stub))), "{stub:?}");
        }
        for fine in ["TODOs for Q3?", "Todo: x", "Do TODO: later"] {
            assert!(!is_stub(Some(&json!(fine))), "{fine:?}");
        }
        assert!(is_stub(None));
        assert!(is_stub(Some(&json!(3))));
    }

    #[test]
    fn a_fresh_skeleton_of_one_question_misses_21_fields() {
        let s = begin(&args(json!({"survey": {"entry": "q1", "questions": {
            "q1": {"options": keys5()}}}})))
        .unwrap()
        .survey;
        let c = completeness(&s);
        assert_eq!(
            c.totals,
            Totals {
                questions: 1,
                complete: 0,
                missing_fields: 21
            }
        );
        assert!(!c.ready);
        assert_eq!(
            &c.incomplete[0].missing[..5],
            [
                "prompt",
                "options[0].label",
                "options[0].description",
                "options[0].insight",
                "options[0].sources"
            ]
        );
    }

    #[test]
    fn completeness_orders_optional_marks_and_survey_level() {
        let mut q = full_question("Fine?");
        q["header"] = json!("TODO: chip");
        q["detail"] = json!("Real detail");
        q["options"][3]["diagram"] = json!("TODO");
        let s = json!({"title": "TODO: name", "intro": "TODO: write", "entry": "q",
            "questions": {"q": q, "free": {"prompt": "Say?"}},
            "quick": [{"key": "a", "label": "TODO: x", "description": "TODO: y", "insight": "ok", "answers": {}}]});
        let c = completeness(&s);
        assert_eq!(
            c.incomplete,
            vec![
                Gap {
                    id: "q".into(),
                    missing: vec!["header".into(), "options[3].diagram".into()]
                },
                Gap {
                    id: "free".into(),
                    missing: vec!["options: none declared".into()]
                }
            ]
        );
        assert_eq!(
            c.survey_level,
            ["title", "intro", "quick[0].label", "quick[0].description"]
        );
        assert_eq!(c.totals.missing_fields, 7);
        assert_eq!(c.totals.complete, 0);
        let done = completeness(&json!({"entry": "q", "questions": {"q": full_question("Fine?")}}));
        assert!(done.ready);
        assert_eq!(done.totals.complete, 1);
        assert!(!completeness(&json!({"entry": "q", "questions": {}})).ready);
    }

    #[test]
    fn grounding_standard_and_internal() {
        let mut q = full_question("Q?");
        for o in q["options"].as_array_mut().unwrap() {
            o["sources"] = json!(["Vendor handbook"]);
        }
        q["options"][4]["sources"] = json!(["  "]);
        let s = json!({"entry": "q", "questions": {"q": q}});
        let g = grounding(&s, Grounding::Standard);
        assert!(!g.ready);
        assert_eq!(
            g.gaps[0].missing,
            ["options[4].sources".to_string(), COMPARISON_GAP.to_string()]
        );
        let g = grounding(&s, Grounding::Internal);
        assert_eq!(g.gaps[0].missing, ["options[4].sources"]);
        let ok = json!({"entry": "q", "questions": {"q": full_question("Q?")}});
        assert!(grounding(&ok, Grounding::Standard).ready);
        let mut win = full_question("Q?");
        win["options"][0]["sources"] = json!(["C:\\repo\\file.rs"]);
        for i in 1..5 {
            win["options"][i]["sources"] = json!(["name"]);
        }
        assert!(
            grounding(
                &json!({"entry": "q", "questions": {"q": win}}),
                Grounding::Standard
            )
            .ready
        );
    }

    // --- launch gate -------------------------------------------------------------------

    #[test]
    fn the_gate_runs_valid_complete_grounded_in_order() {
        // Invalid: a dangling reference.
        let bad = json!({"entry": "nope", "questions": {"q": full_question("Q?")}});
        let e = launch_gate(&bad, Grounding::Standard).unwrap_err();
        assert_eq!(e.code, codes::BAD_SPEC);
        assert!(
            e.message.starts_with(
                "survey_draft_launch blocked — fix the structure first (op=structure): "
            )
        );
        // Incomplete: a stub and a survey-level mark.
        let mut q = full_question("TODO: ask");
        q["options"][1]["insight"] = json!("TODO: write");
        let s = json!({"title": "T", "intro": "TODO", "entry": "q", "questions": {"q": q}});
        let e = launch_gate(&s, Grounding::Standard).unwrap_err();
        assert_eq!(e.code, codes::INCOMPLETE);
        assert_eq!(
            e.message,
            "survey_draft_launch blocked — required fields still missing. Fix them with survey_draft_set op=patch, then relaunch:\n- q: prompt, options[1].insight\n- survey: intro"
        );
        // Ungrounded: complete, but nothing cites a location.
        let mut q = full_question("Q?");
        q["options"][0]["sources"] = json!(["Vendor"]);
        let s = json!({"entry": "q", "questions": {"q": q}});
        let e = launch_gate(&s, Grounding::Standard).unwrap_err();
        assert_eq!(e.code, codes::UNGROUNDED);
        assert_eq!(
            e.message,
            format!(
                "survey_draft_launch blocked by the grounding bar — every option needs a source, and one option per question must cite where its comparison target lives (file path or URL). Fix with survey_draft_set op=patch, then relaunch:\n- q: {COMPARISON_GAP}"
            )
        );
        assert!(launch_gate(&s, Grounding::Internal).is_ok());
        assert!(launchable(&s, Grounding::Internal));
        assert!(!launchable(&s, Grounding::Standard));
    }

    #[test]
    fn launch_states() {
        assert_eq!(
            launch_state(Status::Launched, "s", Some("A"), true).unwrap(),
            LaunchState::Attach
        );
        assert_eq!(
            launch_state(Status::Reopened, "s", Some("A"), false).unwrap(),
            LaunchState::Gate
        );
        let e = launch_state(Status::Answered, "s", Some("A"), false).unwrap_err();
        assert_eq!(e.code, codes::STATE);
        assert_eq!(
            e.message,
            "survey_draft_launch refused — draft \"s\" was already answered (ask A); patch it to launch a revised version"
        );
        let e = launch_state(Status::Discarded, "s", None, false).unwrap_err();
        assert_eq!(
            e.message,
            "survey_draft_launch refused — draft \"s\" is discarded; patch it to revive it, or begin a new draft"
        );
    }

    #[test]
    fn launch_results_carry_the_draft() {
        let r = launch_result(json!({"outcome": "answered", "ask_id": "A"}), "s");
        assert_eq!(r["draft"], "s");
        assert!(r.get("draftReopened").is_none());
        let r = launch_result(
            json!({"outcome": "reroll", "ask_id": "A", "instruction": "Reroll it."}),
            "s",
        );
        assert_eq!(r["draftReopened"], true);
        assert!(
            r["instruction"]
                .as_str()
                .unwrap()
                .starts_with("Reroll it. This survey was launched from the builder draft \"s\"")
        );
        let r = launch_result(
            json!({"outcome": "cancelled", "ask_id": "A", "error": {"code": "SURVEY_CANCELLED"}}),
            "s",
        );
        assert_eq!(r["error"]["draft"], "s");
        assert_eq!(r["error"]["draftReopened"], true);
        let r = launch_result(json!({"outcome": "pending", "ask_id": "A"}), "s");
        assert_eq!(r["draft"], "s");
        assert_eq!(Status::after_settle("answered"), Status::Answered);
        assert_eq!(Status::after_settle("push"), Status::Reopened);
        assert_eq!(Status::after_settle("aborted"), Status::Reopened);
    }
}
