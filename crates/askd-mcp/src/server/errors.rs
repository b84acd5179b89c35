//! The tools' own argument errors, and the one mapping of a tool's result (or error) to
//! the `CallToolResult` a client receives.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use crate::backend::ToolError;

/// `timeout_s` of a waiting call (`askd_core::wait::timeout_s`), as a tool error naming
/// the field and the fix under `code`.
// The tools' one error type, as every tool's refusal is.
#[allow(clippy::result_large_err)]
pub(super) fn timeout_arg(args: &Value, code: &str) -> Result<Option<f64>, ToolError> {
    let root = askd_core::json::Json::from_value(args);
    let value = root.as_object().and_then(|o| o.get("timeout_s"));
    askd_core::wait::timeout_s(value).map_err(|p| {
        let mut e = ToolError::new(code, p.message.clone());
        e.errors = Some(json!([p]));
        e
    })
}

/// `invalid_argument` listing every problem (the envelope names the first one's path).
pub(super) fn invalid_arguments(problems: &[askd_core::Problem]) -> ToolError {
    let mut e = ToolError::new(
        "invalid_argument",
        askd_core::problem::join_messages(problems),
    );
    e.errors = Some(json!(problems));
    e
}

pub(super) fn invalid_argument(field: &str, message: &str) -> ToolError {
    let mut e = ToolError::new("invalid_argument", message);
    e.errors = Some(json!([{"path": field, "code": "invalid_argument", "message": message}]));
    e
}

/// The daemon's `unknown-session` as the alignment tools' `unknown_session`.
pub(super) fn session_error(mut e: ToolError) -> ToolError {
    if e.code == "unknown-session" {
        e.code = "unknown_session".into();
    }
    e
}

/// The code of `await_answer`'s and the ask tools' own argument errors (`timeout_s`, …).
pub(super) const ARGUMENTS_CODE: &str = "INVALID_ARGUMENTS";

pub(super) fn argument_error(path: &str, message: &str) -> ToolError {
    let mut e = ToolError::new("INVALID_ARGUMENTS", message);
    e.errors = Some(json!([{"path": path, "code": "required", "message": message}]));
    e
}

/// A call of a tool askd does not have: the message names every tool, from the one list
/// ([`crate::tools::names`]).
pub(super) fn unknown_tool(name: &str) -> ToolError {
    ToolError::new(
        "UNKNOWN_TOOL",
        format!(
            "askd has no tool named {name:?}; its tools are {}",
            crate::tools::names().join(", ")
        ),
    )
}

/// A settled result that carries an `error` (cancelled, aborted) is a tool error.
pub(super) fn to_call_result(r: Result<Value, ToolError>) -> CallToolResult {
    match r {
        Ok(v) if v.get("error").is_some() => {
            let e = &v["error"];
            let message = e["message"]
                .as_str()
                .unwrap_or("the ask ended without answers");
            let envelope = json!({"error": e});
            let mut result = CallToolResult::structured_error(envelope.clone());
            result.content = vec![
                ContentBlock::text(message.to_string()),
                ContentBlock::text(envelope.to_string()),
            ];
            result
        }
        // A batch_review result: report_text first, then the JSON (review.md §4.1).
        Ok(v) if v.get("report_text").is_some_and(Value::is_string) => {
            let report = v["report_text"].as_str().unwrap_or_default().to_string();
            let text = v.to_string();
            let mut result = CallToolResult::structured(v);
            result.content = vec![ContentBlock::text(report), ContentBlock::text(text)];
            result
        }
        Ok(v) => {
            // The alignment tail (alignment.md §5.8) as a second text block.
            let tail = v
                .get("alignment")
                .and_then(|a| a.get("guidance"))
                .or_else(|| v.get("guidance"))
                .or_else(|| v.get("status").and_then(|s| s.get("guidance")))
                .and_then(Value::as_array)
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .filter(|t| !t.is_empty());
            let notice = v
                .get("notice")
                .or_else(|| v.get("alignment").and_then(|a| a.get("notice")))
                .and_then(Value::as_str)
                .map(str::to_string);
            let mut result = CallToolResult::structured(v);
            if let Some(t) = tail {
                result.content.push(ContentBlock::text(t));
            }
            if let Some(n) = notice {
                result.content.push(ContentBlock::text(n));
            }
            result
        }
        Err(e) => {
            let envelope = e.envelope();
            let mut result = CallToolResult::structured_error(envelope.clone());
            // An invalid review: the summary line, then every message on its own line.
            let mut first = e.message.clone();
            if e.code == "invalid_review"
                && let Some(list) = e.errors.as_ref().and_then(Value::as_array)
            {
                for p in list {
                    first.push('\n');
                    first.push_str(p["message"].as_str().unwrap_or_default());
                }
            }
            result.content = vec![
                ContentBlock::text(first),
                ContentBlock::text(envelope.to_string()),
            ];
            result
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_tool_is_refused_naming_every_listed_tool() {
        let e = unknown_tool("nope");
        assert_eq!(e.code, "UNKNOWN_TOOL");
        assert_eq!(
            e.message,
            "askd has no tool named \"nope\"; its tools are ask_survey, survey_draft_set, survey_draft_get, survey_draft_launch, ask_user_question, await_answer, survey_records, withdraw_ask, batch_review, align, alignment_status, establish_baseline, report_drift, set_alignment_mode"
        );
    }
}
