//! The 2026-07-28 `input_required` round trip: a server sends no request of its own, so a
//! form goes out as the call's result, with a sealed [`RoundState`] as its `requestState`;
//! the client's retry brings the reply (`resume`).

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::InputRequiredResult;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use super::elicitation::{Reply, Round, Step};
use super::errors::{ARGUMENTS_CODE, timeout_arg};
use crate::backend::ToolError;

/// What a call that can put its ask in front of the human returns: its result, or — under
/// 2026-07-28, where a server sends no request of its own — an `input_required` round,
/// which `call_tool` returns as that result (never as an error).
pub(super) enum ToolOutcome {
    Done(Value),
    InputRequired(InputRequiredResult),
}

impl ToolOutcome {
    /// The result shaped by `f` when the call is done; a round unchanged.
    pub(super) fn map(self, f: impl FnOnce(Value) -> Value) -> ToolOutcome {
        match self {
            ToolOutcome::Done(v) => ToolOutcome::Done(f(v)),
            round => round,
        }
    }
}

/// How long a 2026-07-28 call waits for the page before it sends the form, when a person
/// has the desk open ([`crate::backend::Backend::desk_open`]): long enough to answer a
/// short ask on the page the person is looking at, short enough that someone at the
/// terminal soon gets the form there.
pub const DESK_FIRST: Duration = Duration::from_secs(15);

/// The key of askd's one input request in `inputRequests` / `inputResponses`.
pub const ELICIT_KEY: &str = "askd_answer";

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The `input_required` round (2026-07-28) carrying `request`. Its `requestState` names
/// the ask and the session it was asked in, the survey question asked, when it went out and
/// how many answers were refused — sealed under the install's key ([`crate::seal`]), so a
/// client can only send it back as it was issued: a state naming another conversation's
/// ask, or an earlier `sent`, does not verify.
pub(super) fn input_required(
    seal: &crate::seal::Seal,
    (ask_id, session): (&str, &str),
    request: rmcp::model::ElicitRequest,
    question: Option<String>,
    (tries, partial): (u32, Option<Value>),
) -> ToolOutcome {
    use rmcp::model::InputRequest;
    let state = RoundState {
        ask: ask_id.to_string(),
        session: session.to_string(),
        q: question,
        sent: unix_ms(),
        tries,
        partial,
        draft: None,
    };
    let requests = [(ELICIT_KEY.to_string(), InputRequest::Elicitation(request))]
        .into_iter()
        .collect();
    let sealed = seal.sign(crate::seal::Purpose::RequestState, &state);
    ToolOutcome::InputRequired(InputRequiredResult::new(Some(requests), Some(sealed)))
}

/// The `requestState` of askd's `input_required` round trip, as sealed
/// ([`crate::seal::Purpose::RequestState`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundState {
    pub ask: String,
    /// The session the ask was asked in: a retry in another session is refused.
    pub session: String,
    /// The survey question asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<String>,
    /// When the request went out (Unix ms): a decline faster than
    /// [`crate::elicit::AUTOMATIC_DECLINE`] is not the human's.
    pub sent: u64,
    /// Answers refused so far.
    pub tries: u32,
    /// A stepwise form's first reply, when the request is its text form
    /// ([`crate::stepwise`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<Value>,
    /// The builder draft a `survey_draft_launch` launched (its slug): a resumed round shapes
    /// its result as the launch's (`launch_result`), not as `await_answer`'s. Absent for
    /// every other tool, and in states issued before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<String>,
}

/// `outcome` with the draft `slug` carried in its sealed `requestState` when it is an
/// `input_required` round (a result unchanged), so the retry that resumes it returns the
/// launch's shape.
pub(super) fn carry_draft(
    seal: &crate::seal::Seal,
    outcome: ToolOutcome,
    slug: &str,
) -> ToolOutcome {
    let ToolOutcome::InputRequired(mut r) = outcome else {
        return outcome;
    };
    let Some(mut state) = r
        .request_state
        .as_deref()
        .and_then(|s| seal.open::<RoundState>(crate::seal::Purpose::RequestState, s))
    else {
        return ToolOutcome::InputRequired(r);
    };
    state.draft = Some(slug.to_string());
    r.request_state = Some(seal.sign(crate::seal::Purpose::RequestState, &state));
    ToolOutcome::InputRequired(r)
}

/// The code of a `requestState` askd did not issue, or not for this call.
pub const REQUEST_STATE_REFUSED: &str = "REQUEST_STATE_REFUSED";

/// A retry whose `requestState` fails verification, or names an ask of another session:
/// refused, nothing applied and nothing waited on.
pub(super) fn state_refused(why: &str) -> ToolError {
    let message = format!(
        "requestState refused: {why}. askd signs the requestState of its input_required results and accepts back only what it issued to this conversation, unaltered — retry with the requestState exactly as received, or call the tool again without requestState and inputResponses"
    );
    let mut e = ToolError::new(REQUEST_STATE_REFUSED, message.clone());
    e.errors = Some(json!([{"path": "requestState", "code": "not_verified", "message": message}]));
    e
}

