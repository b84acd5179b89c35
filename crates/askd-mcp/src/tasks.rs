//! Every ask a durable MCP task (issue 33), at the wire: what the two eras of MCP Tasks
//! call things, and the translation of the 2025-11-25 era into requests rmcp hands askd.
//!
//! A task **is** an ask: its id is the ask's id, its state is read from the daemon on every
//! request, so a task outlives the adapter process, the client and the daemon (SIGKILL
//! included) and is the same task from every daemon of a team. Nothing is held in memory.
//!
//! - **2026-07-28** (the `io.modelcontextprotocol/tasks` extension, SEP-2663): rmcp speaks
//!   it — `resultType: "task"`, `tasks/get` with the result inline, `tasks/update`,
//!   `tasks/cancel` — and askd's handler answers it (`crate::server`).
//! - **2025-11-25** (experimental Tasks: `params.task` on `tools/call`, `tasks/get`,
//!   `tasks/result`, `tasks/list`, `tasks/cancel`, `notifications/tasks/status`): rmcp drops
//!   `params.task` and reads `tasks/get`/`tasks/cancel` as the 2026 methods (refused for a
//!   client without the extension). So each transport hands such a request over under an
//!   askd method name ([`legacy_inbound`]: `askd/tasks/call`, `askd/tasks/get`,
//!   `askd/tasks/cancel`; `tasks/result` and `tasks/list` reach the handler as they are),
//!   and adds what rmcp's types cannot carry to two answers ([`patch_initialize`]: the
//!   `tasks` capability; [`patch_tools`]: `execution.taskSupport` on the ask tools). A
//!   request is of that era when its `_meta` carries no
//!   `io.modelcontextprotocol/protocolVersion` (every 2026-07-28 request does).
//!
//! Pure JSON, no I/O: the stdio line layer and the daemon's `/mcp` body rules call it.

use serde_json::{Value, json};

/// The `_meta` key every 2026-07-28 request carries.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The 2025-11-25 `_meta` key that ties a message to its task.
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The 2025-11-25 task-augmented `tools/call`, as the handler receives it.
pub const CALL: &str = "askd/tasks/call";
/// The 2025-11-25 `tasks/get`, as the handler receives it.
pub const GET: &str = "askd/tasks/get";
/// The 2025-11-25 `tasks/cancel`, as the handler receives it.
pub const CANCEL: &str = "askd/tasks/cancel";
/// `tasks/result` (2025-11-25 only): blocks until the task is terminal, then its result.
pub const RESULT: &str = "tasks/result";
/// `tasks/list` (2025-11-25 only): the caller's tasks.
pub const LIST: &str = "tasks/list";
/// The 2025-11-25 status notification.
pub const STATUS_NOTIFICATION: &str = "notifications/tasks/status";

/// How often a client should poll a task (ms). A person answers in seconds to days; two
/// seconds keeps a result that lands while someone watches from feeling late, and costs a
/// client one small request per interval.
pub const POLL_INTERVAL_MS: u64 = 2_000;

/// The tools whose call is an ask, and so may be a task.
pub const TASK_TOOLS: [&str; 5] = [
    crate::tools::ASK_SURVEY,
    crate::tools::ASK_USER_QUESTION,
    crate::tools::BATCH_REVIEW,
    crate::tools::REPORT_DRIFT,
    crate::tools::SURVEY_DRAFT_LAUNCH,
];

/// Whether a request's params carry the 2026-07-28 inline protocol version.
pub fn is_modern(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some()
}

/// Hands a 2025-11-25 task request over under askd's method name (see the module docs):
/// `tools/call` with `params.task`, `tasks/get` and `tasks/cancel` without the 2026-07-28
/// `_meta`. Returns whether `message` changed.
pub fn legacy_inbound(message: &mut Value) -> bool {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return false;
    };
    let params = message.get("params");
    if is_modern(params) {
        return false;
    }
    let renamed = match method {
        "tools/call"
            if params
                .and_then(|p| p.get("task"))
                .is_some_and(Value::is_object) =>
        {
            CALL
        }
        "tasks/get" => GET,
        "tasks/cancel" => CANCEL,
        _ => return false,
    };
    message["method"] = json!(renamed);
    true
}

