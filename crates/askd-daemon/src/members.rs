//! Team members (team mode, platform §6): people with their own tokens, so every answer
//! records who gave it and a member can say they are on an ask.
//!
//! `askd members add NAME` (`POST /api/members`) creates a member and a **member token**
//! (256 random bits), returned once inside a login URL (`/login/<token>`); the daemon keeps
//! only its SHA-256. Opening the URL sets the `askd_member` cookie and lands on the inbox.
//! A member may do what a paired device may (answer: the access table, `crate::access`), plus
//! claim asks and read the records and session pages; Settings, members, devices and
//! pairing stay with the install's token. `members revoke` removes a member: its next
//! request is refused on this daemon at once, and on the others of a shared database when
//! they read the `settings.updated` event (`crate::follow`).
//!
//! An **agent** member (`askd members add --agent NAME`) is a token for agents on other
//! machines (`askd mcp --url … --token-file F`): sent as `Authorization: Bearer`, never as a
//! browser login, it may do what the install's token does except manage members, devices,
//! pairing and change settings (the `agent` column of the access table).
//!
//! Storage: the store's saved-settings map, one key `member.<id>` per member (as devices:
//! durable, no migration, one database shared by every daemon of a team).

use std::collections::HashMap;
use std::sync::Mutex;

use askd_store::Store;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::devices::{hash, random_hex};

/// The cookie that carries a member token.
pub const COOKIE: &str = "askd_member";
/// The longest member name.
pub const NAME_MAX: usize = 40;
const KEY_PREFIX: &str = "member.";

/// One member, as stored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub id: String,
    /// SHA-256 of the token, hex.
    pub hash: String,
    pub name: String,
    pub created_at: String,
    /// An agent's token (Bearer, for `askd mcp --url`), not a person's login.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub agent: bool,
}

impl Member {
    /// What the API shows (no hash).
    pub fn view(&self) -> Value {
        json!({
            "id": self.id, "name": self.name, "createdAt": self.created_at,
            "kind": if self.agent { "agent" } else { "person" },
        })
    }
}

/// The daemon's members, by token hash.
#[derive(Default)]
pub struct Members {
    inner: Mutex<HashMap<String, Member>>,
    /// Token hashes of the members revoked while this daemon ran (here, or read from the
    /// database): a request with one is `member-revoked`, any other unknown token
    /// `unknown-member`.
    revoked: Mutex<std::collections::HashSet<String>>,
}

/// Why a member was not added.
#[derive(Debug)]
pub enum AddError {
    /// The name breaks the names rule (`crate::names`): the problem code and a message
    /// saying what to do.
    Name(&'static str, String),
    /// Another member has this name (names are compared without case).
    Taken(String),
    /// The name looks like another member's (`crate::names::look_alike`): the name given
    /// and the existing one.
    LooksLike {
        name: String,
        existing: String,
    },
    Other(String),
}

/// A member name as given, checked by the names rule (`crate::names::check`): NFC,
/// trimmed, 1 to [`NAME_MAX`] characters, nothing hidden (control, format, zero-width or
/// text-direction characters).
pub fn clean_name(name: &str) -> Result<String, AddError> {
    crate::names::check(name, NAME_MAX)
        .map_err(|e| AddError::Name(e.code(), e.message("askd members add Ana")))
}

impl Members {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Member>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the members from the store (at start, and after another daemon saved
    /// settings): the stored members replace the ones in memory.
    pub async fn load(&self, store: &dyn Store) {
        let saved = match store.settings().await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the team's members");
                return;
            }
        };
        let mut members = HashMap::new();
        for (key, value) in saved.iter().filter(|(k, _)| k.starts_with(KEY_PREFIX)) {
            match serde_json::from_value::<Member>(value.clone()) {
                Ok(m) => {
                    members.insert(m.hash.clone(), m);
                }
                Err(e) => tracing::warn!(key, error = %e, "ignoring an unreadable member"),
            }
        }
        let mut inner = self.lock();
        let gone: Vec<String> = inner
            .keys()
            .filter(|h| !members.contains_key(*h))
            .cloned()
            .collect();
        *inner = members;
        drop(inner);
        self.revoked_lock().extend(gone);
    }

