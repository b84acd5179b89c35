//! The web UI's files (`ui/` at the repository root): the inbox and the wizard, plain ES
//! modules, HTML and CSS with no build step (`platform.md` §7, `survey.md` §12).
//!
//! - `/`, `/a/{id}`, `/sessions/{id}`, `/settings` and `/records` serve `ui/index.html`, one page for both views (the page reads its
//!   own location); everything else the page loads is under `/assets/…`, which maps to
//!   `ui/…`.
//! - **Release builds embed every file** (`include_bytes!`), so the binary is the whole
//!   install and works offline. **Debug builds read the same files from disk** on every
//!   request (`CARGO_MANIFEST_DIR/../../ui`), so editing the UI needs no rebuild. Both
//!   modes serve exactly the files listed in [`ASSETS`]; a unit test keeps that list equal
//!   to the directory.
//! - Every response has a content type and an `ETag` (SHA-256 of the bytes). **Long-lived
//!   caching without a build step**: the page references its files under a versioned prefix,
//!   `/assets/v/{version}/…`, where the version is a hash of every file the UI serves
//!   ([`version`]); the modules import one another by relative URLs, so every import stays
//!   under that prefix. A file asked for under the current version is
//!   `Cache-Control: public, max-age=31536000, immutable` (the URL changes with any file, so
//!   an upgrade never meets a stale module); the page itself, the plain `/assets/…` URLs and
//!   a version that is no longer current are `no-cache` (revalidated by `ETag`, `304` while
//!   nothing changed).
//! - **Compressed by `Accept-Encoding`**: a client that accepts gzip gets the file gzipped
//!   (`Content-Encoding: gzip`, its own strong `ETag`, the identity tag with `-gz`), every
//!   response says `Vary: Accept-Encoding`. Release builds embed each file gzipped at build
//!   time (`build.rs`: compressing them at the start cost resident memory for good); debug
//!   builds compress what they read. A file that gzip does not make smaller is sent as it is. The API's JSON
//!   is gzipped by a layer of its own (`http::routes`); the SSE stream is never compressed. The fence adds the page CSP (`script-src 'self'`, no inline script or
//!   style), which is why the UI has no inline `<script>`, `<style>` or `style=""`.
//! - SVG responses (the diagrams of [`crate::diagram`]) get a stricter CSP of their own from
//!   [`svg_csp`], the outermost layer of the router.

use std::io::Write;

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// One file of `ui/`: its path below `ui/`, its content type and (release builds) its bytes
/// and its gzipped bytes (made by `build.rs`; empty when gzip does not make it smaller).
struct Asset {
    path: &'static str,
    content_type: &'static str,
    #[cfg(not(debug_assertions))]
    bytes: &'static [u8],
    #[cfg(not(debug_assertions))]
    gz: &'static [u8],
}

macro_rules! assets {
    ($($path:literal => $ct:expr),* $(,)?) => {
        &[$(Asset {
            path: $path,
            content_type: $ct,
            #[cfg(not(debug_assertions))]
            bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../ui/", $path)),
            #[cfg(not(debug_assertions))]
            gz: include_bytes!(concat!(env!("OUT_DIR"), "/ui-gz/", $path, ".gz")),
        }),*]
    };
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Every file the UI serves. Add a file here when you add it to `ui/`.
const ASSETS: &[Asset] = assets![
    "index.html" => HTML,
    "icon.svg" => SVG,
    "css/app.css" => CSS,
    "css/align.css" => CSS,
    "css/approvals.css" => CSS,
    "app/api.js" => JS,
    "app/main.js" => JS,
    "js/align.js" => JS,
    "js/app.js" => JS,
    "js/autosave.js" => JS,
    "js/api.js" => JS,
    "js/builder.js" => JS,
    "js/diagram.js" => JS,
    "js/deadline.js" => JS,
    "js/snooze.js" => JS,
    "js/approvals.js" => JS,
    "js/dialog.js" => JS,
    "js/dom.js" => JS,
    "js/drift.js" => JS,
    "js/events.js" => JS,
    "js/html.js" => JS,
    "js/i18n.js" => JS,
    "js/inbox.js" => JS,
    "js/notify-settings.js" => JS,
    "js/questions.js" => JS,
    "js/recap.js" => JS,
    "js/records.js" => JS,
    "js/review.js" => JS,
    "js/rows.js" => JS,
    "js/session.js" => JS,
    "js/settings.js" => JS,
    "js/theme.js" => JS,
    "js/tooltip.js" => JS,
    "js/wizard.js" => JS,
    "i18n/en.js" => JS,
    "i18n/align-en.js" => JS,
    "i18n/align-zh-CN.js" => JS,
    "i18n/records-en.js" => JS,
    "i18n/records-zh-CN.js" => JS,
    "i18n/notify-en.js" => JS,
    "i18n/notify-zh-CN.js" => JS,
    "i18n/zh-CN.js" => JS,
];

/// The CSP of an SVG response: no script of any kind, no fetches, only the SVG's own inline
/// styles. An `<img>` never runs script anyway; this also covers opening the URL directly.
pub const SVG_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'";

fn find(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

/// Where a debug build reads the UI from: `ASKD_UI_DIR` when set, else `ui/` of the
/// checkout it was built in.
#[cfg(debug_assertions)]
fn ui_dir() -> std::path::PathBuf {
    match std::env::var_os("ASKD_UI_DIR").filter(|d| !d.is_empty()) {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui"),
    }
}

#[cfg(debug_assertions)]
fn bytes(asset: &Asset) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
    std::fs::read(ui_dir().join(asset.path)).map(std::borrow::Cow::Owned)
}

/// Where this binary's web UI comes from, as one line for `askd doctor` and the daemon's
/// log: `Ok` when it can be served, `Err` (what is wrong and the fix) when it cannot.
pub fn status() -> Result<String, String> {
    #[cfg(not(debug_assertions))]
    {
        Ok("embedded in the binary".to_string())
    }
    #[cfg(debug_assertions)]
    {
        let dir = ui_dir();
        if dir.join("index.html").is_file() {
            Ok(format!("read from {} (a debug build)", dir.display()))
        } else {
            Err(missing(&dir.display().to_string()))
        }
    }
}

/// The one line a binary that cannot find its UI says, with the fix.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
fn missing(dir: &str) -> String {
    format!(
        "askd cannot find its web UI: this debug build reads it from {dir}, which is not there — install a release build (cargo install --locked --path crates/askd, or npm/PyPI `askd`), or set ASKD_UI_DIR to a checkout's ui/ directory"
    )
}

/// The UI's files cannot be read: `503` with the one line that says why and how to fix
/// it (plain text, so a browser shows it as it is), never a `500`.
fn unavailable(path: &str, e: &std::io::Error) -> Response {
    #[cfg(debug_assertions)]
    let line = missing(&ui_dir().display().to_string());
    #[cfg(not(debug_assertions))]
    let line = format!("askd cannot read its embedded ui/{path}: {e}");
    tracing::error!("{line} (ui/{path}: {e})");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{line}\n"),
    )
        .into_response()
}

