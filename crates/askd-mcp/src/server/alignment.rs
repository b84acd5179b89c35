//! The alignment tools (`alignment.md` §5): their arguments, the gate that refuses a tool
//! the session's mode does not list, the alignment tail on a question's result, the mode
//! notice, and `report_drift`.

use std::sync::atomic::Ordering;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use super::errors::{invalid_argument, invalid_arguments, session_error};
use super::round::ToolOutcome;
use crate::backend::ToolError;
use crate::tools;
use askd_core::alignment::policy::instructions_section;
use askd_core::alignment::{
    CHECK_NOTE_MAX, Mode, check_instruction, mode_notice, normalize_question,
};

impl AskdServer {
    /// The session an alignment tool runs in and its status, or `alignment_off` when the
    /// session's mode does not list the tool (§5.1: a stale client's call records nothing).
    async fn alignment_gate(
        &self,
        name: &str,
        args: &Value,
        before: Option<usize>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(String, Value), ToolError> {
        let session = self.alignment_session(args, ctx).await?;
        let mut body = self.configured();
        if let Some(b) = before {
            body["before"] = json!(b);
        }
        let status = self
            .backend
            .alignment(&session, "status", &body)
            .await
            .map_err(session_error)?;
        let effective = Mode::parse(status["mode"]["effective"].as_str().unwrap_or("auto"))
            .unwrap_or(Mode::Auto);
        if tools::alignment_off(name, effective) {
            return Err(ToolError::new(
                "alignment_off",
                format!(
                    "{name} is unavailable: alignment is off for this session. Call set_alignment_mode with mode \"auto\" or \"manual\" (or \"default\") to switch it back on."
                ),
            ));
        }
        Ok((session, status))
    }

    /// Attaches the alignment tail to a question result in `auto` mode (`alignment.md`
    /// §5.7, §5.8): the structured `alignment` member, and the tail as a text block.
    async fn with_alignment(
        &self,
        result: Value,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        self.with_alignment_in(result, args, ctx, None).await
    }

    /// [`Self::with_alignment`] in `session` when given, else in this connection's.
    pub(super) async fn with_alignment_in(
        &self,
        mut result: Value,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
        session: Option<String>,
    ) -> Result<Value, ToolError> {
        if result.get("error").is_some() || !result.is_object() {
            return Ok(result);
        }
        let session = match session {
            Some(s) => s,
            None => match self.session(ctx).await {
                Ok(s) => s,
                Err(_) => return Ok(result),
            },
        };
        let this_ask = result
            .get("ask_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut body = self.configured();
        // repeat_of is looked up by the daemon among all the session's decisions; the status
        // lists only a page of them.
        body["repeat"] = json!({"ask_id": this_ask, "questions": asked_questions(args)});
        let Ok(view) = self.backend.alignment(&session, "status", &body).await else {
            return Ok(result);
        };
        let notice = self.announce(&view, ctx).await;
        if view["mode"]["effective"] != "auto" {
            // manual / off: the member only carries a one-shot notice.
            if let Some(n) = notice {
                result["alignment"] =
                    json!({"session": session, "mode": view["mode"]["effective"], "notice": n});
            }
            return Ok(result);
        }
        let repeat_of = match view.get("repeat_of") {
            Some(r) => r.clone(),
            // A daemon of an older askd answers without it: its page is all it has.
            None => repeat_of_settled(&view, args, &this_ask),
        };
        result["alignment"] = json!({
            "session": session,
            "mode": "auto",
            "rounds": view["rounds"],
            "posture": view["posture"],
            "baseline_revision": view["baseline"]["revision"].as_u64().unwrap_or(0),
            "repeat_of": repeat_of,
            "guidance": view["guidance"],
            "notice": notice,
        });
        Ok(result)
    }

    /// T7, once: when the session's effective mode differs from the mode announced to this
    /// connection, the notice (with the policy text when switching to `auto` on a connection
    /// that lacks it), and the announced mode moves on.
    /// [`Self::mode_notice`], and when the announced mode moved, `tools/list_changed` and
    /// `prompts/list_changed` to this connection (§3.4).
    async fn announce(&self, view: &Value, ctx: &RequestContext<RoleServer>) -> Option<String> {
        let notice = self.mode_notice(view)?;
        let _ = ctx.peer.notify_tool_list_changed().await;
        let _ = ctx.peer.notify_prompt_list_changed().await;
        // A 2026-07-28 client hears list changes on its subscriptions/listen streams.
        let sinks = self
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for sink in sinks {
            let _ = sink.notify_tool_list_changed().await;
            let _ = sink.notify_prompt_list_changed().await;
        }
        Some(notice)
    }

    fn mode_notice(&self, view: &Value) -> Option<String> {
        let effective = Mode::parse(view["mode"]["effective"].as_str()?)?;
        let mut announced = self.announced.lock().unwrap_or_else(|e| e.into_inner());
        if *announced == effective {
            return None;
        }
        *announced = effective;
        let policy = (effective == Mode::Auto && !self.has_policy.swap(true, Ordering::SeqCst))
            .then(|| instructions_section(self.lang(), self.opts.alignment_section.as_deref()));
        let actor = view["mode"]["set_by"].as_str().unwrap_or("configuration");
        Some(mode_notice(
            effective,
            actor,
            policy.as_deref(),
            self.lang(),
        ))
    }

    /// `align`, `alignment_status` and `set_alignment_mode` (`alignment.md` §5.2–§5.4).
    pub(super) async fn alignment_tool(
        &self,
        name: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        // Validate every argument before anything is recorded (§5.1).
        if name == tools::ESTABLISH_BASELINE
            && let Err(problems) = askd_core::alignment::baseline::validate(&args)
        {
            return Err(invalid_arguments(&problems));
        }
        let allowed: &[&str] = match name {
            tools::ESTABLISH_BASELINE => &askd_core::alignment::baseline::FIELDS,
            tools::ALIGN => &["session", "note"],
            tools::ALIGNMENT_STATUS => &["session", "detail", "before"],
            _ => &["session", "mode"],
        };
        if let Some(obj) = args.as_object()
            && let Some(unknown) = obj.keys().find(|k| !allowed.contains(&k.as_str()))
        {
            return Err(invalid_argument(
                unknown,
                &format!("unknown field {unknown:?}; allowed: {}", allowed.join(", ")),
            ));
        }
        let note = match args.get("note") {
            None | Some(Value::Null) => None,
            Some(Value::String(n))
                if !n.trim().is_empty() && n.trim().chars().count() <= CHECK_NOTE_MAX =>
            {
                Some(n.trim().to_string())
            }
            Some(_) => {
                return Err(invalid_argument(
                    "note",
                    &format!("note must be 1 to {CHECK_NOTE_MAX} characters"),
                ));
            }
        };
        match args.get("detail") {
            None | Some(Value::Null) => {}
            Some(Value::String(d)) if d == "summary" || d == "full" => {}
            Some(_) => {
                return Err(invalid_argument(
                    "detail",
                    "detail must be \"summary\" or \"full\"",
                ));
            }
        }
        let mode = match args.get("mode").and_then(Value::as_str) {
            Some(m @ ("auto" | "manual" | "off" | "default")) => Some(m.to_string()),
            _ if name == tools::SET_ALIGNMENT_MODE => {
                return Err(invalid_argument(
                    "mode",
                    "mode must be one of \"auto\", \"manual\", \"off\" or \"default\"",
                ));
            }
            _ => None,
        };
        let before = match args.get("before") {
            None | Some(Value::Null) => None,
            Some(b) => Some(b.as_u64().map(|b| b as usize).ok_or_else(|| {
                invalid_argument(
                    "before",
                    "before must be a non-negative integer: the cursor a previous alignment_status gave in settled_decisions_page.before",
                )
            })?),
        };
        let (session, status) = self.alignment_gate(name, &args, before, ctx).await?;
        let configured = self.configured();
        let mut result = self
            .alignment_result(
                name,
                &args,
                &session,
                (status, configured),
                note.as_deref(),
                mode,
                ctx,
            )
            .await?;
        // What the agent reads stays small however long the session is (clients.md §2.8).
        if name == tools::ALIGNMENT_STATUS {
            askd_core::alignment::status::bound_status(&mut result, before);
        } else if result.get("status").is_some_and(Value::is_object) {
            askd_core::alignment::status::bound_status(&mut result["status"], None);
        }
        Ok(result)
    }

    /// The daemon's answer to one alignment tool, before it is bounded for the agent.
    #[allow(clippy::too_many_arguments)]
    async fn alignment_result(
        &self,
        name: &str,
        args: &Value,
        session: &str,
        (status, configured): (Value, Value),
        note: Option<&str>,
        mode: Option<String>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let session = session.to_string();
        let note = note.map(str::to_string);
        match name {
            tools::ALIGNMENT_STATUS if args.get("detail") == Some(&json!("full")) => {
                let mut body = configured;
                body["detail"] = json!("full");
                if let Some(b) = status["settled_decisions_page"].get("to") {
                    // The page the gate's status listed (its `before`, applied).
                    body["before"] = b.clone();
                }
                self.backend
                    .alignment(&session, "status", &body)
                    .await
                    .map_err(session_error)
            }
            tools::ALIGNMENT_STATUS => Ok(status),
            tools::ESTABLISH_BASELINE => {
                let mut body = configured;
                let mut a = args.clone();
                if let Some(o) = a.as_object_mut() {
                    o.remove("session");
                }
                body["args"] = a;
                self.backend
                    .alignment(&session, "baseline", &body)
                    .await
                    .map_err(session_error)
            }
            tools::ALIGN => {
                let mut body = configured;
                body["via"] = json!("tool");
                if let Some(n) = &note {
                    body["note"] = json!(n);
                }
                let mut r = self
                    .backend
                    .alignment(&session, "check", &body)
                    .await
                    .map_err(session_error)?;
                r["instruction"] = json!(check_instruction(self.lang(), note.as_deref()));
                Ok(r)
            }
            _ => {
                let mut body = configured;
                body["mode"] = json!(mode);
                body["actor"] = json!("agent");
                let r = self
                    .backend
                    .alignment(&session, "mode", &body)
                    .await
                    .map_err(session_error)?;
                let changed = r["changed"].as_bool().unwrap_or(false);
                // The switch was made from this connection: the notice (and any policy
                // text) comes back in this result.
                let notice = self.announce(&json!({"mode": r["mode"]}), ctx).await;
                let policy = notice
                    .as_deref()
                    .and_then(|n| n.split_once("\n\n"))
                    .map(|(_, p)| p.to_string());
                Ok(json!({
                    "session": session,
                    "changed": changed,
                    "mode": r["mode"],
                    "notice": notice,
                    "policy": policy,
                }))
            }
        }
    }

    /// `report_drift` (`alignment.md` §5.6): validate, report (or re-attach) in the daemon,
    /// then wait for the card like any ask.
    pub(super) async fn drift_tool(
        &self,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        // Every argument is validated before anything is recorded (§5.1).
        if let Err(problems) = askd_core::alignment::drift::validate(&args) {
            return Err(invalid_arguments(&problems));
        }
        let client = Self::client_name(ctx);
        let budget = self.budget(&args, &client, "invalid_argument")?;
        let (session, _) = self
            .alignment_gate(tools::REPORT_DRIFT, &args, None, ctx)
            .await?;
        let mut body = self.configured();
        let mut a = args.clone();
        if let Some(o) = a.as_object_mut() {
            o.remove("session");
            o.remove("timeout_s");
        }
        body["args"] = a;
        let reported = self
            .backend
            .alignment(&session, "report_drift", &body)
            .await
            .map_err(session_error)?;
        if reported.get("error").is_some() {
            return Ok(ToolOutcome::Done(reported));
        }
        let result = match reported.get("result") {
            Some(r) if !r.is_null() => {
                let ask_id = r["ask_id"].as_str().unwrap_or_default();
                self.grant(ask_id, &session, false);
                r.clone()
            }
            _ => {
                let ask_id = reported["ask_id"].as_str().unwrap_or_default().to_string();
                self.grant(&ask_id, &session, reported["created"] == true);
                if reported["created"] == true
                    && self.first_ask.swap(false, Ordering::SeqCst)
                    && let Some(hook) = &self.opts.on_first_ask
                {
                    hook(reported["url"].as_str().unwrap_or_default());
                }
                match self.answering(&ask_id, budget, ctx).await? {
                    ToolOutcome::Done(result) => result,
                    round => return Ok(round),
                }
            }
        };
        Ok(ToolOutcome::Done(
            self.with_guidance(result, &session).await,
        ))
    }

    /// [`Self::with_alignment`] on a done call's result; a round unchanged.
    pub(super) async fn with_alignment_done(
        &self,
        outcome: ToolOutcome,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        match outcome {
            ToolOutcome::Done(result) => self
                .with_alignment(result, args, ctx)
                .await
                .map(ToolOutcome::Done),
            round => Ok(round),
        }
    }

    /// The session's tail lines as `guidance` on an alignment result (auto and manual mode,
    /// §5.8), read after the result so they reflect it.
    pub(super) async fn with_guidance(&self, mut result: Value, session: &str) -> Value {
        if !result.is_object() || result.get("error").is_some() || session.is_empty() {
            return result;
        }
        if let Ok(view) = self
            .backend
            .alignment(session, "status", &self.configured())
            .await
            && view["mode"]["effective"] != "off"
        {
            result["guidance"] = view["guidance"].clone();
        }
        result
    }
}

/// The question texts of an `ask_user_question` call's arguments, in order.
fn asked_questions(args: &Value) -> Vec<&str> {
    match args.get("questions") {
        Some(Value::Array(qs)) => qs
            .iter()
            .filter_map(|q| q.get("question").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

/// `{ask_id, question_id, chosen}` of the first settled decision (of another ask) that one of
/// the asked questions repeats (`alignment.md` §5.7).
fn repeat_of_settled(view: &Value, args: &Value, this_ask: &str) -> Value {
    let settled = view["settled_decisions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let asked: Vec<String> = asked_questions(args)
        .into_iter()
        .map(normalize_question)
        .collect();
    for q in asked.iter().filter(|q| !q.is_empty()) {
        if let Some(d) = settled.iter().find(|d| {
            d["ask_id"] != this_ask
                && d["question"].as_str().map(normalize_question).as_ref() == Some(q)
        }) {
            return json!({"ask_id": d["ask_id"], "question_id": d["question_id"], "chosen": d["chosen"]});
        }
    }
    Value::Null
}
