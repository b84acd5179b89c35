//! The arguments of `survey_draft_set` (`survey.md` §10.4): the op and the fields every op
//! reads, each refused with `SURVEY_DRAFT_BAD_OP` when malformed.

use serde_json::{Map, Value};

use super::error::DraftError;
use super::file::Grounding;
use crate::problem::is_blank;

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
pub(super) fn survey_arg(
    args: &Map<String, Value>,
    op: Op,
) -> Result<Map<String, Value>, DraftError> {
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

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::draft::codes;
    use crate::survey::draft::test_support::*;
    use serde_json::json;

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
}
