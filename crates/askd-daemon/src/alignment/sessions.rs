//! Opening a session: new, continued, attached or forked (`alignment.md` §4.1, §4.2).

use super::*;

/// How a connection opens its session (`alignment.md` §4.1, §4.2).
#[derive(Debug, Clone, Default)]
pub struct SessionRequest {
    /// Continue this session (or create it with this id when `attach` is false and it does
    /// not exist yet).
    pub id: Option<String>,
    pub client: String,
    pub workspace: Option<String>,
    /// `stdio`, `http`…: descriptive metadata.
    pub transport: Option<String>,
    /// Continuing an existing session appends `session.attached` (the first continue of a
    /// connection).
    pub attach: bool,
    /// An unknown `id` is `unknown-session` (a selector), instead of a session created with
    /// that id (a harness-chosen id).
    pub must_exist: bool,
    /// Fork this session at this inclusive seq (its last when `None`).
    pub fork: Option<(String, Option<i64>)>,
}

pub(super) fn unknown_session(id: &str) -> ApiError {
    ApiError::store(askd_store::StoreError::UnknownSession(id.to_string()), "-")
}

impl Alignment<'_> {
    /// Records (or continues, or forks) a session and appends its `session.started` or
    /// `session.attached` (§4.1–§4.3). Returns `{session, created, origin}`.
    pub async fn record_session(&self, req: SessionRequest) -> ApiResult<Value> {
        let store = self.store;
        use askd_store::NewSession;
        let problems = askd_core::alignment::session::check_labels(&[
            ("client", Some(req.client.as_str())),
            ("workspace", req.workspace.as_deref()),
            ("transport", req.transport.as_deref()),
            ("id", req.id.as_deref()),
        ]);
        if !problems.is_empty() {
            return Err(ApiError::invalid("invalid-request", None, problems));
        }
        let mut meta =
            json!({"transport": req.transport.as_deref().unwrap_or("http"), "client": req.client});
        if let Some(cwd) = &req.workspace {
            meta["cwd"] = json!(cwd);
        }
        let store_err = |e| ApiError::store(e, "-");
        if let Some((parent, at)) = &req.fork {
            // Read the parent under its lock, so no event straddles the fork point.
            let _parent_lock = self.locks.session(store, parent).await.map_err(store_err)?;
            if store.session(parent).await.map_err(store_err)?.is_none() {
                return Err(unknown_session(parent));
            }
            let events = self.session_events(parent).await?;
            let last = events.len() as i64;
            let at = at.unwrap_or(last);
            if at < 1 || at > last {
                return Err(invalid(
                    "at",
                    format!(
                        "the fork point must be an event of session {parent}: 1 to {last}, got {at}"
                    ),
                ));
            }
            let snapshot = fold(&events[..at as usize]);
            let child = store
                .open_session(NewSession {
                    id: None,
                    client: req.client.clone(),
                    workspace: req.workspace.clone(),
                })
                .await
                .map_err(store_err)?;
            let mut data = meta;
            data["origin"] = json!("fork");
            data["parent"] = json!(parent);
            data["fork_at"] = json!(at);
            data["inherited"] = serde_json::to_value(&snapshot).unwrap_or(Value::Null);
            data["actor"] = json!("askd");
            store
                .append_session_event(&child.id, EventKind::SessionStarted.as_str(), data)
                .await
                .map_err(store_err)?;
            return Ok(json!({"session": child, "created": true, "origin": "fork"}));
        }
        if let Some(id) = &req.id {
            let _lock = self.locks.session(store, id).await.map_err(store_err)?;
            if let Some(existing) = store.session(id).await.map_err(store_err)? {
                if req.attach {
                    let mut data = meta;
                    data["actor"] = json!("askd");
                    store
                        .append_session_event(id, EventKind::SessionAttached.as_str(), data)
                        .await
                        .map_err(store_err)?;
                }
                return Ok(json!({"session": existing, "created": false, "origin": "continue"}));
            }
            if req.must_exist {
                return Err(unknown_session(id));
            }
        }
        let session = store
            .open_session(NewSession {
                id: req.id.clone(),
                client: req.client.clone(),
                workspace: req.workspace.clone(),
            })
            .await
            .map_err(store_err)?;
        let mut data = meta;
        data["origin"] = json!("new");
        data["actor"] = json!("askd");
        store
            .append_session_event(&session.id, EventKind::SessionStarted.as_str(), data)
            .await
            .map_err(store_err)?;
        Ok(json!({"session": session, "created": true, "origin": "new"}))
    }
}
