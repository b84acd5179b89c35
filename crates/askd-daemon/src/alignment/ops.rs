//! The alignment operations (`POST /api/sessions/{id}/alignment/{op}`, `alignment.md` §5):
//! status, the one mode switch, a check, a baseline.

use super::*;

/// One alignment operation on a session (`POST /api/sessions/{id}/alignment/{op}`).
#[derive(Debug, Clone, Default)]
pub struct OpRequest {
    /// The configured mode as the MCP layer knows it (`None` = not configured).
    pub configured: Option<Mode>,
    /// `mode`: `auto`, `manual`, `off` or `default`.
    pub mode: Option<String>,
    /// `agent` or `human`.
    pub actor: Option<Actor>,
    /// `check`: `prompt` or `tool`.
    pub via: Option<String>,
    /// `check`: the human's focus.
    pub note: Option<String>,
    /// `baseline`: the `establish_baseline` arguments.
    pub args: Option<Value>,
    /// `status`: `summary` (default) or `full`.
    pub detail: Option<String>,
    /// Which settled decisions a status lists (`before`, `limit`).
    pub page: Page,
    /// `status`: `{ask_id, questions: [text]}` — also answer `repeat_of` for these questions
    /// (a question result's, §5.7), looked up by key.
    pub repeat: Option<(String, Vec<String>)>,
    /// The language of agent-facing texts (the tail, the report): the MCP layer's.
    pub lang: Lang,
}

impl OpRequest {
    /// From a JSON body `{configured?, mode?, actor?, via?, note?, args?, detail?, before?,
    /// limit?, repeat?, lang?}`; members of another type are ignored.
    pub fn from_value(v: &Value) -> Self {
        let text = |name: &str| v.get(name).and_then(Value::as_str).map(str::to_string);
        OpRequest {
            configured: text("configured").and_then(|m| Mode::parse(&m)),
            mode: text("mode"),
            actor: text("actor")
                .and_then(|a| Actor::parse(&a))
                .filter(|a| *a != Actor::Askd),
            via: text("via"),
            note: text("note"),
            args: v.get("args").cloned(),
            detail: text("detail"),
            page: Page {
                before: v.get("before").and_then(Value::as_u64).map(|b| b as usize),
                limit: v
                    .get("limit")
                    .and_then(Value::as_u64)
                    .map_or(Page::STATUS.limit, |l| (l as usize).min(Page::MAX_LIMIT)),
            },
            repeat: v.get("repeat").map(|r| {
                let questions = r["questions"].as_array().into_iter().flatten();
                (
                    r["ask_id"].as_str().unwrap_or_default().to_string(),
                    questions
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                )
            }),
            lang: text("lang").map_or(Lang::En, |l| Lang::parse(&l)),
        }
    }
}

pub(super) fn invalid(field: &str, message: String) -> ApiError {
    ApiError::invalid(
        "invalid-argument",
        None,
        vec![askd_core::Problem::new(field, "invalid_argument", message)],
    )
}

/// The mode a switch asks for, as both switches take it (`set_alignment_mode`'s
/// `POST …/alignment/mode` and the session page's `PUT …/alignment/mode`): `Some(mode)`, or
/// `None` for `"default"` (clear the override). Anything else is the one `invalid_mode`
/// problem at `mode`, naming the four legal values.
pub fn parse_mode(raw: Option<&str>) -> Result<Option<Mode>, askd_core::Problem> {
    pub(super) const LEGAL: &str = "\"auto\", \"manual\", \"off\" or \"default\"";
    match raw {
        None => Err(askd_core::Problem::new(
            "mode",
            "required",
            format!("mode is required: one of {LEGAL}"),
        )),
        Some("default") => Ok(None),
        Some(m) => Mode::parse(m).map(Some).ok_or_else(|| {
            askd_core::Problem::new(
                "mode",
                "invalid_mode",
                format!("mode must be one of {LEGAL}, got {m:?}"),
            )
        }),
    }
}

impl Alignment<'_> {
    /// The one mode switch: appends `alignment.mode_set` by `actor` when the override
    /// changes (nothing when it is the same); returns whether it changed.
    pub async fn set_mode(
        &self,
        session: &str,
        wanted: Option<Mode>,
        actor: Actor,
    ) -> ApiResult<bool> {
        let before = self.state_without_decisions(session).await?;
        if before.mode_override == wanted {
            return Ok(false);
        }
        self.store
            .append_session_event(
                session,
                EventKind::AlignmentModeSet.as_str(),
                json!({"mode": wanted.map(Mode::as_str), "actor": actor}),
            )
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        Ok(true)
    }
}

