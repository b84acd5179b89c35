//! Asks of kind `review` (`review.md`): the `batch_review` lifecycle between the HTTP and MCP
//! surfaces and the store. Validation, the fold, exports and imports are the core's
//! (`askd_core::review`); this module resolves `persist` on the file system, settles once,
//! writes the persist file and shapes records.
//!
//! # Settling
//! Every settle of a review — submit, import, cancel, withdraw — runs under a per-ask lock:
//! load (must be pending), validate and fold, write the `persist` file (atomically), then
//! commit the settlement with the result that already carries `persisted` or
//! `persist_error`. The lock keeps a losing submit from writing the file of an answer that
//! never settles; the store's compare-and-set still decides the winner. A settle that
//! arrives late gets 409 `not-pending` with the review's actual `outcome`, `surface` and
//! `settledAt`.
//!
//! The settle lock is the daemon's ([`crate::locks::Locks::review_settle`]).
//!
//! # Routes (in `crate::http::review`)
//! - `POST /api/asks/{id}/import` `{format: "csv"|"json", content, dry_run?}`
//! - `GET /api/asks/{id}/export?format=csv|html|json`

use askd_core::Outcome;
use std::path::{Component, Path, PathBuf};

use askd_core::AskKind;
use askd_core::Problem;
use askd_core::json::Json;
use askd_core::review::answers::validate_submit;
use askd_core::review::fold::{self, FoldedItem, PENDING_INSTRUCTION};
use askd_core::review::import::{self as imports, Format};
use askd_core::review::validate::validate_with;
use askd_core::review::{Limits, ReviewSpec, Surface, draft, export};
use askd_store::{Ask, AskState, NewAsk, Settlement};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use super::{CreateAsk, Room};
use crate::asks::{invalid_answers, sha256_hex};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// The stored normal form of a review ask.
pub fn spec(ask: &Ask) -> ApiResult<ReviewSpec> {
    serde_json::from_value(ask.payload.clone())
        .map_err(|e| ApiError::internal(format!("stored review of {} is unreadable: {e}", ask.id)))
}

/// 422 `invalid-review` with every problem (the tool error `invalid_review`, `review.md` §3.2).
fn invalid_review(problems: Vec<Problem>) -> ApiError {
    let n = problems.len();
    let mut e = ApiError::invalid("invalid-review", None, problems);
    e.message = format!(
        "batch_review rejected: {n} problem{}; nothing was shown to the reviewer.",
        if n == 1 { "" } else { "s" }
    );
    e
}

/// 422 for a refused import: at most 100 problems listed (then `too_many_errors`), and
/// `problem_count`, every problem the file had.
fn invalid_import(refused: imports::Refused) -> ApiError {
    let total = refused.total;
    let mut e = invalid_answers(refused.problems);
    let mut details = Map::new();
    details.insert("problem_count".into(), json!(total));
    e.details = Some(Box::new(details));
    e
}

/// 409 with the review's actual outcome.
fn already_settled(ask: &Ask) -> ApiError {
    let mut e = ApiError::not_pending(&ask.id);
    let mut details = Map::new();
    details.insert("outcome".into(), json!(ask.outcome));
    details.insert(
        "surface".into(),
        ask.result
            .as_ref()
            .and_then(|r| r.get("surface"))
            .cloned()
            .unwrap_or(Value::Null),
    );
    details.insert("settledAt".into(), json!(ask.settled_at));
    e.details = Some(Box::new(details));
    e
}

fn not_a_review(ask: &Ask) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "not-a-review",
        format!(
            "ask {} is of kind {:?}; import and export apply to reviews",
            ask.id, ask.kind
        ),
    )
}

/// The recorded answers of a settled review, for exports: its result items (none when it
/// was cancelled).
fn recorded(ask: &Ask) -> Option<Vec<FoldedItem>> {
    if ask.state != AskState::Settled {
        return None;
    }
    Some(
        ask.result
            .as_ref()
            .and_then(|r| r.get("items"))
            .and_then(|i| serde_json::from_value(i.clone()).ok())
            .unwrap_or_default(),
    )
}