/// A message's `params.task`, read without building the rest of the message (serde skips
/// the other members without allocating).
#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    params: Option<ParamsProbe>,
}

#[derive(serde::Deserialize)]
struct ParamsProbe {
    #[serde(default)]
    task: Option<serde::de::IgnoredAny>,
}

/// Whether a message's params carry `task` (a 2025-11-25 task-augmented request).
pub fn has_task(message: &[u8]) -> bool {
    serde_json::from_slice::<Probe>(message)
        .ok()
        .and_then(|p| p.params)
        .is_some_and(|p| p.task.is_some())
}

/// Whether a request (by its method and whether its params carry `task`) is one
/// [`legacy_inbound`] may rename, so a transport parses only those as JSON values.
pub fn may_rename(method: &str, has_task: bool) -> bool {
    matches!(method, "tasks/get" | "tasks/cancel") || (method == "tools/call" && has_task)
}

/// The 2025-11-25 `tasks` capability, added to `initialize`'s result: list, cancel, and
/// task-augmented `tools/call`.
pub fn patch_initialize(result: &mut Value) {
    if let Some(caps) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    {
        caps.insert(
            "tasks".into(),
            json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        );
    }
}

/// `execution.taskSupport: "optional"` on every ask tool of a `tools/list` result: a client
/// may call it as a task or as a plain call.
pub fn patch_tools(result: &mut Value) {
    let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
        return;
    };
    for tool in tools {
        let is_ask = tool
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| TASK_TOOLS.contains(&n));
        if is_ask && let Some(t) = tool.as_object_mut() {
            t.insert("execution".into(), json!({"taskSupport": "optional"}));
        }
    }
}

/// Where an ask's task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Pending: a person has not answered yet.
    Working,
    /// Pending, and the calling client can show askd's form for it.
    InputRequired,
    /// Settled any way but a withdrawal: the tool's result is ready.
    Completed,
    /// Withdrawn (`tasks/cancel`, `withdraw_ask`, an operator).
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Cancelled)
    }

    /// The status of an ask (`GET /api/asks/{id}`'s view), `form` saying whether the caller
    /// would be shown askd's form for it now.
    pub fn of(ask: &Value, form: bool) -> Status {
        if ask["state"] == "pending" {
            return if form {
                Status::InputRequired
            } else {
                Status::Working
            };
        }
        use askd_core::Outcome;
        match ask["outcome"].as_str().and_then(Outcome::parse) {
            // A withdrawal, whoever made it: an agent's `withdraw_ask`, `tasks/cancel`, an
            // operator's `POST …/withdraw`, a drift card the agent withdrew.
            Some(Outcome::Aborted | Outcome::Withdrawn) => Status::Cancelled,
            _ => Status::Completed,
        }
    }
}