impl AskdServer {
    /// The first round of a new ask (2026-07-28): its first form as the call's
    /// `input_required` result, or — when there is nothing to send — the wait.
    ///
    /// A form, once out, stays in front of the human until they act on it, however the ask
    /// settles meanwhile. So when a person has the desk open (an inbox, an ask page, the
    /// terminal UI), the page goes first: the call waits like a 2025 one for
    /// [`DESK_FIRST`], returning the moment the page answers, and only then puts the form in
    /// the client.
    pub(super) async fn first_round(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        (plan, ask): (&crate::elicit::FormPlan, &Value),
        round: &Round,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        if plan.is_form() && self.backend.desk_open().await {
            let grace = budget.map_or(DESK_FIRST, |b| b.min(DESK_FIRST));
            let r = self.wait(ask_id, Some(grace), ctx).await?;
            if r["outcome"] != "pending" || budget.is_some_and(|b| b <= DESK_FIRST) {
                return Ok(ToolOutcome::Done(r));
            }
        }
        if let Step::Send(request, question) = self.next_step(ask_id, plan, ask, None, round).await
        {
            let session = ask["session"].as_str().unwrap_or_default();
            return Ok(input_required(
                &self.opts.seal,
                (ask_id, session),
                *request,
                question,
                (0, None),
            ));
        }
        self.wait(ask_id, budget, ctx).await.map(ToolOutcome::Done)
    }

    /// A 2026-07-28 retry (`inputResponses` + our `requestState`, verified by `call_tool`):
    /// the form's reply acts on the ask (a survey's next question is the next round), then
    /// the call waits like `await_answer` — so an ask settled elsewhere meanwhile returns its
    /// settled result. The state is bound to its ask and session: a retry that runs in
    /// another session (this connection's, or one its `_meta` names) is refused, and so is
    /// an invalid `timeout_s`, before anything is applied.
    pub(super) async fn resume(
        &self,
        args: Value,
        state: RoundState,
        responses: Option<&rmcp::model::InputResponses>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        timeout_arg(&args, ARGUMENTS_CODE)?;
        let current = ctx
            .meta
            .get("askd/session")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(str::to_string)
            .or_else(|| self.known_session());
        if current.is_some_and(|c| c != state.session) {
            return Err(state_refused(
                "it was issued for an ask of another session than this call's",
            ));
        }
        let view = self.backend.ask(&state.ask).await?;
        if view["session"] != state.session.as_str() {
            return Err(state_refused("it does not match its ask"));
        }
        // The retry runs in the session askd sealed into its state: a stateless request (a
        // new server per request on `/mcp`) must not open a second, empty session for it.
        self.adopt_session(&state.session);
        let reply = responses
            .and_then(|r| r.get(ELICIT_KEY))
            .and_then(|v| serde_json::from_value::<rmcp::model::ElicitResult>(v.clone()).ok());
        let planned = self.plan(&state.ask, ctx).await;
        if let (Some(reply), Some((plan, ask))) = (reply, planned) {
            let now = unix_ms();
            let elapsed = Duration::from_millis(now.saturating_sub(state.sent));
            let mut round = Round {
                style: crate::stepwise::Style::for_client(&Self::client_name(ctx)),
                partial: state.partial.clone(),
                question: state.q.clone(),
            };
            let (problem, tries) = match self
                .apply_reply(
                    &state.ask,
                    &plan,
                    (state.q.as_deref(), &round),
                    reply,
                    elapsed,
                )
                .await
            {
                Reply::Again(p) if state.tries < 2 => {
                    round.partial = None;
                    (Some(p), state.tries + 1)
                }
                Reply::Followup(first) => {
                    round.partial = Some(first);
                    (None, state.tries)
                }
                Reply::Next => {
                    round.partial = None;
                    (None, 0)
                }
                _ => (None, u32::MAX),
            };
            if tries != u32::MAX
                && let Step::Send(request, question) = self
                    .next_step(&state.ask, &plan, &ask, problem.as_deref(), &round)
                    .await
            {
                let round = input_required(
                    &self.opts.seal,
                    (&state.ask, &state.session),
                    *request,
                    question,
                    (tries, round.partial),
                );
                return Ok(match &state.draft {
                    Some(slug) => carry_draft(&self.opts.seal, round, slug),
                    None => round,
                });
            }
        }
        let mut wait = json!({"ask_id": state.ask});
        if let Some(t) = args.get("timeout_s") {
            wait["timeout_s"] = t.clone();
        }
        let result = self.await_answer(wait, ctx).await?;
        Ok(ToolOutcome::Done(match &state.draft {
            // A resumed survey_draft_launch returns what the launch would have.
            Some(slug) => askd_core::survey::draft::launch_result(result, slug),
            None => result,
        }))
    }
}