/// The review room.
pub struct Review;

impl Room for Review {
    const KIND: AskKind = AskKind::Review;

    /// Validates `batch_review` arguments (with the `persist` checks against the session's
    /// workspace) into the ask to create.
    async fn admit(&self, d: &Daemon, session_id: &str, req: &CreateAsk<'_>) -> ApiResult<NewAsk> {
        let args = &req.args;
        let workspace = d
            .store
            .session(session_id)
            .await
            .map_err(|e| ApiError::store(e, "-"))?
            .and_then(|s| s.workspace);
        let limits = Limits {
            max_items: d.max_items(),
            max_body_bytes: d.max_body_bytes(),
        };
        let allow = d.settings.allow_external_persist;
        let spec = validate_with(args, &limits, &mut |p| {
            persist::check(workspace.as_deref(), p, allow).err()
        })
        .map_err(invalid_review)?;
        let payload = serde_json::to_value(&spec).map_err(|e| ApiError::internal(e.to_string()))?;
        let key = sha256_hex(&payload.to_string());
        Ok(NewAsk {
            id: uuid::Uuid::now_v7().to_string(),
            session_id: session_id.to_string(),
            kind: AskKind::Review.as_str().into(),
            title: Some(spec.title.clone()),
            payload,
            payload_key: key,
            fingerprint: None,
            replaces: None,
            seed_banked: Vec::new(),
            seed_autosave: None,
            return_undelivered: false,
            expiry: None,
            approvals: None,
        })
    }

    /// The sanitised draft of a review (`PUT /api/asks/{id}/autosave`).
    fn autosave(&self, ask: &Ask, body: &Json<'_>) -> ApiResult<Value> {
        let spec = spec(ask)?;
        draft::sanitize(&spec, body).map_err(|p| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-autosave",
                p.message,
            )
        })
    }

    /// Answers from the card, panel or terminal.
    async fn submit(&self, d: &Daemon, ask: Ask, body: &Json<'_>) -> ApiResult<Value> {
        self.settle_locked(d, &ask.id, |ask, spec| {
            if spec.offline {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "offline-review",
                    format!("review {} is offline: export it, fill the file and import it (askd review import)", ask.id),
                ));
            }
            let sub = validate_submit(spec, body).map_err(invalid_answers)?;
            let surface = sub.surface.unwrap_or_else(|| spec.default_surface());
            Ok((
                Outcome::Answered,
                fold::answered_result(spec, &ask.id, surface, &sub.answers),
            ))
        })
        .await
    }

    /// Cancel (the reviewer) or withdraw (the agent): no verdicts.
    async fn end(
        &self,
        d: &Daemon,
        ask: Ask,
        outcome: Outcome,
        reason: Option<&str>,
    ) -> ApiResult<Value> {
        let reason = reason.filter(|r| !r.trim().is_empty()).map(str::to_string);
        self.settle_locked(d, &ask.id, |ask, spec| {
            let mut r =
                fold::cancelled_result(spec, &ask.id, outcome.as_str(), spec.default_surface());
            if let Some(reason) = reason {
                r["reason"] = json!(reason);
            }
            Ok((outcome, r))
        })
        .await
    }

    /// The pending handle of a review.
    fn pending(&self, d: &Daemon, ask: &Ask) -> ApiResult<Value> {
        let mut v = json!({
            "outcome": "pending",
            "ask_id": ask.id,
            "url": d.ask_url(&ask.id),
            "instruction": PENDING_INSTRUCTION,
        });
        if let Some(t) = &ask.title {
            v["title"] = json!(t);
        }
        Ok(v)
    }

    /// The review members of `GET /api/asks/{id}`: `rendered` (each item's `detail` as
    /// sanitised HTML) and `review` (what the panel needs besides the spec).
    fn view(&self, d: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        let spec = spec(ask)?;
        let mut items = Map::new();
        for i in &spec.items {
            let mut r = Map::new();
            if let Some(detail) = &i.detail {
                r.insert("detail".into(), json!(crate::render::markdown(detail)));
            }
            items.insert(i.id.clone(), Value::Object(r));
        }
        v["rendered"] = json!({"items": items});
        // Each item's verdicts, from the core: the panel and the terminal UI offer these.
        let verdicts: Map<String, Value> = spec
            .items
            .iter()
            .map(|i| (i.id.clone(), json!(i.verdict_values())))
            .collect();
        let exports: Vec<String> = ["csv", "html", "json"]
            .iter()
            .map(|f| format!("/api/asks/{}/export?format={f}", ask.id))
            .collect();
        v["review"] = json!({
            "lang": spec.lang.as_str(),
            "offline": spec.offline,
            "surface": spec.default_surface().as_str(),
            "virtualThreshold": d.virtual_threshold(),
            "maxItems": d.max_items(),
            "csvHint": spec.items.len() >= 50,
            "exports": exports,
            "verdicts": verdicts,
        });
        Ok(())
    }

    /// A review's view needs nothing of the session's alignment.
    async fn show(&self, _: &Daemon, _: &Ask, _: &mut Value) -> ApiResult<()> {
        Ok(())
    }
}

