//! Every ask a durable MCP task (issue 33; the wire is [`crate::tasks`]'s). A task-
//! augmented call of an ask tool creates its ask exactly as a plain call does, returns at
//! once, and the task's id is the ask's: every later request reads the ask from the daemon,
//! so a task is found by a new adapter process, after a client or daemon restart, and from
//! any daemon of a team. Who may read a task is who may read its ask (the principal the
//! fence resolved); `tasks/list` lists the asks of the caller's own askd session.
//!
//! - **working** while the ask is pending; **input_required** while it is pending and the
//!   calling client would be shown askd's form for it (it declared form elicitation and
//!   the ask fits one, `clients.md` §3); **completed** once it is settled any way but a
//!   withdrawal, with the tool's result (the human's decline included, as the tool reports
//!   it); **cancelled** once withdrawn (`tasks/cancel` withdraws it). An ask that cannot be
//!   read is no task: `-32602` naming the id.
//! - 2025-11-25: `tasks/result` waits for the settle — with the form in front of the human
//!   through `elicitation/create` when the client can show it — and returns the result with
//!   `_meta["io.modelcontextprotocol/related-task"]`; a stateful connection also hears
//!   `notifications/tasks/status` when the ask settles.
//! - 2026-07-28: `tasks/get` carries the result inline, or the form as `inputRequests`
//!   (one request, keyed by what it asks), which `tasks/update` answers.

use std::time::Duration;

use rmcp::model::{
    CancelTaskParams, CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, InputRequest,
    TaskPayload, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use super::AskdServer;
use super::elicitation::{Reply, Round, Step};
use super::errors::to_call_result;
use super::round::ToolOutcome;
use crate::backend::ToolError;
use crate::tasks::{self as wire, Status};

tokio::task_local! {
    /// Set while a task-augmented call runs: its ask tool creates the ask and returns the
    /// pending handle without waiting or putting a form in front of the human.
    static STARTING: ();
}

/// Whether the running tool call is a task being started (see [`STARTING`]).
pub(super) fn starting() -> bool {
    STARTING.try_with(|_| ()).is_ok()
}

/// Whether a client moves a task to the background and tells its model to go on without
/// it: Claude Code (2.1.332, measured) declares the tasks extension under 2026-07-28, and
/// answers a task with "running in the background … do not wait for it". An ask is a
/// decision the agent needs before it goes on, so such a client's ask calls stay what they
/// were — the form in its terminal, the page, the pending handle — and are not tasks.
pub fn backgrounds_tasks(client: &str) -> bool {
    client.to_ascii_lowercase().starts_with("claude-code")
}

fn status_pending(result: &Value) -> bool {
    result["outcome"] == "pending"
}

/// How many tasks one `tasks/list` page holds.
const PAGE: usize = 100;

/// The prefix of a 2026-07-28 input request's key: `askd_answer` for a flat form,
/// `askd_answer:<question id>` for a survey's question.
const INPUT_KEY: &str = crate::server::ELICIT_KEY;

fn no_task(task_id: &str, e: &ToolError) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "no task {task_id:?}: {} — pass the taskId a task-augmented tools/call returned",
            e.message
        ),
        Some(json!({"taskId": task_id, "code": e.code})),
    )
}

fn terminal(task_id: &str, status: Status) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "task {task_id:?} is already {}: a finished task cannot be cancelled",
            status.as_str()
        ),
        Some(json!({"taskId": task_id, "status": status.as_str()})),
    )
}

/// A tool error as the JSON-RPC error of a task that could not be started (its message
/// and its envelope), so a client sees what to fix.
fn not_started(e: &ToolError) -> ErrorData {
    ErrorData::invalid_params(e.message.clone(), Some(e.envelope()))
}

