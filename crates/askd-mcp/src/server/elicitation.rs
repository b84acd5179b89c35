//! The ask in front of the human inside the client (`clients.md` §3): the plan for the
//! calling client, the next form (or the page's URL), what a reply does to the ask, and —
//! for 2025 revisions — the `elicitation/create` request raced against the wait. The
//! 2026-07-28 round trip is `super::round`'s.

use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use super::round::ToolOutcome;
use crate::backend::ToolError;

/// The next thing a client is asked (see `AskdServer::next_step`).
pub(super) enum Step {
    /// This request; for a survey, the question it asks.
    Send(Box<rmcp::model::ElicitRequest>, Option<String>),
    /// The ask is settled (a walked survey was submitted, or it settled elsewhere).
    Settled,
    /// Nothing more to ask: the call only waits.
    Stop,
}

/// Where a form round stands: the client's form style, and — between a stepwise form's
/// choices and its text form — the choices' reply and the survey question asked.
#[derive(Debug, Clone, Default)]
pub(super) struct Round {
    pub(super) style: crate::stepwise::Style,
    pub(super) partial: Option<Value>,
    pub(super) question: Option<String>,
}

/// What a reply did (see `AskdServer::apply_reply`).
pub(super) enum Reply {
    /// The daemon refused the answer: ask again, opening with this.
    Again(String),
    /// A stepwise form's choices asked for text: send its text form, this reply kept.
    Followup(Value),
    /// A survey answer was banked: ask the next question.
    Next,
    /// Nothing more to ask.
    Done,
}

/// A form request's params, when the schema is one the SDK's elicitation schema admits.
fn form_params(message: String, schema: Value) -> Option<rmcp::model::ElicitRequestParams> {
    let requested_schema = serde_json::from_value::<rmcp::model::ElicitationSchema>(schema)
        .map_err(|e| tracing::warn!("an elicitation form did not build: {e}"))
        .ok()?;
    Some(rmcp::model::ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    })
}

impl AskdServer {
    /// The plan for a pending ask and the calling client, if any (`clients.md` §3).
    pub(super) async fn plan(
        &self,
        ask_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<(crate::elicit::FormPlan, Value)> {
        let modes = Self::modes(ctx);
        if !(modes.form || modes.url) {
            return None;
        }
        // The Settings page's value, when one is saved, takes the place of this adapter's.
        let setting = self
            .backend
            .saved_elicitation()
            .await
            .and_then(|s| crate::elicit::Elicitation::parse(&s))
            .unwrap_or(self.opts.elicitation);
        if setting == crate::elicit::Elicitation::Off {
            return None;
        }
        let ask = self.backend.ask(ask_id).await.ok()?;
        let plan = crate::elicit::plan(&ask, setting, modes)?;
        Some((plan, ask))
    }

    /// The request that puts `plan` in front of the human: a form, or the page's URL.
    fn elicit_request(
        &self,
        plan: &crate::elicit::FormPlan,
        ask: &Value,
        problem: Option<&str>,
        round: &Round,
    ) -> Option<rmcp::model::ElicitRequest> {
        use crate::stepwise::{self, Style};
        use rmcp::model::ElicitRequestParams;
        let lang = crate::elicit::plan_lang(plan, self.opts.language);
        let url = ask["url"].as_str().unwrap_or_default();
        let form = match (round.style, &round.partial) {
            (Style::Stepwise, Some(first)) => stepwise::followup(plan, first, lang),
            (Style::Stepwise, None) => stepwise::first(plan, lang, url, problem),
            (Style::Combined, _) => crate::elicit::form(plan, lang, url, problem),
        };
        let params = match form {
            Some((message, schema)) => form_params(message, schema)?,
            None => {
                let id = ask["ask_id"].as_str().unwrap_or_default().to_string();
                self.url_elicited
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.clone());
                ElicitRequestParams::UrlElicitationParams {
                    meta: None,
                    message: crate::elicit::url_message(ask, lang),
                    url: self.page_link(url),
                    elicitation_id: id,
                }
            }
        };
        Some(rmcp::model::ElicitRequest::new(params))
    }