impl Review {
    /// Settles a review once, under its lock: `make` validates and builds `(outcome,
    /// result)`; the persist file is written; the settlement commits.
    async fn settle_locked<F>(&self, d: &Daemon, ask_id: &str, make: F) -> ApiResult<Value>
    where
        F: FnOnce(&Ask, &ReviewSpec) -> ApiResult<(Outcome, Value)>,
    {
        let lock = d.locks.review_settle(ask_id);
        let _guard = lock.lock().await;
        // Other daemons on a shared database too: a losing submit there writes no file.
        let _shared = d
            .store
            .hold(&format!("review-settle:{ask_id}"))
            .await
            .map_err(|e| ApiError::store(e, ask_id))?;
        let ask = d.load(ask_id).await?;
        if AskKind::parse(&ask.kind) != Ok(AskKind::Review) {
            return Err(not_a_review(&ask));
        }
        if ask.state != AskState::Pending {
            d.locks.review_settled(ask_id);
            return Err(already_settled(&ask));
        }
        let spec = spec(&ask)?;
        let (outcome, mut result) = make(&ask, &spec)?;
        let settled_at = askd_store::now();
        if let Some(p) = spec.persist.clone() {
            let workspace = ask.workspace.clone();
            let allow = d.settings.allow_external_persist;
            let content = persist_content(&result, &spec.title, &settled_at);
            let written = tokio::task::spawn_blocking(move || {
                persist::write(workspace.as_deref(), &p, allow, &content)
            })
            .await
            .unwrap_or_else(|e| Err(format!("the persist task failed: {e}")));
            match written {
                Ok(path) => result["persisted"] = json!(path.to_string_lossy()),
                Err(why) => result["persist_error"] = json!(why),
            }
        }
        let mut record = json!({
            "v": 1,
            "askId": ask.id,
            "kind": AskKind::Review.as_str(),
            "session": ask.session_id,
            "workspace": ask.workspace,
            "client": ask.client,
            "outcome": outcome,
            "createdAt": ask.created_at,
            "settledAt": settled_at,
            "title": spec.title,
            "spec": ask.payload,
            "result": result,
        });
        if outcome != Outcome::Answered {
            record["autosave"] = ask.autosave.clone().unwrap_or(Value::Null);
        }
        let settlement = Settlement {
            delivered: outcome.delivered_on_settle(),
            outcome: outcome.into(),
            result,
            record,
            settled_at,
            expect_banked: None,
            submission: None,
        };
        let settled = match d.settle(self, &ask, settlement, &[]).await {
            Ok(s) => s,
            Err(askd_store::StoreError::NotPending) => {
                d.locks.review_settled(ask_id);
                return Err(already_settled(&d.load(ask_id).await?));
            }
            Err(e) => return Err(ApiError::store(e, ask_id)),
        };
        d.locks.review_settled(ask_id);
        Ok(settled.result)
    }