/// When the ask last changed: its settle, else its last banked answer, else its creation.
pub fn last_updated(ask: &Value) -> String {
    let banked = ask["banked"]
        .as_array()
        .and_then(|b| b.last())
        .and_then(|b| b["bankedAt"].as_str());
    ask["settledAt"]
        .as_str()
        .or(banked)
        .or_else(|| ask["createdAt"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// What a person sees of a task's state, in a line.
pub fn status_message(ask: &Value, status: Status) -> String {
    let url = ask["url"].as_str().unwrap_or_default();
    match status {
        Status::Working => match ask["deferred_until"].as_str() {
            Some(until) => format!(
                "the human put this off until {until} (UTC); askd brings it back to them then — answer at {url}"
            ),
            None => format!("waiting for the human to answer at {url}"),
        },
        Status::InputRequired => {
            format!("waiting for the human: answer in the client's form, or at {url}")
        }
        Status::Completed => format!(
            "settled: {}",
            ask["outcome"]
                .as_str()
                .unwrap_or(askd_core::Outcome::Answered.as_str())
        ),
        Status::Cancelled => "withdrawn: the ask no longer waits for an answer".to_string(),
    }
}

/// The 2025-11-25 `Task` of an ask. `ttl` is `null`: a task lives as long as its ask, which
/// askd keeps until someone deletes it.
pub fn legacy_task(ask: &Value, status: Status) -> Value {
    json!({
        "taskId": ask["ask_id"],
        "status": status.as_str(),
        "statusMessage": status_message(ask, status),
        "createdAt": ask["createdAt"],
        "lastUpdatedAt": last_updated(ask),
        "ttl": null,
        "pollInterval": POLL_INTERVAL_MS,
    })
}

/// The 2026-07-28 `Task` of an ask (rmcp's type; `ttlMs` unlimited, as [`legacy_task`]).
pub fn modern_task(ask: &Value, status: Status) -> rmcp::model::Task {
    let status_rmcp = match status {
        Status::Working => rmcp::model::TaskStatus::Working,
        Status::InputRequired => rmcp::model::TaskStatus::InputRequired,
        Status::Completed => rmcp::model::TaskStatus::Completed,
        Status::Cancelled => rmcp::model::TaskStatus::Cancelled,
    };
    rmcp::model::Task::new(
        ask["ask_id"].as_str().unwrap_or_default(),
        status_rmcp,
        ask["createdAt"].as_str().unwrap_or_default(),
        last_updated(ask),
    )
    .with_status_message(status_message(ask, status))
    .with_poll_interval_ms(POLL_INTERVAL_MS)
}

/// A `tasks/list` page: `limit` tasks from the `cursor`th (an offset, as a decimal string).
pub fn page(tasks: Vec<Value>, cursor: Option<&str>, limit: usize) -> Result<Value, String> {
    let from = match cursor {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| {
            format!("cursor {c:?} is not one askd issued: pass the nextCursor of the last page")
        })?,
    };
    let total = tasks.len();
    let page: Vec<Value> = tasks.into_iter().skip(from).take(limit).collect();
    let mut out = json!({"tasks": page});
    if from + limit < total {
        out["nextCursor"] = json!((from + limit).to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_2025_task_requests_are_renamed() {
        let mut call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ask_user_question", "arguments": {}, "task": {"ttl": 60000}}});
        assert!(legacy_inbound(&mut call));
        assert_eq!(call["method"], CALL);
        let mut plain = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ask_user_question", "arguments": {}}});
        assert!(!legacy_inbound(&mut plain));
        let mut get =
            json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "a"}});
        assert!(legacy_inbound(&mut get));
        assert_eq!(get["method"], GET);
        let mut modern = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
            "params": {"taskId": "a", "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(!legacy_inbound(&mut modern));
        assert_eq!(modern["method"], "tasks/get");
    }

    #[test]
    fn the_ask_tools_are_marked_task_capable() {
        let mut listed =
            json!({"tools": [{"name": "ask_user_question"}, {"name": "await_answer"}]});
        patch_tools(&mut listed);
        assert_eq!(listed["tools"][0]["execution"]["taskSupport"], "optional");
        assert!(listed["tools"][1].get("execution").is_none());
    }

    #[test]
    fn a_withdrawn_ask_is_a_cancelled_task_and_a_declined_one_completed() {
        let settled = |o: &str| json!({"state": "settled", "outcome": o});
        assert_eq!(Status::of(&settled("aborted"), false), Status::Cancelled);
        assert_eq!(Status::of(&settled("cancelled"), false), Status::Completed);
        assert_eq!(Status::of(&settled("answered"), true), Status::Completed);
        assert_eq!(
            Status::of(&json!({"state": "pending"}), true),
            Status::InputRequired
        );
    }

    #[test]
    fn pages_carry_a_cursor_until_the_last() {
        let tasks: Vec<Value> = (0..5).map(|i| json!(i)).collect();
        let first = page(tasks.clone(), None, 2).unwrap();
        assert_eq!(first["nextCursor"], "2");
        let last = page(tasks.clone(), Some("4"), 2).unwrap();
        assert!(last.get("nextCursor").is_none());
        assert!(page(tasks, Some("x"), 2).is_err());
    }
}