    /// The next request of `plan` for the ask: the plan's one request, or — for a survey —
    /// the form of the first question on the path (the daemon's path engine, over what is
    /// banked) not banked yet. A survey whose whole path is banked is submitted here
    /// (`Step::Settled`).
    pub(super) async fn next_step(
        &self,
        ask_id: &str,
        plan: &crate::elicit::FormPlan,
        ask: &Value,
        problem: Option<&str>,
        round: &Round,
    ) -> Step {
        use crate::stepwise::{self, Style};
        let crate::elicit::FormPlan::Survey(spec) = plan else {
            return match self.elicit_request(plan, ask, problem, round) {
                Some(r) => Step::Send(Box::new(r), None),
                None => Step::Stop,
            };
        };
        if let (Some(first), Some(q)) = (&round.partial, &round.question) {
            // The text a stepwise survey question's choice asked for.
            return match stepwise::survey_followup(spec, q, first, self.opts.language)
                .and_then(|(m, schema)| form_params(m, schema))
            {
                Some(p) => Step::Send(
                    Box::new(rmcp::model::ElicitRequest::new(p)),
                    Some(q.clone()),
                ),
                None => Step::Stop,
            };
        }
        let Ok(view) = self.backend.ask(ask_id).await else {
            return Step::Stop;
        };
        if view["state"] != "pending" {
            return Step::Settled;
        }
        let (answers, banked) = crate::elicit::banked_answers(&view);
        let Ok(path) = self.backend.path(ask_id, &answers).await else {
            return Step::Stop;
        };
        let Some((index, next)) = path.iter().enumerate().find(|(_, q)| !banked.contains(q)) else {
            // Every question on the path is banked: the survey is complete.
            return match self
                .backend
                .submit(ask_id, &crate::elicit::survey_submit(&view, &path))
                .await
            {
                Ok(_) => Step::Settled,
                Err(e) => {
                    tracing::info!(ask_id, code = %e.code, "the walked survey's submit was refused; waiting for the page");
                    Step::Stop
                }
            };
        };
        let lang = self.opts.language;
        let url = view["url"].as_str().unwrap_or_default();
        let form = match round.style {
            Style::Stepwise => {
                stepwise::survey_first(spec, next, index, path.len(), lang, url, problem)
            }
            Style::Combined => {
                crate::elicit::survey_form(spec, next, index, path.len(), lang, url, problem)
            }
        };
        match form.and_then(|(m, schema)| form_params(m, schema)) {
            Some(p) => Step::Send(
                Box::new(rmcp::model::ElicitRequest::new(p)),
                Some(next.clone()),
            ),
            None => Step::Stop,
        }
    }

    /// What an elicitation's reply does to the ask (`clients.md` §3): an accepted form is
    /// submitted through the page's own submit — a survey question's answer is banked, as the
    /// wizard banks it — and the daemon validates ([`Reply::Again`] with its message when it
    /// refused the answer); a human's decline settles the ask cancelled; a dismissed form, a
    /// URL reply and a decline faster than [`crate::elicit::AUTOMATIC_DECLINE`] leave it
    /// pending. A lost race (409) keeps whatever settled first.
    pub(super) async fn apply_reply(
        &self,
        ask_id: &str,
        plan: &crate::elicit::FormPlan,
        (question, round): (Option<&str>, &Round),
        reply: rmcp::model::ElicitResult,
        elapsed: Duration,
    ) -> Reply {
        use crate::stepwise::{self, Style};
        use rmcp::model::ElicitationAction;
        if !plan.is_form() {
            return Reply::Done;
        }
        let lang = crate::elicit::plan_lang(plan, self.opts.language);
        match reply.action {
            ElicitationAction::Accept => {
                let mut content = reply.content.unwrap_or_else(|| json!({}));
                if round.style == Style::Stepwise {
                    let survey = match (plan, question) {
                        (crate::elicit::FormPlan::Survey(spec), Some(q)) => Some((spec, q)),
                        _ => None,
                    };
                    let (first, second) = match &round.partial {
                        Some(first) => (first.clone(), content),
                        None => {
                            let more = match survey {
                                Some((spec, q)) => {
                                    stepwise::survey_followup(spec, q, &content, lang).is_some()
                                }
                                None => stepwise::followup(plan, &content, lang).is_some(),
                            };
                            if more {
                                return Reply::Followup(content);
                            }
                            (content, Value::Null)
                        }
                    };
                    content = match survey {
                        Some((spec, q)) => stepwise::survey_combined(spec, q, &first, &second),
                        None => stepwise::combined(plan, &first, &second),
                    };
                }
                let sent = match (plan, question) {
                    (crate::elicit::FormPlan::Survey(spec), Some(q)) => self
                        .backend
                        .bank(ask_id, &crate::elicit::survey_entry(spec, q, &content))
                        .await
                        .map(|()| Reply::Next),
                    _ => self
                        .backend
                        .submit(ask_id, &crate::elicit::answers(plan, &content))
                        .await
                        .map(|_| Reply::Done),
                };
                match sent {
                    Ok(r) => r,
                    Err(e) if e.code.starts_with("invalid-answer") => {
                        Reply::Again(crate::elicit::refused(lang, &e.message))
                    }
                    // Settled elsewhere meanwhile (409), or the daemon is gone: the wait
                    // returns whatever is stored.
                    Err(_) => Reply::Done,
                }
            }
            ElicitationAction::Decline if elapsed < crate::elicit::AUTOMATIC_DECLINE => {
                // Declined before anyone could read it: the client cannot show forms.
                tracing::info!(
                    ask_id,
                    "the client declined the form at once; waiting for the page"
                );
                Reply::Done
            }
            ElicitationAction::Decline => {
                let _ = self.backend.cancel(ask_id).await;
                Reply::Done
            }
            // Dismissed: the ask stays pending in the inbox.
            _ => Reply::Done,
        }
    }