#[cfg(not(debug_assertions))]
fn bytes(asset: &Asset) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
    Ok(std::borrow::Cow::Borrowed(asset.bytes))
}

/// The strong validator of a body: the first 128 bits of its SHA-256, quoted.
pub fn etag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// `true` when `If-None-Match` names `tag` (or is `*`).
pub fn not_modified(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == tag || t == "*")
}

/// `true` when `Accept-Encoding` accepts gzip: `gzip` (or `x-gzip`) or `*` with a
/// non-zero quality, unless gzip itself is refused with `q=0`.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut star = None;
    for item in headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").map(str::trim))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        match name.as_str() {
            "gzip" | "x-gzip" => gzip = Some(q > 0.0),
            "*" => star = Some(q > 0.0),
            _ => {}
        }
    }
    gzip.or(star).unwrap_or(false)
}

/// `bytes` gzipped at the best level, or `None` when that is not smaller.
fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).ok()?;
    let out = enc.finish().ok()?;
    (out.len() < bytes.len()).then_some(out)
}

/// Release builds: the file's bytes gzipped at build time (`build.rs`), when that made them
/// smaller.
#[cfg(not(debug_assertions))]
fn gzipped(asset: &Asset, _body: &[u8]) -> Option<std::borrow::Cow<'static, [u8]>> {
    (!asset.gz.is_empty()).then_some(std::borrow::Cow::Borrowed(asset.gz))
}

#[cfg(debug_assertions)]
fn gzipped(_asset: &Asset, body: &[u8]) -> Option<std::borrow::Cow<'static, [u8]>> {
    gzip(body).map(std::borrow::Cow::Owned)
}