    /// Import a filled CSV or JSON file; with `dry_run`, only validate and preview.
    pub async fn import(
        &self,
        d: &Daemon,
        ask_id: &str,
        format: Format,
        content: &str,
        dry_run: bool,
    ) -> ApiResult<Value> {
        let ask = d.load(ask_id).await?;
        if AskKind::parse(&ask.kind) != Ok(AskKind::Review) {
            return Err(not_a_review(&ask));
        }
        if ask.state != AskState::Pending {
            return Err(already_settled(&ask));
        }
        let url = d.ask_url(ask_id);
        if dry_run {
            let spec = spec(&ask)?;
            let imported =
                imports::import(&spec, &ask.id, format, content).map_err(invalid_import)?;
            let items = fold::fold(&spec, &imported.answers);
            let summary = fold::summary(&items);
            let unfilled: Vec<&str> = items
                .iter()
                .filter(|i| !i.filled)
                .map(|i| i.id.as_str())
                .collect();
            return Ok(json!({
                "ok": true,
                "dry_run": true,
                "counts": fold::counts_line(&spec, &summary),
                "summary": summary,
                "unfilled": unfilled,
                "missing": imported.missing,
                "url": url,
            }));
        }
        let mut missing = Vec::new();
        let result = self
            .settle_locked(d, ask_id, |ask, spec| {
                let imported =
                    imports::import(spec, &ask.id, format, content).map_err(invalid_import)?;
                missing = imported.missing;
                Ok((
                    Outcome::Answered,
                    fold::answered_result(spec, &ask.id, Surface::Import, &imported.answers),
                ))
            })
            .await?;
        let spec = spec(&ask)?;
        let summary: fold::Summary =
            serde_json::from_value(result["summary"].clone()).unwrap_or_default();
        Ok(json!({
            "ok": true,
            "outcome": Outcome::Answered,
            "counts": fold::counts_line(&spec, &summary),
            "missing": missing,
            "url": url,
            "result": result,
        }))
    }

    /// An export of a review: `(content type, file name, body)`.
    pub async fn export(
        &self,
        d: &Daemon,
        ask_id: &str,
        format: &str,
    ) -> ApiResult<(&'static str, String, String)> {
        let ask = d.load(ask_id).await?;
        if AskKind::parse(&ask.kind) != Ok(AskKind::Review) {
            return Err(not_a_review(&ask));
        }
        let spec = spec(&ask)?;
        let rec = recorded(&ask);
        let rec = rec.as_deref();
        Ok(match format {
            "csv" => (
                "text/csv; charset=utf-8",
                format!("{ask_id}.csv"),
                export::csv(&spec, rec),
            ),
            "json" => (
                "application/json",
                format!("{ask_id}.json"),
                serde_json::to_string_pretty(&export::json(&spec, &ask.id, rec))
                    .unwrap_or_default()
                    + "\n",
            ),
            "html" => {
                let details: Vec<Option<String>> = spec
                    .items
                    .iter()
                    .map(|i| i.detail.as_deref().map(crate::render::markdown))
                    .collect();
                (
                    "text/html; charset=utf-8",
                    format!("{ask_id}.html"),
                    export::html(&spec, &ask.id, &details, d.virtual_threshold(), rec),
                )
            }
            other => {
                return Err(ApiError::invalid(
                    "invalid-request",
                    None,
                    vec![Problem::new(
                        "format",
                        "invalid_value",
                        format!("format must be csv, html or json (got {other:?})"),
                    )],
                ));
            }
        })
    }
}

