//! The pages the daemon writes itself, outside the web UI: what a browser gets when it is
//! refused (no sign-in, a revoked phone or login, a page not open to it, no such page), the
//! pairing page a phone opens first, and a member's login confirm step.
//!
//! One look for all of them — `/page.css` ([`STYLE`]), open to everyone so a phone that is
//! not paired yet is styled too, and inside the binary so it works without the UI files —
//! and one language rule, the web UI's: the browser's first `Accept-Language` tag that is
//! Chinese or English ([`lang_of`]). Every text that comes from outside (a device or
//! member name) is escaped by [`Page::para`] and the callers' `escape`.

use askd_core::html::escape;
use askd_core::lang::Lang;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The stylesheet of these pages, served as `GET /page.css`.
pub const STYLE: &str = include_str!("pages.css");

/// A text in both of askd's languages.
#[derive(Debug, Clone, Copy)]
pub struct Text {
    pub en: &'static str,
    pub zh: &'static str,
}

impl Text {
    pub fn get(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Zh => self.zh,
        }
    }
}

/// The language of a page for this browser: the first tag of `Accept-Language` (in the
/// order the browser sends them, which is its preference order) that is Chinese or
/// English, as the web UI reads `navigator.languages`; English when none is.
pub fn lang_of(headers: &HeaderMap) -> Lang {
    let Some(value) = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
    else {
        return Lang::En;
    };
    for item in value.split(',') {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        if refused {
            continue;
        }
        let primary = tag.split('-').next().unwrap_or("");
        match primary {
            "zh" => return Lang::Zh,
            "en" => return Lang::En,
            _ => {}
        }
    }
    Lang::En
}

/// A page being written: a heading, then paragraphs, forms and links in order.
pub struct Page {
    lang: Lang,
    title: String,
    body: String,
}

impl Page {
    pub fn new(lang: Lang, title: &str) -> Page {
        Page {
            lang,
            title: title.to_string(),
            body: String::new(),
        }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// A paragraph of plain text (escaped).
    pub fn para(mut self, text: &str) -> Page {
        self.body.push_str("<p>");
        self.body.push_str(&escape(text));
        self.body.push_str("</p>\n");
        self
    }

    /// Markup the caller wrote (a form), with anything from outside already escaped.
    pub fn markup(mut self, html: &str) -> Page {
        self.body.push_str(html);
        self.body.push('\n');
        self
    }

    /// A link back into askd (`href` is one of askd's own paths).
    pub fn link(mut self, href: &'static str, text: Text) -> Page {
        self.body.push_str(&format!(
            "<p><a href=\"{href}\">{}</a></p>\n",
            escape(text.get(self.lang))
        ));
        self
    }

    /// The whole document.
    pub fn html(&self) -> String {
        format!(
            "<!doctype html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <meta name=\"color-scheme\" content=\"light dark\">\
             <title>{title} · askd</title><link rel=\"icon\" href=\"/icon.svg\" type=\"image/svg+xml\">\
             <link rel=\"stylesheet\" href=\"/page.css\"></head>\n\
             <body><main>\n<p class=\"brand\">askd</p>\n<h1>{title}</h1>\n{body}</main></body></html>\n",
            lang = self.lang.as_str(),
            title = escape(&self.title),
            body = self.body,
        )
    }

    pub fn respond(self, status: StatusCode) -> Response {
        (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            self.html(),
        )
            .into_response()
    }
}

/// The files these pages load, open to everyone (also with a revoked cookie).
pub fn is_open_file(path: &str) -> bool {
    matches!(path, "/page.css" | "/icon.svg")
}

/// `GET /page.css`.
pub async fn stylesheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        STYLE,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    #[test]
    fn the_first_chinese_or_english_tag_decides() {
        assert_eq!(lang_of(&HeaderMap::new()), Lang::En);
        assert_eq!(lang_of(&with("zh-CN,zh;q=0.9,en;q=0.8")), Lang::Zh);
        assert_eq!(lang_of(&with("fr-FR, zh-Hans;q=0.8, en;q=0.5")), Lang::Zh);
        assert_eq!(lang_of(&with("en-US,en;q=0.9,zh-CN;q=0.8")), Lang::En);
        assert_eq!(lang_of(&with("de, fr")), Lang::En);
        assert_eq!(lang_of(&with("zh;q=0, en")), Lang::En);
        assert_eq!(lang_of(&with("ZH-tw")), Lang::Zh);
    }

    #[test]
    fn outside_text_is_escaped_and_the_page_is_styled() {
        let html = Page::new(Lang::Zh, "<b>x</b>")
            .para("a <script>")
            .link(
                "/",
                Text {
                    en: "Back",
                    zh: "返回",
                },
            )
            .html();
        assert!(html.contains("<html lang=\"zh-CN\">"));
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(html.contains("a &lt;script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("href=\"/page.css\""));
        assert!(html.contains(">返回</a>"));
    }
}
