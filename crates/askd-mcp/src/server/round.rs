//! The 2026-07-28 `input_required` round trip: a server sends no request of its own, so a
//! form goes out as the call's result, with a sealed [`RoundState`] as its `requestState`;
//! the client's retry brings the reply (`resume`).

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use super::elicitation::{Reply, Round, Step};
use super::errors::{ARGUMENTS_CODE, timeout_arg};
use crate::backend::ToolError;
use crate::tools;

/// The tool error that stands for a 2026-07-28 `input_required` result (its `errors` member
/// holds the result); `call_tool` returns it as that result, never as an error.
pub const INPUT_REQUIRED: &str = "askd.input_required";

/// How long a 2026-07-28 call waits for the page before it sends the form, when a person
/// has the desk open ([`Backend::desk_open`]): long enough to answer a short ask on the
/// page the person is looking at, short enough that someone at the terminal soon gets the
/// form there.
pub const DESK_FIRST: Duration = Duration::from_secs(15);

/// The key of askd's one input request in `inputRequests` / `inputResponses`.
pub const ELICIT_KEY: &str = "askd_answer";

pub(super) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The `input_required` result (2026-07-28) carrying `request`, as the [`INPUT_REQUIRED`]
/// tool error `call_tool` turns into the result. Its `requestState` names the ask and the
/// session it was asked in, the survey question asked, when it went out and how many
/// answers were refused — sealed under the install's key ([`crate::seal`]), so a client
/// can only send it back as it was issued: a state naming another conversation's ask, or
/// an earlier `sent`, does not verify.
pub(super) fn input_required(
    seal: &crate::seal::Seal,
    (ask_id, session): (&str, &str),
    request: rmcp::model::ElicitRequest,
    question: Option<String>,
    (tries, partial): (u32, Option<Value>),
) -> ToolError {
    use rmcp::model::{InputRequest, InputRequiredResult};
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
    let result = InputRequiredResult::new(Some(requests), Some(sealed));
    let mut e = ToolError::new(INPUT_REQUIRED, "input required");
    e.errors = serde_json::to_value(result).ok();
    e.ask_id = Some(ask_id.to_string());
    e
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

/// `e` with the draft `slug` carried in its sealed `requestState` when it is an
/// `input_required` round (anything else unchanged), so the retry that resumes it returns
/// the launch's shape.
pub(super) fn carry_draft(seal: &crate::seal::Seal, mut e: ToolError, slug: &str) -> ToolError {
    use rmcp::model::InputRequiredResult;
    if e.code != INPUT_REQUIRED {
        return e;
    }
    let Some(mut r) = e
        .errors
        .clone()
        .and_then(|v| serde_json::from_value::<InputRequiredResult>(v).ok())
    else {
        return e;
    };
    let Some(mut state) = r
        .request_state
        .as_deref()
        .and_then(|s| seal.open::<RoundState>(crate::seal::Purpose::RequestState, s))
    else {
        return e;
    };
    state.draft = Some(slug.to_string());
    r.request_state = Some(seal.sign(crate::seal::Purpose::RequestState, &state));
    e.errors = serde_json::to_value(r).ok();
    e
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
    ) -> Result<Value, ToolError> {
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
                let e = input_required(
                    &self.opts.seal,
                    (&state.ask, &state.session),
                    *request,
                    question,
                    (tries, round.partial),
                );
                return Err(match &state.draft {
                    Some(slug) => carry_draft(&self.opts.seal, e, slug),
                    None => e,
                });
            }
        }
        let mut wait = json!({"ask_id": state.ask});
        if let Some(t) = args.get("timeout_s") {
            wait["timeout_s"] = t.clone();
        }
        let Some(slug) = &state.draft else {
            return self.run(tools::AWAIT_ANSWER, wait, ctx).await;
        };
        // A resumed survey_draft_launch returns what the launch would have.
        match self.run(tools::AWAIT_ANSWER, wait, ctx).await {
            Ok(result) => Ok(askd_core::survey::draft::launch_result(result, slug)),
            Err(e) => Err(carry_draft(&self.opts.seal, e, slug)),
        }
    }
}