    fn revoked_lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.revoked.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the member with this id exists (not revoked).
    pub fn has(&self, id: &str) -> bool {
        self.lock().values().any(|m| m.id == id)
    }

    /// Whether this token was a member's that was revoked while this daemon ran.
    pub fn was_revoked(&self, token: &str) -> bool {
        self.revoked_lock().contains(&hash(token))
    }

    /// Adds a member: the member and its token (shown once, never stored).
    pub async fn add(
        &self,
        store: &dyn Store,
        name: &str,
        agent: bool,
    ) -> Result<(Member, String), AddError> {
        let name = clean_name(name)?;
        // Against the database's members, not only this daemon's: another daemon of the
        // team may have added one a moment ago.
        self.load(store).await;
        {
            let inner = self.lock();
            if inner
                .values()
                .any(|m| m.name.to_lowercase() == name.to_lowercase())
            {
                return Err(AddError::Taken(name));
            }
            let key = crate::names::look_alike_key(&name);
            if let Some(m) = inner
                .values()
                .find(|m| crate::names::look_alike_key(&m.name) == key)
            {
                return Err(AddError::LooksLike {
                    name,
                    existing: m.name.clone(),
                });
            }
        }
        let token = random_hex(32).map_err(AddError::Other)?;
        let member = Member {
            id: uuid::Uuid::now_v7().simple().to_string(),
            hash: hash(&token),
            name,
            created_at: askd_store::now(),
            agent,
        };
        let mut set = Map::new();
        set.insert(format!("{KEY_PREFIX}{}", member.id), json!(member));
        store
            .save_settings(&set, &[])
            .await
            .map_err(|e| AddError::Other(e.to_string()))?;
        self.lock().insert(member.hash.clone(), member.clone());
        Ok((member, token))
    }

    /// The member a token belongs to.
    pub fn check(&self, token: &str) -> Option<Member> {
        self.lock().get(&hash(token)).cloned()
    }

    /// The members, by name.
    pub fn list(&self) -> Vec<Value> {
        let inner = self.lock();
        let mut all: Vec<&Member> = inner.values().collect();
        all.sort_by_key(|m| (m.name.to_lowercase(), m.created_at.clone()));
        all.into_iter().map(Member::view).collect()
    }

    /// Revokes the member with this id (or, failing that, this name, without case): refused
    /// from now on, then removed from the store. `Ok(None)` when no member matches.
    pub async fn revoke(&self, store: &dyn Store, which: &str) -> Result<Option<Member>, String> {
        self.load(store).await;
        let removed = {
            let mut inner = self.lock();
            let hash = inner
                .values()
                .find(|m| m.id == which)
                .or_else(|| {
                    let which = crate::names::normal(which).to_lowercase();
                    inner
                        .values()
                        .find(|m| crate::names::normal(&m.name).to_lowercase() == which)
                })
                .map(|m| m.hash.clone());
            hash.and_then(|h| inner.remove(&h))
        };
        let Some(member) = removed else {
            return Ok(None);
        };
        self.revoked_lock().insert(member.hash.clone());
        store
            .save_settings(&Map::new(), &[format!("{KEY_PREFIX}{}", member.id)])
            .await
            .map_err(|e| e.to_string())?;
        Ok(Some(member))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert_eq!(clean_name("  Ana ").unwrap(), "Ana");
        assert_eq!(clean_name("李明").unwrap(), "李明");
        for bad in ["", "   ", "a\nb", &"x".repeat(NAME_MAX + 1), "\u{200b}Ana"] {
            assert!(
                matches!(clean_name(bad), Err(AddError::Name(..))),
                "{bad:?}"
            );
        }
        assert!(clean_name(&"x".repeat(NAME_MAX)).is_ok());
    }
}