impl AskdServer {
    /// Whether a 2026-07-28 call of `tool` is to be a task: an ask tool, called by a client
    /// that declared the tasks extension (per request, or at `initialize`) and awaits a task
    /// ([`backgrounds_tasks`] says which do not).
    pub(super) fn wants_task(tool: &str, ctx: &RequestContext<RoleServer>) -> bool {
        wire::TASK_TOOLS.contains(&tool)
            && ctx
                .client_capabilities()
                .is_some_and(|caps| caps.supports_tasks())
            && !backgrounds_tasks(&Self::client_name(ctx))
    }

    /// Runs an ask tool as a task's start: the ask created (or re-attached) as a plain call
    /// would, the pending handle at once — like a pending handle, no longer awaited, until a
    /// connection watches it ([`Self::watch`]) or a call waits on it.
    async fn start(
        &self,
        tool: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let outcome = STARTING.scope((), self.run(tool, args, ctx)).await?;
        let ToolOutcome::Done(result) = outcome else {
            // Never: a starting call puts no form out.
            return Err(ToolError::new(
                "internal",
                "a task's start asked for input; call the tool again without a task",
            ));
        };
        Ok(result)
    }

    /// Whether this connection may answer the ask in its client (its form through
    /// `tasks/result`'s `elicitation/create` or `tasks/update`): it asked the ask, or the ask
    /// is in this connection's own session — never because a request names the session.
    /// Any caller who may read an ask may read its task; answering is the asker's.
    fn may_answer(&self, ask_id: &str, ask: &Value) -> bool {
        self.granted(ask_id).is_some()
            || self
                .known_session()
                .is_some_and(|s| ask["session"] == s.as_str())
    }

    /// Whether the calling client would be shown askd's form for a pending ask now.
    async fn form_now(&self, ask_id: &str, ctx: &RequestContext<RoleServer>) -> bool {
        self.plan(ask_id, ctx)
            .await
            .is_some_and(|(plan, _)| plan.is_form())
    }

