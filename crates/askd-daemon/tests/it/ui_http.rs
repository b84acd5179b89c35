//! The UI's files over real HTTP: gzip by `Accept-Encoding`, one strong ETag per
//! representation, `Vary: Accept-Encoding`, versioned URLs kept for a year, and no compression
//! on the API.

use std::io::Read;

use reqwest::Method;
use reqwest::header::{ACCEPT_ENCODING, CONTENT_ENCODING, ETAG, IF_NONE_MATCH, VARY};

use crate::common::TestServer;

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

async fn fetch(
    s: &TestServer,
    path: &str,
    encoding: Option<&str>,
    tag: Option<&str>,
) -> reqwest::Response {
    let mut rb = s.req(Method::GET, path);
    if let Some(e) = encoding {
        rb = rb.header(ACCEPT_ENCODING, e);
    }
    if let Some(t) = tag {
        rb = rb.header(IF_NONE_MATCH, t);
    }
    rb.send().await.expect("send")
}

fn header(r: &reqwest::Response, name: reqwest::header::HeaderName) -> Option<String> {
    r.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

#[tokio::test]
async fn pages_and_assets_are_gzipped_by_accept_encoding() {
    let s = TestServer::start().await;
    for path in [
        "/",
        "/assets/js/wizard.js",
        "/assets/css/app.css",
        "/assets/i18n/en.js",
    ] {
        let plain = fetch(&s, path, None, None).await;
        assert_eq!(plain.status(), 200, "{path}");
        assert_eq!(header(&plain, CONTENT_ENCODING), None, "{path}");
        assert_eq!(
            header(&plain, VARY).as_deref(),
            Some("Accept-Encoding"),
            "{path}"
        );
        let plain_tag = header(&plain, ETAG).expect("an ETag");
        let plain_body = plain.bytes().await.unwrap().to_vec();

        let gz = fetch(&s, path, Some("br;q=1.0, gzip;q=0.8"), None).await;
        assert_eq!(gz.status(), 200, "{path}");
        assert_eq!(
            header(&gz, CONTENT_ENCODING).as_deref(),
            Some("gzip"),
            "{path}"
        );
        assert_eq!(
            header(&gz, VARY).as_deref(),
            Some("Accept-Encoding"),
            "{path}"
        );
        assert_eq!(
            header(&gz, reqwest::header::CACHE_CONTROL).as_deref(),
            Some("no-cache")
        );
        let gz_tag = header(&gz, ETAG).expect("an ETag");
        assert_ne!(
            gz_tag, plain_tag,
            "{path}: one strong tag per representation"
        );
        let gz_body = gz.bytes().await.unwrap().to_vec();
        assert!(
            gz_body.len() * 2 < plain_body.len(),
            "{path}: {} of {}",
            gz_body.len(),
            plain_body.len()
        );
        assert_eq!(gunzip(&gz_body), plain_body, "{path}: the same file");

        // Revalidation: each tag matches its own representation only.
        let r = fetch(&s, path, Some("gzip"), Some(&gz_tag)).await;
        assert_eq!(r.status(), 304, "{path}");
        assert_eq!(header(&r, VARY).as_deref(), Some("Accept-Encoding"));
        assert_eq!(fetch(&s, path, None, Some(&plain_tag)).await.status(), 304);
        assert_eq!(
            fetch(&s, path, Some("gzip"), Some(&plain_tag))
                .await
                .status(),
            200
        );
        // Refused gzip gets the identity bytes.
        let r = fetch(&s, path, Some("gzip;q=0, *"), None).await;
        assert_eq!(header(&r, CONTENT_ENCODING), None, "{path}");
    }
    s.stop().await;
}

#[tokio::test]
async fn the_api_is_not_compressed() {
    let s = TestServer::start().await;
    let r = fetch(&s, "/api/asks", Some("gzip"), None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, CONTENT_ENCODING), None);
    let body: serde_json::Value = r.json().await.expect("plain JSON");
    assert!(body.is_object() || body.is_array());
    s.stop().await;
}

/// Long-lived caching without a build step: the page names its files under
/// `/assets/v/{version}/`, served `immutable` for a year; the page itself, plain `/assets/…`
/// and a version that is not current are revalidated. The modules' relative imports stay
/// under the prefix, so the whole page is cached and an upgrade changes every URL.
#[tokio::test]
async fn the_page_names_its_files_under_a_version_kept_for_a_year() {
    use reqwest::header::CACHE_CONTROL;
    let s = TestServer::start().await;
    let page = fetch(&s, "/", None, None).await;
    assert_eq!(header(&page, CACHE_CONTROL).as_deref(), Some("no-cache"));
    let html = page.text().await.unwrap();
    let start = html.find("/assets/v/").expect("a versioned prefix");
    let rest = &html[start + "/assets/v/".len()..];
    let version = &rest[..rest.find('/').unwrap()];
    assert_eq!(version.len(), 16, "{version}");
    assert!(version.chars().all(|c| c.is_ascii_hexdigit()), "{version}");
    assert!(
        !html.contains("\"/assets/js") && !html.contains("\"/assets/css"),
        "every file of the page is versioned: {html}"
    );
    assert!(html.contains(&format!("\"/assets/v/{version}/js/app.js\"")));

    for file in ["js/app.js", "js/wizard.js", "css/app.css", "icon.svg"] {
        let path = format!("/assets/v/{version}/{file}");
        let r = fetch(&s, &path, Some("gzip"), None).await;
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(
            header(&r, CACHE_CONTROL).as_deref(),
            Some("public, max-age=31536000, immutable"),
            "{path}"
        );
        assert_eq!(header(&r, VARY).as_deref(), Some("Accept-Encoding"));
        // The same bytes as the plain URL, which is revalidated.
        let plain = fetch(&s, &format!("/assets/{file}"), Some("gzip"), None).await;
        assert_eq!(header(&plain, CACHE_CONTROL).as_deref(), Some("no-cache"));
        assert_eq!(header(&plain, ETAG), header(&r, ETAG), "{file}");
    }
    // A page of another version (before an upgrade) still gets the files, revalidated.
    let old = fetch(&s, "/assets/v/0123456789abcdef/js/app.js", None, None).await;
    assert_eq!(old.status(), 200);
    assert_eq!(header(&old, CACHE_CONTROL).as_deref(), Some("no-cache"));
    assert_eq!(
        fetch(&s, &format!("/assets/v/{version}/nothing.js"), None, None)
            .await
            .status(),
        404
    );
    assert_eq!(
        fetch(&s, &format!("/assets/v/{version}/index.html"), None, None)
            .await
            .status(),
        404
    );
    s.stop().await;
}