impl Alignment<'_> {
    /// Runs `status`, `mode` or `check` for a recorded session (`alignment.md` §5.2–§5.4).
    pub async fn run(&self, session: &str, op: AlignOp, req: OpRequest) -> ApiResult<Value> {
        let store = self.store;
        if store
            .session(session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?
            .is_none()
        {
            return Err(ApiError::store(
                askd_store::StoreError::UnknownSession(session.to_string()),
                "-",
            ));
        }
        let lang = req.lang;
        match op {
            AlignOp::Status => {
                let head = self.head(session).await?;
                let repeat = match &req.repeat {
                    Some((ask, questions)) => {
                        Some(self.repeat_of(session, &head, questions, ask).await?)
                    }
                    None => None,
                };
                let w = self.window(session, head, req.page).await?;
                let s = &w.state;
                let mut view = status_view(session, &w, req.configured, lang);
                if let Some(r) = repeat {
                    view["repeat_of"] = r;
                }
                if req.detail.as_deref() == Some("full") {
                    view["baseline_history"] = json!(s.history);
                    view["drifts"] = json!(s.drifts);
                    view["refusals"] = json!(s.refusals);
                    view["connections"] = json!(s.connections);
                }
                Ok(view)
            }
            AlignOp::Mode => {
                let wanted = parse_mode(req.mode.as_deref())
                    .map_err(|p| ApiError::invalid("invalid-request", None, vec![p]))?;
                let actor = req.actor.unwrap_or(Actor::Agent);
                let changed = self.set_mode(session, wanted, actor).await?;
                let w = self.windowed(session, req.page).await?;
                let view = status_view(session, &w, req.configured, lang);
                Ok(
                    json!({"session": session, "changed": changed, "mode": view["mode"], "status": view}),
                )
            }
            AlignOp::Check => {
                let via = if req.via.as_deref() == Some("prompt") {
                    "prompt"
                } else {
                    "tool"
                };
                let actor = if via == "prompt" { "human" } else { "agent" };
                let mut payload = json!({"via": via, "actor": actor});
                let note = req.note.as_deref().map(askd_core::alignment::check_note);
                if let Some(n) = note.transpose().map_err(|m| invalid("note", m))?.flatten() {
                    payload["note"] = json!(n);
                }
                // The check is recorded first and reported second; a failed write is reported,
                // not hidden (§5.2).
                let recorded = store
                    .append_session_event(session, EventKind::AlignmentChecked.as_str(), payload)
                    .await
                    .is_ok();
                let head = self.head(session).await?;
                let total = head.total();
                let listed = REPORT_DECISIONS.min(total);
                let first = match self.decisions(session, &head, 0, listed).await? {
                    Some(first) => first,
                    None => fold(&self.session_events(session).await?)
                        .settled
                        .into_iter()
                        .take(REPORT_DECISIONS)
                        .collect(),
                };
                let w = self.window(session, head, req.page).await?;
                let s = &w.state;
                let view = status_view(session, &w, req.configured, lang);
                Ok(json!({
                    "session": session,
                    "check": {"recorded": recorded, "count": s.checks, "at": s.last_check_at},
                    "status": view,
                    "report": report(session, s, (&first, w.total), req.configured, recorded, lang),
                    "instruction": askd_core::alignment::check_instruction(lang, req.note.as_deref()),
                }))
            }
            AlignOp::Baseline => self.establish_baseline(session, &req, lang).await,
            AlignOp::ReportDrift => Err(ApiError::internal(
                "report_drift runs through Daemon::alignment_op, not Alignment::run".to_string(),
            )),
        }
    }
}

/// A tool-level failure as askd's common envelope (`{"error": {code, field, message, …}}`).
pub(super) fn tool_failure(code: &str, field: &str, message: String, extra: Value) -> Value {
    let mut e =
        json!({"code": code, "field": field, "message": format!("establish_baseline: {message}")});
    if let (Some(e), Some(x)) = (e.as_object_mut(), extra.as_object()) {
        e.extend(x.clone());
    }
    json!({"error": e})
}

impl Alignment<'_> {
    /// `establish_baseline` (§5.5): validate, plan against the folded state, append.
    pub(super) async fn establish_baseline(
        &self,
        session: &str,
        req: &OpRequest,
        lang: Lang,
    ) -> ApiResult<Value> {
        use askd_core::alignment::baseline::{Plan, plan, validate};
        let store = self.store;
        let args = req.args.clone().unwrap_or_else(|| json!({}));
        let _serialised = self
            .locks
            .session(store, session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let valid = match validate(&args) {
            Ok(v) => v,
            Err(problems) => {
                return Ok(tool_failure(
                    "invalid_argument",
                    &problems[0].path,
                    askd_core::problem::join_messages(&problems),
                    json!({"errors": problems}),
                ));
            }
        };
        let before = self.state_without_decisions(session).await?;
        let (unchanged, record) = match plan(&before, &valid) {
            Plan::Fail(code, field, message) => {
                return Ok(tool_failure(code, field, message, json!({})));
            }
            Plan::Refuse { mut data, dropped } => {
                data["actor"] = json!("agent");
                store
                    .append_session_event(
                        session,
                        EventKind::AlignmentBaselineRefused.as_str(),
                        data,
                    )
                    .await
                    .map_err(|e| ApiError::store(e, "-"))?;
                let message = format!(
                    "this revision would drop protected items ({}) that no human decision authorised. Keep them, or report the change with report_drift and let the human decide.",
                    dropped.join("; ")
                );
                return Ok(tool_failure(
                    "protected_constraint",
                    "explicit_constraints",
                    message,
                    json!({"details": {"dropped": dropped}}),
                ));
            }
            Plan::Unchanged => (true, json!({})),
            Plan::Record(data) => {
                let mut event = data.clone();
                event["actor"] = json!("agent");
                store
                    .append_session_event(
                        session,
                        EventKind::AlignmentBaselineRecorded.as_str(),
                        event,
                    )
                    .await
                    .map_err(|e| ApiError::store(e, "-"))?;
                (false, data)
            }
        };
        let w = self.windowed(session, req.page).await?;
        let s = &w.state;
        let view = status_view(session, &w, req.configured, lang);
        let get = |k: &str, default: Value| record.get(k).cloned().unwrap_or(default);
        Ok(json!({
            "session": session,
            "revision": s.revision,
            "unchanged": unchanged,
            "baseline": view["baseline"],
            "changes": get("changes", json!({})),
            "applied": get("applied", json!([])),
            "dropped": get("dropped", json!([])),
            "authorised_by": get("authorised_by", json!([])),
            "warnings": get("warnings", json!([])),
            "posture": view["posture"],
            "instruction": format!("Baseline revision {} recorded. Continue within it.", s.revision),
            "guidance": view["guidance"],
        }))
    }
}
