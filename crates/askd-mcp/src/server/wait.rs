//! The waiting calls: an ask tool creates its ask and waits for it (with the ask in front
//! of the human inside the client when it can show it, `super::elicitation`); the wait loop
//! sends progress and stops, settling nothing, when the client cancels.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use super::errors::{ARGUMENTS_CODE, argument_error};
use super::round::{ToolOutcome, carry_draft};
use crate::backend::{CreatedAsk, ToolError};

impl AskdServer {
    /// Waits for `ask_id` within `budget`, sending progress when the client asked for it,
    /// and stopping (without settling anything) when the client cancels.
    pub(super) async fn wait(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let started = Instant::now();
        let deadline = budget.map(|b| started + b);
        let token = ctx.meta.get_progress_token();
        let _ = self.backend.set_awaited(ask_id, true).await;
        loop {
            let mut chunk = self.opts.progress_interval;
            if let Some(d) = deadline {
                chunk = chunk.min(d.saturating_duration_since(Instant::now()));
            }
            let result = tokio::select! {
                r = self.backend.wait(ask_id, chunk) => r?,
                _ = ctx.ct.cancelled() => return Err(self.cancelled(ask_id).await),
            };
            if result["outcome"] != "pending" {
                return Ok(result);
            }
            if result["deferred_until"].is_string() {
                // The human put the ask off ("ask me again in …"): a call with a budget
                // hands back the pending handle now, saying when to come back; a wait for
                // the settle (a task's result) looks again later instead of spinning.
                if deadline.is_some() {
                    let _ = self.backend.set_awaited(ask_id, false).await;
                    return Ok(result);
                }
                tokio::select! {
                    _ = tokio::time::sleep(self.opts.progress_interval) => {}
                    _ = ctx.ct.cancelled() => return Err(self.cancelled(ask_id).await),
                }
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                // The pending handle goes back: nobody waits on the ask until an
                // await_answer (or a re-attach) does again.
                let _ = self.backend.set_awaited(ask_id, false).await;
                return Ok(result);
            }
            if let Some(token) = &token {
                let message = self.progress_message(ask_id).await;
                let _ = ctx
                    .peer
                    .notify_progress(
                        // Seconds waited, to the millisecond: MCP requires the value to
                        // increase with every notification, even at sub-second intervals.
                        ProgressNotificationParam::new(
                            token.clone(),
                            started.elapsed().as_millis() as f64 / 1000.0,
                        )
                        .with_message(message),
                    )
                    .await;
            }
        }
    }

    /// The turn was aborted: the ask stays answerable, no longer awaited.
    async fn cancelled(&self, ask_id: &str) -> ToolError {
        let _ = self.backend.set_awaited(ask_id, false).await;
        ToolError::new(
            "CANCELLED",
            "the tool call was cancelled; the ask stays pending — collect it later with await_answer",
        )
    }

    /// `waiting for the user — 3 answered, 2 banked`.
    async fn progress_message(&self, ask_id: &str) -> String {
        let Ok(ask) = self.backend.ask(ask_id).await else {
            return "waiting for the user".into();
        };
        let banked = ask["banked"].as_array().map_or(0, Vec::len);
        let drafted = ask["autosave"]["answers"].as_object().map_or(0, |m| {
            m.values()
                .filter(|a| {
                    a["selected"].as_array().is_some_and(|s| !s.is_empty())
                        || a["custom"].as_str().is_some_and(|c| !c.trim().is_empty())
                        // A review's draft: {verdict, note}.
                        || a["verdict"].as_str().is_some_and(|v| !v.is_empty())
                })
                .count()
        });
        format!(
            "waiting for the user — {} answered, {banked} banked",
            banked + drafted
        )
    }

