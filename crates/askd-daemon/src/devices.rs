//! Paired devices: a phone (or any browser) that answers asks without the install's token.
//!
//! `askd pair` or the Settings page asks for a **pairing code** ([`Devices::new_code`]):
//! random, single use, valid for [`CODE_TTL`]. Opening `/pair/{code}` shows a form; sending
//! it ([`Devices::redeem`]) spends the code and creates a **device token** (256 random
//! bits) set as the `askd_device` cookie. The daemon keeps only its SHA-256, with a name,
//! the browser's user agent, and the created and last-used times. The fence accepts the cookie for the answering routes only
//! (`crate::fence`); revoking removes the device from memory first, so its next request is
//! refused at once, then from the store.
//!
//! Storage: the store's saved-settings map, one key `device.<id>` per device — durable
//! (committed before the cookie is set or the revoke answered) without a migration; the
//! map is small (a device is a few hundred bytes) and read once at start. The last-used
//! time is exact in memory and written through at most every [`TOUCH_EVERY`].
//!
//! Pairing codes are in the same map, one key `paircode.<sha256 of the code>` (the code
//! itself is never stored) with its expiry (`expiresAt`, Unix milliseconds) and when it was
//! made (`madeAt`, Unix nanoseconds: the oldest goes first past 16), so in team
//! mode a code made through one daemon is redeemed through any other. Making and spending
//! a code run under [`Locks::pairing`] (this daemon's lock and the database's), and the
//! spend removes the code in the transaction that stores the device: a code pairs once,
//! across daemons. Expired codes are removed when a code is made or tried; a daemon alone
//! on its SQLite file removes every code at start (a restart voids them, as before), a
//! daemon in team mode only the expired ones (the others' codes stay good).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use askd_store::{Store, StoreError, StoreResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::locks::Locks;

/// The cookie that carries a device token.
pub const COOKIE: &str = "askd_device";
/// How long a pairing code is valid.
pub const CODE_TTL: Duration = Duration::from_secs(600);
/// How often a device's last use is written to the store (memory is always exact).
pub const TOUCH_EVERY: Duration = Duration::from_secs(300);
/// Pairing codes outstanding at once (the oldest goes first).
const CODES_MAX: usize = 16;
/// The longest device name kept.
pub const NAME_MAX: usize = 60;
const KEY_PREFIX: &str = "device.";
const CODE_PREFIX: &str = "paircode.";

/// One paired device, as stored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    pub id: String,
    /// SHA-256 of the token, hex.
    pub hash: String,
    pub name: String,
    pub user_agent: String,
    pub created_at: String,
    pub last_used_at: String,
}

impl Device {
    /// What the API shows (no hash).
    pub fn view(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "userAgent": self.user_agent,
            "createdAt": self.created_at,
            "lastUsedAt": self.last_used_at,
        })
    }
}

struct Entry {
    device: Device,
    /// When `last_used_at` was last written to the store.
    saved: Instant,
}

#[derive(Default)]
struct Inner {
    /// By token hash.
    devices: HashMap<String, Entry>,
    /// Token hashes of the devices revoked while this daemon ran (`device-revoked`; any
    /// other unknown token is `unknown-device`).
    revoked: std::collections::HashSet<String>,
}

/// The daemon's paired devices (the pairing codes are in the store).
#[derive(Default)]
pub struct Devices {
    inner: Mutex<Inner>,
}

/// What a device token is worth.
pub enum Check {
    /// No device has this token (never paired, or revoked).
    Unknown,
    /// A device: its id and name, and `save` when its last use is due to be written to the
    /// store.
    Known {
        id: String,
        name: String,
        save: Option<Device>,
    },
}

pub(crate) fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn random_hex(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness: {e}"))?;
    Ok(hex(&bytes))
}