    /// [`Self::wait_answering`], then — when this connection sent the ask's page as a
    /// URL-mode elicitation and the ask is no longer pending — the 2025-11-25
    /// `notifications/elicitation/complete` with its `elicitationId` (the ask id), so the
    /// client can close what it opened.
    pub(super) async fn answering(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        let result = self.wait_answering(ask_id, budget, ctx).await;
        let sent = self
            .url_elicited
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(ask_id);
        if sent
            && !Self::round_trips(ctx)
            && self
                .backend
                .ask(ask_id)
                .await
                .is_ok_and(|v| v["state"] != "pending")
        {
            self.url_elicited
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(ask_id);
            let complete = rmcp::model::CustomNotification::new(
                "notifications/elicitation/complete",
                Some(json!({"elicitationId": ask_id})),
            );
            let _ = ctx
                .peer
                .send_notification(rmcp::model::ServerNotification::CustomNotification(
                    complete,
                ))
                .await;
        }
        result
    }

    /// The wait of a new ask, with the ask also in front of the human inside the client when
    /// it can show it (`clients.md` §3): the first valid answer wins. 2025 revisions get a
    /// server request (`elicitation/create`) racing the wait ([`Self::elicit_race`]);
    /// 2026-07-28 gets the `input_required` round trip ([`Self::first_round`]). Every
    /// return goes through the normal wait, so the result is the stored one.
    async fn wait_answering(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        if Self::apps(ctx) || super::tasks::starting() {
            // The host renders the app from this result (issue 20), or the client polls the
            // task it starts (issue 33): the pending handle goes back at once, and the agent
            // continues with await_answer or the task's requests.
            let _ = budget;
            return self
                .wait(ask_id, Some(Duration::ZERO), ctx)
                .await
                .map(ToolOutcome::Done);
        }
        let Some((plan, ask)) = self.plan(ask_id, ctx).await else {
            return self.wait(ask_id, budget, ctx).await.map(ToolOutcome::Done);
        };
        let round = Round {
            style: crate::stepwise::Style::for_client(&Self::client_name(ctx)),
            ..Round::default()
        };
        if Self::round_trips(ctx) {
            return self
                .first_round(ask_id, budget, (&plan, &ask), &round, ctx)
                .await;
        }
        self.elicit_race(ask_id, budget, (&plan, &ask), round, ctx)
            .await
            .map(ToolOutcome::Done)
    }

    /// 2025 revisions: the plan's requests (`elicitation/create`), one after another, each
    /// raced against the wait and withdrawn with `notifications/cancelled` when the ask
    /// settles elsewhere.
    async fn elicit_race(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        (plan, ask): (&crate::elicit::FormPlan, &Value),
        mut round: Round,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        use rmcp::model::{ClientResult, ElicitResult, ServerRequest};
        use rmcp::service::PeerRequestOptions;

        let waiting = self.wait(ask_id, budget, ctx);
        tokio::pin!(waiting);
        let mut problem: Option<String> = None;
        // A refused answer is re-asked with the daemon's message; after three refusals of
        // one answer the call only waits (the page and the terminal stay open).
        let mut refusals = 0;
        loop {
            let Step::Send(request, question) = self
                .next_step(ask_id, plan, ask, problem.as_deref(), &round)
                .await
            else {
                break;
            };
            let sent = Instant::now();
            let Ok(mut form) = ctx
                .peer
                .send_cancellable_request(
                    ServerRequest::ElicitRequest(*request),
                    PeerRequestOptions::no_options(),
                )
                .await
            else {
                break;
            };
            let reply = tokio::select! {
                r = &mut waiting => {
                    // Settled elsewhere (page, terminal) or the call ended: withdraw it.
                    let _ = form.cancel(Some("the ask was settled elsewhere".into())).await;
                    return r;
                }
                reply = &mut form.rx => reply,
            };
            let answer = match reply {
                Ok(Ok(ClientResult::ElicitResult(r))) => Some(r),
                Ok(Ok(other)) => serde_json::to_value(&other)
                    .ok()
                    .and_then(|v| serde_json::from_value::<ElicitResult>(v).ok()),
                _ => None,
            };
            let Some(answer) = answer else {
                break;
            };
            match self
                .apply_reply(
                    ask_id,
                    plan,
                    (question.as_deref(), &round),
                    answer,
                    sent.elapsed(),
                )
                .await
            {
                Reply::Again(p) => {
                    refusals += 1;
                    if refusals >= 3 {
                        break;
                    }
                    problem = Some(p);
                    round.partial = None;
                }
                Reply::Followup(first) => {
                    problem = None;
                    round.partial = Some(first);
                    round.question = question;
                }
                Reply::Next => {
                    problem = None;
                    refusals = 0;
                    round.partial = None;
                }
                Reply::Done => break,
            }
        }
        waiting.await
    }
}