    /// The ask behind `task_id` and its status for this caller.
    async fn task_state(
        &self,
        task_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(Value, Status), ErrorData> {
        let ask = self
            .backend
            .ask(task_id)
            .await
            .map_err(|e| no_task(task_id, &e))?;
        let form = ask["state"] == "pending"
            && self.may_answer(task_id, &ask)
            && self.form_now(task_id, ctx).await;
        let status = Status::of(&ask, form);
        Ok((ask, status))
    }

    /// The tool's result for a settled ask, shaped as `await_answer` returns it; `Err` when
    /// the daemon could not give it.
    async fn settled_result(
        &self,
        task_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let result = self.await_answer(json!({"ask_id": task_id}), ctx).await?;
        serde_json::to_value(to_call_result(Ok(result)))
            .map_err(|e| ToolError::new("internal", e.to_string()))
    }

    /// A finished task's 2026-07-28 payload: `completed` with the tool's result, `failed`
    /// with the error (its envelope as `data`) when the result could not be read.
    async fn final_payload(
        &self,
        task_id: &str,
        status: Status,
        ctx: &RequestContext<RoleServer>,
    ) -> TaskPayload {
        if status == Status::Cancelled {
            return TaskPayload::Cancelled;
        }
        match self.settled_result(task_id, ctx).await {
            Ok(result) => TaskPayload::Completed {
                result: result.as_object().cloned().unwrap_or_default(),
            },
            Err(e) => TaskPayload::Failed {
                error: json!({"code": -32603, "message": e.message, "data": e.envelope()})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            },
        }
    }

    /// Withdraws a task's pending ask; refused when it is already finished.
    async fn cancel(
        &self,
        task_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let (_, status) = self.task_state(task_id, ctx).await?;
        if status.is_terminal() {
            return Err(terminal(task_id, status));
        }
        if let Err(e) = self
            .backend
            .withdraw(task_id, Some("cancelled by the client (tasks/cancel)"))
            .await
        {
            // Settled elsewhere meanwhile: say what it is now.
            let (_, now) = self.task_state(task_id, ctx).await?;
            if now.is_terminal() {
                return Err(terminal(task_id, now));
            }
            return Err(no_task(task_id, &e));
        }
        let (ask, status) = self.task_state(task_id, ctx).await?;
        Ok(wire::legacy_task(&ask, status))
    }

    // ---- 2025-11-25 -------------------------------------------------------------------

    /// `tools/call` with `params.task` (handed over as [`wire::CALL`]): the 2025-11-25
    /// `CreateTaskResult` `{task}`. A call that cannot create its ask is a JSON-RPC error
    /// with the tool's message and envelope.
    pub(super) async fn legacy_call(
        &self,
        params: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let Some(tool) = params.get("name").and_then(Value::as_str) else {
            return Err(ErrorData::invalid_params(
                "tools/call params.name is required: the tool to run as a task",
                None,
            ));
        };
        if !wire::TASK_TOOLS.contains(&tool) {
            return Err(ErrorData::invalid_params(
                format!(
                    "{tool} cannot run as a task: only the ask tools can ({}); call it without params.task",
                    wire::TASK_TOOLS.join(", ")
                ),
                None,
            ));
        }
        let args = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let result = self
            .start(tool, args, ctx)
            .await
            .map_err(|e| not_started(&e))?;
        if let Some(e) = result.get("error") {
            return Err(ErrorData::invalid_params(
                e["message"]
                    .as_str()
                    .unwrap_or("the ask could not be created")
                    .to_string(),
                Some(json!({"error": e})),
            ));
        }
        let Some(id) = result["ask_id"].as_str() else {
            return Err(ErrorData::internal_error(
                "the ask tool returned no ask_id",
                None,
            ));
        };
        if status_pending(&result) {
            // This connection watches its task: an agent waits on the ask while it lives.
            let _ = self.backend.set_awaited(id, true).await;
            self.watch(id, ctx);
        }
        let (ask, status) = self.task_state(id, ctx).await?;
        Ok(json!({"task": wire::legacy_task(&ask, status)}))
    }

    /// `tasks/get` (2025-11-25): the task.
    pub(super) async fn legacy_get(
        &self,
        task_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let (ask, status) = self.task_state(task_id, ctx).await?;
        Ok(wire::legacy_task(&ask, status))
    }

    /// `tasks/result` (2025-11-25): waits until the ask is settled — its form in front of
    /// the human meanwhile when the client can show it — then the tool's result.
    pub(super) async fn legacy_result(
        &self,
        task_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let (ask, status) = self.task_state(task_id, ctx).await?;
        if !status.is_terminal() {
            // The form goes out only to a connection that may answer the ask; any other
            // caller waits for the page.
            let waited = if self.may_answer(task_id, &ask) {
                self.answering(task_id, None, ctx).await.map(|_| ())
            } else {
                self.wait(task_id, None, ctx).await.map(|_| ())
            };
            waited.map_err(|e| no_task(task_id, &e))?;
        }
        let mut v = self.settled_result(task_id, ctx).await.map_err(|e| {
            ErrorData::internal_error(
                format!(
                    "the result of task {task_id:?} could not be read: {}",
                    e.message
                ),
                Some(e.envelope()),
            )
        })?;
        v["_meta"][wire::META_RELATED_TASK] = json!({"taskId": task_id});
        Ok(v)
    }

    /// `tasks/list` (2025-11-25): the asks of this connection's askd session, newest first.
    pub(super) async fn legacy_list(
        &self,
        cursor: Option<&str>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let session = ctx
            .meta
            .get("askd/session")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.known_session());
        let asks = match &session {
            Some(s) => self
                .backend
                .session_asks(s)
                .await
                .map_err(|e| ErrorData::internal_error(e.message, None))?,
            None => Vec::new(),
        };
        let tasks = asks
            .iter()
            .map(|a| {
                // A listing row: the ask's own fields under the view's names.
                let view = json!({
                    "ask_id": a["id"], "state": a["state"], "outcome": a["outcome"],
                    "createdAt": a["created_at"], "settledAt": a["settled_at"], "url": a["url"],
                });
                wire::legacy_task(&view, Status::of(&view, false))
            })
            .collect();
        wire::page(tasks, cursor, PAGE).map_err(|m| ErrorData::invalid_params(m, None))
    }

