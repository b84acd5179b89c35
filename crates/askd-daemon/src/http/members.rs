//! Team members (`crate::members`), install's token only (the fence keeps members and
//! devices out):
//!
//! - `GET /api/members` — `{members: [{id, name, createdAt}]}`.
//! - `POST /api/members` `{name, agent?}` — 201 `{member: {id, name, createdAt, kind},
//!   token, loginUrl}`: the token is shown this once; `loginUrl`
//!   (`<publicUrl or address>/login/<token>`) signs a browser in as the member. With
//!   `agent: true` the token is an agent's (Bearer, `askd mcp --url URL --token-file F`):
//!   `url` instead of `loginUrl`. Any other member is 422 `unknown_field`; a name that
//!   breaks the names rule (`crate::names`) 422 `name_invalid` / `name_invisible`. 409
//!   `member-exists` when the name is taken, or looks like a member's name.
//! - `DELETE /api/members/{id}` — revokes (the id, or the name): 204; 404 when unknown.

use std::sync::Arc;

use axum::Json as AxumJson;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use askd_core::json::Json;

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{JsonBody, field_problem, opt_str, refuse_unknown};
use crate::members::AddError;

pub async fn list(State(d): State<Arc<Daemon>>) -> AxumJson<Value> {
    d.members.load(d.store.as_ref()).await;
    AxumJson(json!({ "members": d.members.list() }))
}

pub async fn add(
    State(d): State<Arc<Daemon>>,
    body: JsonBody,
) -> ApiResult<(StatusCode, AxumJson<Value>)> {
    let b = body.object()?;
    refuse_unknown(&b, &["name", "agent"])?;
    let Some(name) = opt_str(&b, "name")? else {
        return Err(field_problem(
            "name",
            "name_missing",
            "name is required: the member's name, e.g. {\"name\": \"Ana\"}".into(),
        ));
    };
    let agent = match b.as_object().and_then(|o| o.get_present("agent")) {
        None | Some(Json::Null) => false,
        Some(Json::Bool(a)) => *a,
        Some(_) => {
            return Err(field_problem(
                "agent",
                "agent_not_boolean",
                "agent must be true (a token for agents, askd mcp --url) or false (a person's login)".into(),
            ));
        }
    };
    match d.members.add(d.store.as_ref(), name, agent).await {
        Ok((member, token)) => {
            let mut body = json!({"member": member.view(), "token": token});
            // A person signs in with a link; an agent's token goes in a file.
            if !agent {
                body["loginUrl"] = json!(format!(
                    "{}/login/{token}",
                    d.link_base().trim_end_matches('/')
                ));
            } else {
                body["url"] = json!(d.link_base());
            }
            Ok((StatusCode::CREATED, AxumJson(body)))
        }
        Err(AddError::Name(code, why)) => Err(field_problem("name", code, why)),
        Err(AddError::Taken(name)) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "member-exists",
            format!(
                "a member named {name:?} exists already: pick another name, or revoke theirs first (askd members revoke {name:?})"
            ),
        )),
        Err(AddError::LooksLike { name, existing }) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "member-exists",
            format!(
                "{name:?} looks like the existing member {existing:?} (letters from another script, digits or case that read the same): pick a name that reads differently, or revoke theirs first (askd members revoke {existing:?})"
            ),
        )),
        Err(AddError::Other(e)) => Err(ApiError::internal(e)),
    }
}

pub async fn revoke(State(d): State<Arc<Daemon>>, Path(id): Path<String>) -> ApiResult<StatusCode> {
    match d.members.revoke(d.store.as_ref(), &id).await {
        Ok(Some(_)) => {
            // Its open streams and waits end now.
            d.people_changed();
            Ok(StatusCode::NO_CONTENT)
        }
        Ok(None) => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            format!(
                "no member has the id or name {id:?}; GET /api/members (askd members list) lists them"
            ),
        )),
        Err(e) => Err(ApiError::internal(e)),
    }
}
