//! `timeout_s`: the wait budget a waiting MCP call takes (`await_answer`, and the ask tools
//! whose own validation does not cover it), checked like `ask_user_question` checks its own
//! (`questions::validate`: the same message, naming the field and the fix) — except that a
//! fraction of a second is a budget too, as `await_answer`'s schema (`number`, `minimum: 0`)
//! and the daemon's `GET /api/asks/{id}/wait?timeout_s=` admit.

use crate::json::Json;
use crate::problem::Problem;

/// The code of a `timeout_s` that is not a number of seconds ≥ 0 (as `ask_user_question`'s).
pub const TIMEOUT_S_TYPE: &str = "timeout_s_type";

/// The budget `timeout_s` names, in seconds: `None` when it is absent or `null`; a problem
/// at `timeout_s` when it is not a finite number ≥ 0 (a string, `-5`, an object…).
pub fn timeout_s(value: Option<&Json>) -> Result<Option<f64>, Problem> {
    let v = match value {
        None | Some(Json::Null) => return Ok(None),
        Some(v) => v,
    };
    let seconds = match v {
        Json::Number(n) => n.as_f64().filter(|t| t.is_finite() && *t >= 0.0),
        _ => None,
    };
    seconds.map(Some).ok_or_else(|| {
        Problem::new(
            "timeout_s",
            TIMEOUT_S_TYPE,
            format!(
                "timeout_s must be a non-negative number of seconds, got {} — omit it to wait \
                 with the server's default budget",
                crate::questions::describe(v)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<Option<f64>, Problem> {
        let v = crate::json::parse(text).unwrap();
        timeout_s(Some(&v))
    }

    #[test]
    fn a_number_of_seconds_passes_and_anything_else_is_named() {
        assert_eq!(timeout_s(None).unwrap(), None);
        assert_eq!(check("null").unwrap(), None);
        assert_eq!(check("0").unwrap(), Some(0.0));
        assert_eq!(check("2.5").unwrap(), Some(2.5));
        assert_eq!(check("30").unwrap(), Some(30.0));
        let e = check("\"abc\"").unwrap_err();
        assert_eq!(e.path, "timeout_s");
        assert_eq!(e.code, TIMEOUT_S_TYPE);
        assert!(
            e.message.contains("got the string \"abc\""),
            "{}",
            e.message
        );
        assert!(e.message.contains("omit it"), "{}", e.message);
        let e = check("-5").unwrap_err();
        assert!(e.message.contains("got -5"), "{}", e.message);
        assert!(check("{}").unwrap_err().message.contains("an object"));
        assert!(check("true").is_err());
        assert!(check("[]").is_err());
    }
}