/// The stored key of a pairing code.
fn code_key(code: &str) -> String {
    format!("{CODE_PREFIX}{}", hash(code))
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// When a code was made, in Unix nanoseconds (the order of the codes; two codes made in
/// one millisecond still have one).
fn now_ns() -> i64 {
    chrono::Utc::now()
        .timestamp_nanos_opt()
        .unwrap_or_else(|| now_ms().saturating_mul(1_000_000))
}

/// The stored pairing codes (key, expiry in Unix ms; an unreadable one as expired).
fn stored_codes(saved: &Map<String, Value>) -> Vec<(String, i64)> {
    stored_codes_made(saved)
        .into_iter()
        .map(|(k, until, _)| (k, until))
        .collect()
}

/// [`stored_codes`] with when each was made (`madeAt`, Unix ns; 0 when missing).
fn stored_codes_made(saved: &Map<String, Value>) -> Vec<(String, i64, i64)> {
    saved
        .iter()
        .filter(|(k, _)| k.starts_with(CODE_PREFIX))
        .map(|(k, v)| {
            let until = v["expiresAt"].as_i64().unwrap_or(0);
            (k.clone(), until, v["madeAt"].as_i64().unwrap_or(0))
        })
        .collect()
}

/// A device's stored value, under `device.<id>`.
fn stored(d: &Device) -> (String, Value) {
    (format!("{KEY_PREFIX}{}", d.id), json!(d))
}

impl Devices {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the paired devices from the store (at start, and in team mode after another
    /// daemon saved settings): the stored devices replace the ones in memory, so a device
    /// revoked through another daemon is revoked here too.
    pub async fn load(&self, store: &dyn Store) {
        let saved = match store.settings().await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the paired devices");
                return;
            }
        };
        let mut inner = self.lock();
        let mut devices = HashMap::new();
        for (key, value) in saved.iter().filter(|(k, _)| k.starts_with(KEY_PREFIX)) {
            match serde_json::from_value::<Device>(value.clone()) {
                Ok(device) => {
                    let saved = inner
                        .devices
                        .get(&device.hash)
                        .map_or_else(Instant::now, |e| e.saved);
                    devices.insert(device.hash.clone(), Entry { device, saved });
                }
                Err(e) => tracing::warn!(key, error = %e, "ignoring an unreadable device"),
            }
        }
        let gone: Vec<String> = inner
            .devices
            .keys()
            .filter(|h| !devices.contains_key(*h))
            .cloned()
            .collect();
        inner.devices = devices;
        inner.revoked.extend(gone);
    }

    /// Whether the device with this id is paired (not revoked).
    pub fn has(&self, id: &str) -> bool {
        self.lock().devices.values().any(|e| e.device.id == id)
    }

    /// Whether this token was a device's that was revoked while this daemon ran.
    pub fn was_revoked(&self, token: &str) -> bool {
        self.lock().revoked.contains(&hash(token))
    }

    /// A new pairing code (32 hex digits) and how long it lives, once it is stored. The
    /// expired codes go in the same save, and the oldest made when `CODES_MAX`
    /// (16) are out.
    pub async fn new_code(
        &self,
        store: &dyn Store,
        locks: &Locks,
    ) -> StoreResult<(String, Duration)> {
        let code = random_hex(16).map_err(StoreError::Backend)?;
        let _held = locks.pairing(store).await?;
        let now = now_ms();
        let mut live = Vec::new();
        let mut remove = Vec::new();
        for (key, until, made) in stored_codes_made(&store.settings().await?) {
            if until > now {
                live.push((made, key));
            } else {
                remove.push(key);
            }
        }
        live.sort();
        let over = (live.len() + 1).saturating_sub(CODES_MAX);
        remove.extend(live.into_iter().take(over).map(|(_, k)| k));
        let mut set = Map::new();
        let ttl_ms = i64::try_from(CODE_TTL.as_millis()).unwrap_or(i64::MAX);
        set.insert(
            code_key(&code),
            json!({"expiresAt": now + ttl_ms, "madeAt": now_ns()}),
        );
        store.save_settings(&set, &remove).await?;
        Ok((code, CODE_TTL))
    }

    /// Whether `code` is outstanding (not spent, not expired), in the store.
    pub async fn code_valid(&self, store: &dyn Store, code: &str) -> StoreResult<bool> {
        let saved = store.settings().await?;
        Ok(saved
            .get(&code_key(code))
            .and_then(|v| v["expiresAt"].as_i64())
            .is_some_and(|until| until > now_ms()))
    }

    /// Removes the stored pairing codes at start: all of them (`all`, a daemon alone on its
    /// database: a restart voids them) or the expired ones (team mode). Logged on failure.
    pub async fn forget_codes(&self, store: &dyn Store, locks: &Locks, all: bool) {
        let forget = async {
            let _held = locks.pairing(store).await?;
            let now = now_ms();
            let remove: Vec<String> = stored_codes(&store.settings().await?)
                .into_iter()
                .filter(|(_, until)| all || *until <= now)
                .map(|(k, _)| k)
                .collect();
            if !remove.is_empty() {
                store.save_settings(&Map::new(), &remove).await?;
            }
            StoreResult::Ok(())
        };
        if let Err(e) = forget.await {
            tracing::warn!(error = %e, "cannot remove old pairing codes");
        }
    }

    /// Spends `code` and pairs a device: its token (for the cookie), once the device is
    /// stored — in the transaction that removes the code, under [`Locks::pairing`], so a
    /// code pairs once whichever daemons it is sent to. `Err` when the code is unknown,
    /// spent or expired, or the store failed.
    pub async fn redeem(
        &self,
        store: &dyn Store,
        locks: &Locks,
        code: &str,
        name: &str,
        user_agent: &str,
    ) -> Result<String, RedeemError> {
        let other = |e: StoreError| RedeemError::Other(e.to_string());
        let _held = locks.pairing(store).await.map_err(other)?;
        let key = code_key(code);
        let until = store
            .settings()
            .await
            .map_err(other)?
            .get(&key)
            .map(|v| v["expiresAt"].as_i64().unwrap_or(0));
        match until {
            None => return Err(RedeemError::BadCode),
            Some(until) if until <= now_ms() => {
                store
                    .save_settings(&Map::new(), std::slice::from_ref(&key))
                    .await
                    .map_err(other)?;
                return Err(RedeemError::BadCode);
            }
            Some(_) => {}
        }
        let token = random_hex(32).map_err(RedeemError::Other)?;
        let id = uuid::Uuid::now_v7().simple().to_string();
        let now = askd_store::now();
        // A phone's form: hidden characters (text-direction controls, zero-width ones) are
        // dropped rather than refused, the rest kept (`crate::names::clean`).
        let name = crate::names::clean(name, NAME_MAX).unwrap_or_else(|| "Phone".to_string());
        let device = Device {
            id,
            hash: hash(&token),
            name,
            user_agent: user_agent
                .chars()
                .filter(|c| !c.is_control())
                .take(300)
                .collect(),
            created_at: now.clone(),
            last_used_at: now,
        };
        let (device_key, value) = stored(&device);
        let mut set = Map::new();
        set.insert(device_key, value);
        store.save_settings(&set, &[key]).await.map_err(other)?;
        self.lock().devices.insert(
            device.hash.clone(),
            Entry {
                device,
                saved: Instant::now(),
            },
        );
        Ok(token)
    }

    /// Looks a device token up and records its use.
    pub fn check(&self, token: &str) -> Check {
        let h = hash(token);
        let mut inner = self.lock();
        let Some(e) = inner.devices.get_mut(&h) else {
            return Check::Unknown;
        };
        e.device.last_used_at = askd_store::now();
        let save = (e.saved.elapsed() >= TOUCH_EVERY).then(|| {
            e.saved = Instant::now();
            e.device.clone()
        });
        Check::Known {
            id: e.device.id.clone(),
            name: e.device.name.clone(),
            save,
        }
    }

    /// Writes a device's last use (from [`Check::Known`]), unless it was revoked since.
    pub async fn save_use(&self, store: Arc<dyn Store>, device: Device) {
        if !self.lock().devices.contains_key(&device.hash) {
            return;
        }
        let (key, value) = stored(&device);
        let mut set = Map::new();
        set.insert(key, value);
        if let Err(e) = store.save_settings(&set, &[]).await {
            tracing::warn!(error = %e, "cannot record a device's last use");
        }
    }

    /// The paired devices, newest first.
    pub fn list(&self) -> Vec<Value> {
        let inner = self.lock();
        let mut all: Vec<&Device> = inner.devices.values().map(|e| &e.device).collect();
        all.sort_by(|a, b| b.created_at.cmp(&a.created_at));
        all.into_iter().map(Device::view).collect()
    }

    /// Revokes a device: refused from now on, then removed from the store. `Ok(false)`
    /// when no device has this id.
    pub async fn revoke(&self, store: &dyn Store, id: &str) -> Result<bool, String> {
        let removed = {
            let mut inner = self.lock();
            let hash = inner
                .devices
                .iter()
                .find(|(_, e)| e.device.id == id)
                .map(|(h, _)| h.clone());
            let removed = hash.and_then(|h| inner.devices.remove(&h));
            if let Some(e) = &removed {
                inner.revoked.insert(e.device.hash.clone());
            }
            removed
        };
        let Some(e) = removed else {
            return Ok(false);
        };
        store
            .save_settings(&Map::new(), &[stored(&e.device).0])
            .await
            .map_err(|e| e.to_string())?;
        Ok(true)
    }
}

/// Why a pairing did not happen.
#[derive(Debug)]
pub enum RedeemError {
    BadCode,
    Other(String),
}