    /// `notifications/tasks/status` when the ask of a task started on this connection
    /// settles (2025-11-25, stateful connections: a stateless request has no one to tell).
    fn watch(&self, ask_id: &str, ctx: &RequestContext<RoleServer>) {
        let backend = self.backend.clone();
        let peer = ctx.peer.clone();
        let ask_id = ask_id.to_string();
        tokio::spawn(async move {
            loop {
                if peer.is_transport_closed() {
                    // Nobody watches any more: the ask is no longer awaited.
                    let _ = backend.set_awaited(&ask_id, false).await;
                    return;
                }
                match backend.wait(&ask_id, Duration::from_secs(30)).await {
                    // Put off by the human: the wait answers at once until it is back.
                    Ok(r) if r["deferred_until"].is_string() => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                    }
                    Ok(r) if r["outcome"] == "pending" => continue,
                    Ok(_) => break,
                    Err(_) => return,
                }
            }
            let Ok(ask) = backend.ask(&ask_id).await else {
                return;
            };
            let task = wire::legacy_task(&ask, Status::of(&ask, false));
            let note = rmcp::model::CustomNotification::new(wire::STATUS_NOTIFICATION, Some(task));
            let _ = peer
                .send_notification(rmcp::model::ServerNotification::CustomNotification(note))
                .await;
        });
    }

    /// A 2025-11-25 task request handed over by a transport, by method; `None` for any
    /// other method.
    pub(super) async fn legacy_request(
        &self,
        method: &str,
        params: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<Result<Value, ErrorData>> {
        let task_id = || {
            params
                .get("taskId")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("{method} params.taskId is required"), None)
                })
        };
        Some(match method {
            wire::CALL => self.legacy_call(params.clone(), ctx).await,
            wire::GET => match task_id() {
                Ok(id) => self.legacy_get(&id, ctx).await,
                Err(e) => Err(e),
            },
            wire::RESULT => match task_id() {
                Ok(id) => self.legacy_result(&id, ctx).await,
                Err(e) => Err(e),
            },
            wire::CANCEL => match task_id() {
                // `tasks/cancel` (2025-11-25): the ask withdrawn; the cancelled task.
                Ok(id) => self.cancel(&id, ctx).await,
                Err(e) => Err(e),
            },
            wire::LIST => {
                let cursor = params.get("cursor").and_then(Value::as_str);
                self.legacy_list(cursor, ctx).await
            }
            _ => return None,
        })
    }

    // ---- 2026-07-28 -------------------------------------------------------------------

    /// A 2026-07-28 call of an ask tool as a task: the `CreateTaskResult`, or the tool's
    /// own result when there is nothing to wait for (a refused call, an identical ask's
    /// undelivered result).
    pub(super) async fn modern_call(
        &self,
        tool: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Result<CreateTaskResult, Result<Value, ToolError>>, ErrorData> {
        let result = match self.start(tool, args, ctx).await {
            Ok(r) if status_pending(&r) => r,
            other => return Ok(Err(other)),
        };
        let id = result["ask_id"].as_str().unwrap_or_default();
        let (ask, status) = self.task_state(id, ctx).await?;
        Ok(Ok(CreateTaskResult::new(wire::modern_task(&ask, status))))
    }

    /// `tasks/get` (2026-07-28): the task with its result, or with askd's form as its one
    /// input request.
    pub(super) async fn modern_get(
        &self,
        request: GetTaskParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let id = request.task_id;
        let (ask, status) = self.task_state(&id, ctx).await?;
        let payload = match status {
            Status::Working => TaskPayload::Working,
            Status::Cancelled | Status::Completed => self.final_payload(&id, status, ctx).await,
            Status::InputRequired => match self.current_form(&id, ctx).await {
                Some((key, request)) => TaskPayload::InputRequired {
                    input_requests: [(key, InputRequest::Elicitation(request))]
                        .into_iter()
                        .collect(),
                },
                // Nothing to ask after all (a walked survey was just submitted): read again.
                None => {
                    let (ask, status) = self.task_state(&id, ctx).await?;
                    let payload = if status.is_terminal() {
                        self.final_payload(&id, status, ctx).await
                    } else {
                        TaskPayload::Working
                    };
                    return Ok(GetTaskResult::new(DetailedTask::new(
                        wire::modern_task(&ask, status),
                        payload,
                    )));
                }
            },
        };
        Ok(GetTaskResult::new(DetailedTask::new(
            wire::modern_task(&ask, status),
            payload,
        )))
    }

    /// The form askd would put in front of the human for a pending ask now, under its key:
    /// `askd_answer`, or `askd_answer:<question id>` for a survey's question.
    async fn current_form(
        &self,
        ask_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<(String, rmcp::model::ElicitRequest)> {
        let (plan, ask) = self.plan(ask_id, ctx).await?;
        if !plan.is_form() {
            return None;
        }
        match self
            .next_step(ask_id, &plan, &ask, None, &Round::default())
            .await
        {
            Step::Send(request, question) => {
                let key = match question {
                    Some(q) => format!("{INPUT_KEY}:{q}"),
                    None => INPUT_KEY.to_string(),
                };
                Some((key, *request))
            }
            _ => None,
        }
    }

    /// `tasks/update` (2026-07-28): the reply to the form `tasks/get` sent, applied as a
    /// reply in the client always is — an answer submitted (a survey's banked), a decline
    /// settling the ask cancelled. A reply to a form that is no longer the current one, or
    /// an answer the daemon refuses, is an error saying so; the next `tasks/get` shows the
    /// form again.
    pub(super) async fn modern_update(
        &self,
        request: UpdateTaskParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let id = request.task_id;
        let (ask, status) = self.task_state(&id, ctx).await?;
        if ask["state"] == "pending" && !self.may_answer(&id, &ask) {
            return Err(ErrorData::invalid_params(
                format!(
                    "task {id:?} was started by another connection: only the connection that asked it (or one in its session) answers it in the client — the human answers it at {}",
                    ask["url"].as_str().unwrap_or("its page")
                ),
                None,
            ));
        }
        if status != Status::InputRequired {
            return Err(ErrorData::invalid_params(
                format!(
                    "task {id:?} is {} and asks for no input: call tasks/get for its state",
                    status.as_str()
                ),
                None,
            ));
        }
        let Some((key, _)) = self.current_form(&id, ctx).await else {
            return Ok(());
        };
        let Some(reply) = request.input_responses.get(&key) else {
            let sent: Vec<&String> = request.input_responses.keys().collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "inputResponses has no {key:?} (got {sent:?}): the form askd asks now is {key:?} — call tasks/get for it"
                ),
                None,
            ));
        };
        let reply =
            serde_json::from_value::<rmcp::model::ElicitResult>(reply.clone()).map_err(|e| {
                ErrorData::invalid_params(
                    format!("inputResponses.{key} is not an elicitation result ({e})"),
                    None,
                )
            })?;
        let Some((plan, _)) = self.plan(&id, ctx).await else {
            return Ok(());
        };
        let question = key.strip_prefix(&format!("{INPUT_KEY}:"));
        // Sent through tasks/update by the client's own act: never an automatic decline.
        let elapsed = crate::elicit::AUTOMATIC_DECLINE * 2;
        match self
            .apply_reply(&id, &plan, (question, &Round::default()), reply, elapsed)
            .await
        {
            Reply::Again(problem) => Err(ErrorData::invalid_params(
                problem,
                Some(json!({"taskId": id, "key": key})),
            )),
            _ => Ok(()),
        }
    }

    /// `tasks/cancel` (2026-07-28).
    pub(super) async fn modern_cancel(
        &self,
        request: CancelTaskParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel(&request.task_id, ctx).await.map(|_| ())
    }
}