/// The `Cache-Control` of a file: revalidated, or kept for a year (a versioned URL).
const REVALIDATE: &str = "no-cache";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The UI's version: the first 64 bits of the SHA-256 over every file it serves (path and
/// bytes), in hex. Release builds compute it once; debug builds from the files on disk at
/// each page load, so an edited file gets a new URL.
pub fn version() -> String {
    fn compute() -> String {
        let mut h = Sha256::new();
        for a in ASSETS {
            h.update(a.path.as_bytes());
            h.update([0]);
            if let Ok(b) = bytes(a) {
                h.update(&b[..]);
            }
            h.update([0]);
        }
        h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
    #[cfg(not(debug_assertions))]
    {
        static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        VERSION.get_or_init(compute).clone()
    }
    #[cfg(debug_assertions)]
    compute()
}

fn serve(asset: &Asset, headers: &HeaderMap, cache: &'static str) -> Response {
    let body = match bytes(asset) {
        Ok(b) => b,
        Err(e) => {
            return unavailable(asset.path, &e);
        }
    };
    let compressed = if accepts_gzip(headers) {
        gzipped(asset, &body)
    } else {
        None
    };
    respond(asset, body, compressed, headers, cache)
}

fn respond(
    asset: &Asset,
    body: std::borrow::Cow<'static, [u8]>,
    compressed: Option<std::borrow::Cow<'static, [u8]>>,
    headers: &HeaderMap,
    cache: &'static str,
) -> Response {
    let identity = etag(&body);
    let tag = match compressed {
        // A strong tag names one representation: the gzipped bytes get their own.
        Some(_) => format!("{}-gz\"", identity.trim_end_matches('"')),
        None => identity,
    };
    let common = [
        (header::ETAG, tag.clone()),
        (header::CACHE_CONTROL, cache.to_string()),
        (header::VARY, "Accept-Encoding".to_string()),
    ];
    if not_modified(headers, &tag) {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    let mut response = match compressed {
        Some(gz) => (
            common,
            [(header::CONTENT_ENCODING, "gzip")],
            gz.into_owned(),
        )
            .into_response(),
        None => (common, body.into_owned()).into_response(),
    };
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    response
}

/// `/`, `/a/{id}`, `/sessions/{id}`, `/settings`, `/records`: the one page of the UI, its
/// files referenced under the current version (`/assets/v/{version}/…`).
pub async fn page(headers: HeaderMap) -> Response {
    let asset = find("index.html").expect("listed");
    let html = match bytes(asset) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return unavailable(asset.path, &e);
        }
    };
    let body = html
        .replace("\"/assets/", &format!("\"/assets/v/{}/", version()))
        .into_bytes();
    let compressed = if accepts_gzip(&headers) {
        gzip(&body).map(std::borrow::Cow::Owned)
    } else {
        None
    };
    respond(asset, body.into(), compressed, &headers, REVALIDATE)
}

/// `/assets/{*path}`: a file of `ui/` — under `v/{version}/` kept for a year when the
/// version is current, else revalidated.
pub async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let (path, cache) = match path
        .strip_prefix("v/")
        .and_then(|rest| rest.split_once('/'))
    {
        Some((v, file)) if v == version() => (file.to_string(), IMMUTABLE),
        Some((_, file)) => (file.to_string(), REVALIDATE),
        None => (path, REVALIDATE),
    };
    match find(&path) {
        Some(a) if a.path != "index.html" => serve(a, &headers, cache),
        _ => ApiError::not_found("this asset").into_response(),
    }
}

/// `/icon.svg`: askd's icon, open to everyone — the pages the daemon writes itself
/// (`crate::pages`) show it to a browser that is not signed in yet.
pub async fn icon(headers: HeaderMap) -> Response {
    match find("icon.svg") {
        Some(a) => serve(a, &headers, REVALIDATE),
        None => ApiError::not_found("this asset").into_response(),
    }
}

/// The outermost layer: an SVG response (a diagram, the icon) gets [`SVG_CSP`] instead of the
/// page CSP the fence set.
pub async fn svg_csp(mut response: Response) -> Response {
    let is_svg = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(SVG));
    if is_svg {
        response.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(SVG_CSP),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ui_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui")
    }

    fn walk(dir: &std::path::Path, base: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, base, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }

    #[test]
    fn the_asset_list_is_the_ui_directory() {
        let base = ui_dir();
        let mut on_disk = Vec::new();
        walk(&base, &base, &mut on_disk);
        on_disk.sort();
        let mut listed: Vec<String> = ASSETS.iter().map(|a| a.path.to_string()).collect();
        listed.sort();
        assert_eq!(
            listed, on_disk,
            "ASSETS in ui.rs must list every file of ui/"
        );
    }

    #[test]
    fn the_ui_has_no_inline_script_or_style() {
        for a in ASSETS.iter().filter(|a| a.path.ends_with(".html")) {
            let text = String::from_utf8(bytes(a).unwrap().into_owned()).unwrap();
            assert!(!text.contains("<script>"), "{}: inline script", a.path);
            assert!(!text.contains("<style"), "{}: inline style", a.path);
            assert!(!text.contains("style="), "{}: style attribute", a.path);
            let handler = text.match_indices(" on").any(|(i, _)| {
                let rest = &text[i + 3..];
                let name = rest
                    .split(|c: char| !c.is_ascii_alphabetic())
                    .next()
                    .unwrap_or("");
                !name.is_empty() && rest[name.len()..].starts_with('=')
            });
            assert!(!handler, "{}: event handler attribute", a.path);
        }
    }

    #[test]
    fn accept_encoding_is_read_with_its_qualities() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::ACCEPT_ENCODING, v.parse().unwrap());
            accepts_gzip(&h)
        };
        assert!(!accepts_gzip(&HeaderMap::new()));
        assert!(with("gzip, deflate, br, zstd"));
        assert!(with("br;q=1.0, GZIP;q=0.5"));
        assert!(with("*"));
        assert!(!with("gzip;q=0"));
        assert!(!with("*, gzip;q=0"));
        assert!(!with("identity"));
        assert!(!with("br"));
    }

    #[test]
    fn etags_and_if_none_match() {
        let t = etag(b"x");
        let mut h = HeaderMap::new();
        assert!(!not_modified(&h, &t));
        h.insert(
            header::IF_NONE_MATCH,
            format!("\"a\", W/{t}").parse().unwrap(),
        );
        assert!(not_modified(&h, &t));
    }
}
