//! `GET`/`PUT /api/settings`: the Settings page (see [`crate::settings`]).

use std::sync::Arc;

use axum::Json as AxumJson;
use axum::extract::State;
use serde_json::Value;

use crate::daemon::Daemon;
use crate::error::ApiResult;
use crate::http::extract::JsonBody;

pub async fn show(State(d): State<Arc<Daemon>>) -> ApiResult<AxumJson<Value>> {
    Ok(AxumJson(d.settings_view().await?))
}

pub async fn save(State(d): State<Arc<Daemon>>, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let parsed = body.object()?;
    Ok(AxumJson(d.save_settings(&parsed).await?))
}