/// What the persist file holds: `report_text` for a `.md` path is decided at write time, so
/// both forms travel: `(json, markdown)`.
fn persist_content(result: &Value, title: &str, settled_at: &str) -> (String, String) {
    let mut out = Map::new();
    if let Some(r) = result.as_object() {
        for (k, v) in r {
            if k == "persisted" || k == "persist_error" {
                continue;
            }
            out.insert(k.clone(), v.clone());
            if k == "ask_id" {
                out.insert("title".into(), json!(title));
            }
            if k == "surface" {
                out.insert("settled_at".into(), json!(settled_at));
            }
        }
    }
    let json_text = serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default() + "\n";
    let md = result["report_text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
        + "\n";
    (json_text, md)
}

/// `persist` on the file system (`review.md` §7.1): resolution and confinement, checked when
/// the call is validated and again when the file is written; the atomic write.
pub mod persist {
    use super::*;

    fn unavailable() -> Problem {
        Problem::new(
            "persist",
            "persist_unavailable",
            "persist needs a workspace on the askd host; omit persist and save the result yourself",
        )
    }

    fn invalid(why: String) -> Problem {
        Problem::new("persist", "persist_invalid", format!("persist {why}"))
    }

    /// The canonical form of `p`: the longest leading run of components that exists is
    /// canonicalised (symlinks resolved, `..` with its real meaning); the rest may not be
    /// `.` or `..`.
    fn resolve(p: &Path) -> Result<PathBuf, String> {
        let comps: Vec<Component> = p.components().collect();
        let mut k = comps.len();
        let base = loop {
            if k == 0 {
                break PathBuf::new();
            }
            let prefix: PathBuf = comps[..k].iter().collect();
            if std::fs::symlink_metadata(&prefix).is_ok() {
                break std::fs::canonicalize(&prefix).map_err(|e| {
                    format!(
                        "cannot be resolved: {} ({e}; a dangling symbolic link?)",
                        prefix.display()
                    )
                })?;
            }
            k -= 1;
        };
        let mut out = base;
        for c in &comps[k..] {
            match c {
                Component::Normal(n) => out.push(n),
                _ => {
                    return Err(format!(
                        "uses . or .. below {}, which does not exist yet",
                        out.display()
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Resolves `path` against `workspace` and checks it (§7.1 steps 1–4).
    pub fn check(
        workspace: Option<&str>,
        path: &str,
        allow_external: bool,
    ) -> Result<PathBuf, Problem> {
        let ws = workspace.ok_or_else(unavailable)?;
        let root = std::fs::canonicalize(ws).map_err(|_| unavailable())?;
        if !root.is_dir() {
            return Err(unavailable());
        }
        let raw = Path::new(path);
        let joined = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            root.join(raw)
        };
        let resolved = resolve(&joined).map_err(invalid)?;
        if !allow_external && (!resolved.starts_with(&root) || resolved == root) {
            return Err(Problem::new(
                "persist",
                "persist_outside_workspace",
                format!(
                    "persist resolves to {}, outside the workspace {}; use a path inside the workspace",
                    resolved.display(),
                    root.display()
                ),
            ));
        }
        if resolved.is_dir() {
            return Err(invalid(format!(
                "names a directory: {}",
                resolved.display()
            )));
        }
        Ok(resolved)
    }

    /// Writes the persist file atomically through [`crate::atomic::write`] (a temporary file
    /// created exclusively under a random name in the same directory, flushed, renamed over
    /// the target — nothing planted there is followed); `content` is `(json, markdown)`.
    /// Returns the canonical path written, or why not.
    pub fn write(
        workspace: Option<&str>,
        path: &str,
        allow_external: bool,
        content: &(String, String),
    ) -> Result<PathBuf, String> {
        let target = check(workspace, path, allow_external).map_err(|p| p.message)?;
        let parent = target
            .parent()
            .ok_or_else(|| format!("persist has no parent directory: {}", target.display()))?;
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        // Creating the directories may have changed what the path resolves to: check again.
        let target = check(workspace, path, allow_external).map_err(|p| p.message)?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_md = Path::new(&name)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"));
        let text = if is_md { &content.1 } else { &content.0 };
        crate::atomic::write(&target, text.as_bytes(), 0o666)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        Ok(target)
    }
}
