//! What askd signs for its MCP clients to echo back (issue 27): a 2026-07-28 `requestState`
//! (the `input_required` round trip, [`crate::server::RoundState`]) and an MCP App's ask
//! handle ([`AppHandle`]). Either may arrive on a request that is the first one a server
//! instance sees (`/mcp` stateless: one server per request), so it must prove itself: it
//! is sealed with HMAC-SHA256 under the install's key by rmcp's
//! [`RequestStateCodec`] (`rs1.<body>.<tag>`, base64url; signed, not encrypted — it holds
//! nothing secret), each kind under its own associated data, so neither passes for the
//! other. A value that fails verification opens as `None`, whatever was wrong with it.
//!
//! The key ([`Seal::new`]) is the data directory's `signing.key`
//! (`askd_client::load_or_create_signing_key`), read by `askd mcp` and by the daemon's
//! `/mcp` alike, so what one issues the other accepts; it never goes to a client. A remote
//! adapter (`askd mcp --url … --token-file …`) verifies only what it issued itself: its
//! key is derived from the token it holds ([`Seal::from_token`]).

use rmcp::model::{RequestStateCodec, SealOptions};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::Digest;

/// What a sealed value is for: its associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The `requestState` of askd's `input_required` result.
    RequestState,
    /// An MCP App's handle on one ask (`_meta["askd/app"].handle` of an ask tool's result).
    AppHandle,
}

impl Purpose {
    fn associated_data(self) -> &'static [u8] {
        match self {
            Purpose::RequestState => b"askd/mcp/requestState/v1",
            Purpose::AppHandle => b"askd/mcp/app-handle/v1",
        }
    }
}

/// The handle an ask tool's result gives the MCP App it renders: askd's signature over the
/// ask and the session it was asked in. `askd_app` acts on the ask it names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AppHandle {
    pub ask: String,
    pub session: String,
}

/// The install's key, as a codec.
#[derive(Clone)]
pub struct Seal {
    codec: RequestStateCodec,
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seal(…)")
    }
}

impl Seal {
    /// A seal under `key` (at least 32 bytes: the data directory's `signing.key` has 32).
    pub fn new(key: &[u8]) -> Result<Seal, String> {
        RequestStateCodec::try_new(key.to_vec())
            .map(|codec| Seal { codec })
            .map_err(|e| e.to_string())
    }

    /// A seal whose key is derived from `token` (SHA-256 over a label and the token): for an
    /// adapter of a remote daemon, which has no data directory of that install.
    pub fn from_token(token: &str) -> Seal {
        let mut h = sha2::Sha256::new();
        h.update(b"askd/mcp/signing-key/v1\0");
        h.update(token.as_bytes());
        Seal::of_32(h.finalize().into())
    }

    /// A seal with a random key of this process only (what it issues, only it accepts):
    /// when no key file can be read or made.
    pub fn ephemeral() -> Seal {
        let mut key = [0u8; 32];
        if getrandom::fill(&mut key).is_err() {
            // No randomness: a key from the clock and the process, still per process.
            let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
            key = sha2::Sha256::digest(seed.as_bytes()).into();
        }
        Seal::of_32(key)
    }

    /// The install's seal: the data directory's `signing.key` (made when missing), or — when
    /// it can be neither read nor made — a key of this process only, with a warning in the
    /// log (what it signs is good until the process exits). `askd mcp` and the daemon's
    /// `/mcp` both take theirs here, so what one signs the other accepts.
    pub fn of_install(data_dir: &std::path::Path) -> Seal {
        let seal = askd_client::load_or_create_signing_key(data_dir)
            .map_err(|e| e.to_string())
            .and_then(|key| Seal::new(&key));
        seal.unwrap_or_else(|e| {
            tracing::warn!(
                "no signing key in the data directory ({e}): requestStates and app handles signed now are good in this process only"
            );
            Seal::ephemeral()
        })
    }

    fn of_32(key: [u8; 32]) -> Seal {
        Seal::new(&key).expect("32 bytes is the codec's minimum key length")
    }

    /// `value` sealed for `purpose`.
    pub fn sign<T: Serialize>(&self, purpose: Purpose, value: &T) -> String {
        self.codec
            .seal_json_with(
                value,
                &SealOptions::new().associated_data(purpose.associated_data()),
            )
            .unwrap_or_default()
    }

    /// The value `sealed` holds, when this install sealed it for `purpose`; `None` for
    /// anything else (forged, altered, another install's, another purpose's).
    pub fn open<T: DeserializeOwned>(&self, purpose: Purpose, sealed: &str) -> Option<T> {
        self.codec
            .open_json_with(sealed, purpose.associated_data())
            .ok()
    }

    /// The app handle of `ask`, asked in `session`.
    pub fn app_handle(&self, ask: &str, session: &str) -> String {
        self.sign(
            Purpose::AppHandle,
            &AppHandle {
                ask: ask.to_string(),
                session: session.to_string(),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_sealed_opens_only_unaltered_under_its_key_and_purpose() {
        let seal = Seal::new(&[7u8; 32]).unwrap();
        let h = seal.app_handle("a-1", "s-1");
        assert_eq!(
            seal.open::<AppHandle>(Purpose::AppHandle, &h),
            Some(AppHandle {
                ask: "a-1".into(),
                session: "s-1".into()
            })
        );
        // Another purpose, another key, an altered body or tag: nothing.
        assert!(seal.open::<AppHandle>(Purpose::RequestState, &h).is_none());
        let other = Seal::new(&[8u8; 32]).unwrap();
        assert!(other.open::<AppHandle>(Purpose::AppHandle, &h).is_none());
        let forged = seal.app_handle("a-2", "s-1");
        let (body, _) = forged.rsplit_once('.').unwrap();
        let (_, tag) = h.rsplit_once('.').unwrap();
        assert!(
            seal.open::<AppHandle>(Purpose::AppHandle, &format!("{body}.{tag}"))
                .is_none()
        );
        assert!(
            seal.open::<AppHandle>(Purpose::AppHandle, "askd1:{}")
                .is_none()
        );
        assert!(Seal::new(&[1u8; 16]).is_err());
        // The token-derived key is stable; an ephemeral one is not shared.
        let t = Seal::from_token("tok");
        let ht = t.app_handle("a", "s");
        assert!(
            Seal::from_token("tok")
                .open::<AppHandle>(Purpose::AppHandle, &ht)
                .is_some()
        );
        assert!(
            Seal::from_token("tok2")
                .open::<AppHandle>(Purpose::AppHandle, &ht)
                .is_none()
        );
        assert!(
            Seal::ephemeral()
                .open::<AppHandle>(Purpose::AppHandle, &ht)
                .is_none()
        );
    }
}
