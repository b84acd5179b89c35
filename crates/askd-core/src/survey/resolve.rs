//! Lenient argument resolution (`survey.md` §3): recover the `survey` object from arguments
//! that arrived as raw text, as `{}`, without their wrapper, or with `survey` as JSON text —
//! and otherwise name the real cause (size, not content) and the fix.

use std::borrow::Cow;

use crate::json::{self, Json, Object};
use crate::problem::Problem;

/// Arguments whose `survey` is a plain object.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    /// The `survey` value (always a [`Json::Object`]).
    pub survey: Json<'a>,
    /// The other root members (`replaces`, `timeout_s`, and unknown ones, which callers
    /// ignore).
    pub extras: Object<'a>,
}

impl Resolved<'_> {
    /// The optional `replaces` ask id.
    pub fn replaces(&self) -> Option<&str> {
        self.extras.get_present("replaces").and_then(Json::as_str)
    }
}

const SMALLER_TAIL: &str = "— the signature of a payload cut off by the model's output-token limit. Re-send a SMALLER survey: trim prompt/insight/description strings, cut options to five, drop the quick templates, or split the survey into two consecutive calls (or build it with survey_draft_set). Never resend the identical payload — the failure was size, not content.";

/// Resolves arguments that arrived as raw text (step 1 onwards).
pub fn resolve_text(text: &str) -> Result<Resolved<'_>, Problem> {
    resolve(Json::String(Cow::Borrowed(text)))
}

/// Resolves arguments that arrived as a JSON value (which may itself be a string).
pub fn resolve(args: Json<'_>) -> Result<Resolved<'_>, Problem> {
    // Step 1
    let args = match args {
        Json::String(text) => parse_cow(text).map_err(|(e, n)| {
            Problem::new(
                "",
                "args_unparseable",
                format!(
                    "The ask_survey arguments arrived as raw text, but the text failed to parse as JSON ({e}; {n} characters arrived) {SMALLER_TAIL}"
                ),
            )
        })?,
        other => other,
    };
    // Step 2
    let Json::Object(mut args) = args else {
        return Err(Problem::new(
            "",
            "args_not_object",
            format!(
                "the ask_survey arguments must be a JSON object, got {} — the emitted payload was likely truncated mid-JSON. Re-send a SMALLER survey (trim long strings, cut options to five, drop the quick templates) or split it into two consecutive calls. Never resend the identical payload.",
                args.kind()
            ),
        ));
    };
    let survey = match args.remove("survey") {
        None | Some(Json::Null) => {
            // Step 3: the spec sent without its wrapper.
            if args.contains("entry") && args.contains("questions") {
                let mut extras = Object::new();
                for name in ["replaces", "timeout_s", "deadline"] {
                    if let Some(v) = args.remove(name) {
                        extras.insert(name, v);
                    }
                }
                return Ok(Resolved {
                    survey: Json::Object(args),
                    extras,
                });
            }
            // Step 4
            return Err(Problem::new(
                "",
                "survey_missing",
                "ask_survey received no \"survey\" field — the arguments were empty, malformed, or truncated before delivery (malformed tool-call JSON can arrive as raw text and an empty payload as {}), so nothing could be validated. Re-send a SMALLER payload — trim long strings, cut options to five, drop the quick templates — or split the survey into two consecutive calls. Never resend the identical payload.",
            ));
        }
        // Step 5
        Some(Json::String(text)) => {
            let parsed = parse_cow(text).map_err(|(e, n)| {
                Problem::new(
                    "survey",
                    "survey_text_unparseable",
                    format!(
                        "The \"survey\" field arrived as a JSON text string, but the text failed to parse as JSON ({e}; {n} characters arrived) {SMALLER_TAIL}"
                    ),
                )
            })?;
            if !matches!(parsed, Json::Object(_)) {
                return Err(Problem::new(
                    "survey",
                    "survey_text_not_object",
                    format!(
                        "the \"survey\" text parsed but is not a JSON object — got {}; re-send the survey as a proper object",
                        parsed.kind()
                    ),
                ));
            }
            parsed
        }
        Some(other) => other,
    };
    // Step 6
    if !matches!(survey, Json::Object(_)) {
        return Err(Problem::new(
            "survey",
            "survey_not_object",
            format!("\"survey\" must be an object — got {}", survey.kind()),
        ));
    }
    // Step 7
    Ok(Resolved {
        survey,
        extras: args,
    })
}

/// Parses text that is either borrowed from the caller's input or owned (it had escapes).
fn parse_cow(text: Cow<'_, str>) -> Result<Json<'_>, (serde_json::Error, usize)> {
    let result = match text {
        Cow::Borrowed(s) => json::parse(s).map_err(|e| (e, s)),
        Cow::Owned(ref s) => json::parse(s)
            .map(Json::into_owned)
            .map_err(|e| (e, s.as_str())),
    };
    result.map_err(|(e, s)| (e, s.chars().count()))
}