    /// An ask tool (`ask_survey`, `ask_user_question`, `batch_review`): the ask created (or
    /// re-attached) in the call's session, then the wait of it ([`Self::answering`]).
    pub(super) async fn ask_tool(
        &self,
        kind: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        let client = Self::client_name(ctx);
        // ask_user_question and batch_review check timeout_s with the rest of their
        // arguments (in the daemon); a survey's is checked here, before anything is recorded.
        if !matches!(kind, "questions" | "review") {
            self.budget(&args, &client, ARGUMENTS_CODE)?;
        }
        // A call rejected for invalid arguments never records a session (alignment.md
        // §4.1): a connection's first question is checked before its session is recorded.
        if matches!(kind, "survey" | "questions")
            && self.known_session().is_none()
            && !ctx.meta.contains_key("askd/session")
        {
            self.backend.check(kind, &args).await?;
        }
        let session = self.session(ctx).await?.to_string();
        let replaces = args.get("replaces").and_then(Value::as_str);
        let created: CreatedAsk = self.backend.create(&session, kind, &args, replaces).await?;
        self.grant(&created.ask_id, &session, created.created);
        if created.created
            && self.first_ask.swap(false, Ordering::SeqCst)
            && let Some(hook) = &self.opts.on_first_ask
        {
            hook(&created.url);
        }
        let budget = self.budget(&args, &client, ARGUMENTS_CODE)?;
        self.answering(&created.ask_id, budget, ctx).await
    }

    /// `survey_draft_launch` (`survey.md` §10.6): the gate and the ask in the daemon, then
    /// the same wait as `ask_survey`; the result names the draft.
    pub(super) async fn launch_tool(
        &self,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        let client = Self::client_name(ctx);
        let budget = self.budget(&args, &client, ARGUMENTS_CODE)?;
        let session = self.session(ctx).await?.to_string();
        let launched = self.backend.draft_launch(&session, &args).await?;
        self.grant(&launched.ask_id, &session, launched.created);
        if launched.created
            && self.first_ask.swap(false, Ordering::SeqCst)
            && let Some(hook) = &self.opts.on_first_ask
        {
            hook(&launched.url);
        }
        let outcome = self.answering(&launched.ask_id, budget, ctx).await?;
        let outcome = carry_draft(&self.opts.seal, outcome, &launched.draft);
        Ok(outcome.map(|result| askd_core::survey::draft::launch_result(result, &launched.draft)))
    }

    /// `await_answer`: the wait of an ask asked earlier (its pending handle's `ask_id`). A
    /// question's result carries the alignment tail here too, a drift card's the guidance.
    pub(super) async fn await_answer(
        &self,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let Some(ask_id) = args.get("ask_id").and_then(Value::as_str) else {
            return Err(argument_error(
                "ask_id",
                "ask_id is required: the ask_id of the pending handle",
            ));
        };
        let client = Self::client_name(ctx);
        let budget = self.budget(&args, &client, ARGUMENTS_CODE)?;
        let result = self.wait(ask_id, budget, ctx).await?;
        // A question's result carries the alignment tail here too (§5.7); a drift
        // card's result carries the guidance lines like report_drift's.
        let ask = self.backend.ask(ask_id).await.ok();
        // A connection that has recorded no session yet (a stateless `/mcp` request,
        // a fresh adapter) reads the tail of the ask's own session rather than
        // opening an empty one for it.
        let tail_session = (self.known_session().is_none()
            && ctx.meta.get("askd/session").is_none())
        .then(|| {
            ask.as_ref()
                .and_then(|a| a["session"].as_str())
                .map(str::to_string)
        })
        .flatten();
        let kind = ask.and_then(|a| a["kind"].as_str().map(str::to_string));
        match kind.as_deref() {
            Some("questions" | "survey") => {
                self.with_alignment_in(result, &json!({}), ctx, tail_session)
                    .await
            }
            Some("drift") => {
                let session = result["session"].as_str().unwrap_or_default().to_string();
                Ok(self.with_guidance(result, &session).await)
            }
            _ => Ok(result),
        }
    }
}
