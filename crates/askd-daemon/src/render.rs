//! Server-side Markdown rendering of agent-authored text (`survey.md` §12.15, `platform.md` §5).
//!
//! All agent text is untrusted. The Markdown fields (survey `intro`, `prompt`, `detail`,
//! `insight` of options and quick templates; flat `question` and `detail`) are rendered here to
//! sanitised HTML that the page may insert as markup. Labels, descriptions and headers are plain
//! text and never pass through this module. Diagrams are not handled here: they stay as source.
//!
//! # Pipeline
//!
//! 1. **Parse** with pulldown-cmark: CommonMark plus tables, strikethrough and task lists. No
//!    other extensions (no footnotes, math, heading attributes, GFM alerts, metadata blocks).
//! 2. **Rewrite the event stream** (`safe_events`):
//!    - **Raw HTML is shown as text, never passed through.** Inline HTML becomes text; an HTML
//!      block becomes a code block holding its source. The author's words stay visible (an agent
//!      writing `Vec<T>` or `<br>` outside backticks sees its text, not a silent hole), hostile
//!      markup is visibly inert, and the sanitiser never has to second-guess raw markup.
//!    - **Links** are kept only for `http:`, `https:` and `mailto:` destinations (and e-mail
//!      autolinks, which become `mailto:`). Any other destination — `javascript:`, `data:`,
//!      relative paths, `//host`, anything with leading whitespace or control characters — is
//!      unwrapped: the link text stays, as plain text, without an anchor.
//!    - **No images.** An image whose destination is `http(s)`/`mailto` becomes a link to that
//!      URL whose text is the alt text (the URL itself when the alt text is empty); the image is
//!      never loaded. Any other image becomes its alt text. Inside a link, an image is just its
//!      alt text (no nested anchors).
//!    - **Task list markers** become the text `☐ ` / `☑ ` (no `<input>`).
//! 3. **Render** to HTML with pulldown-cmark and **sanitise** with one shared ammonia
//!    [`Builder`] (`SANITIZER`), defence in depth behind step 2:
//!    - tags: `p br hr h1–h6 strong em del code pre blockquote ul ol li a table thead tbody tr
//!      th td`; everything else is removed (its text kept), and the content of `script style
//!      iframe object embed svg math noscript template textarea title xmp noembed noframes` is
//!      dropped with it;
//!    - attributes: `a[href title]`, `ol[start]`, `code[class]` where the class must be one
//!      `language-*` token; no generic attributes, so no `style`, no `class` elsewhere, no
//!      event handlers (table alignment, emitted as `style`, is therefore dropped);
//!    - URL schemes `http https mailto`; relative URLs are denied;
//!    - every `a` gets `rel="noopener noreferrer nofollow"` and `target="_blank"`;
//!    - comments stripped.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};
use askd_core::questions::QuestionsSpec;
use askd_core::survey::model::SurveySpec;
use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

/// The tags the rendered HTML may contain.
const TAGS: &[&str] = &[
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
];

/// Elements removed together with their content (only reachable if markup ever slips past the
/// event rewrite; listed for defence in depth).
const CLEAN_CONTENT_TAGS: &[&str] = &[
    "script", "style", "iframe", "object", "embed", "svg", "math", "noscript", "template",
    "textarea", "title", "xmp", "noembed", "noframes",
];

/// The `rel` every link carries.
pub const LINK_REL: &str = "noopener noreferrer nofollow";

/// The one sanitiser, configured once.
static SANITIZER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().collect())
        .clean_content_tags(CLEAN_CONTENT_TAGS.iter().copied().collect())
        .generic_attributes(HashSet::new())
        .tag_attributes(HashMap::from([
            ("a", HashSet::from(["href", "title"])),
            ("ol", HashSet::from(["start"])),
            ("code", HashSet::from(["class"])),
        ]))
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .url_relative(UrlRelative::Deny)
        .link_rel(Some(LINK_REL))
        .set_tag_attribute_value("a", "target", "_blank")
        .strip_comments(true)
        .attribute_filter(filter_attribute);
    builder
});

/// Keeps `class` on `code` only when it is a single `language-*` token.
fn filter_attribute<'u>(element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    if element == "code" && attribute == "class" && !is_language_class(value) {
        return None;
    }
    Some(Cow::Borrowed(value))
}

fn is_language_class(value: &str) -> bool {
    value.len() <= 64
        && value.strip_prefix("language-").is_some_and(|lang| {
            !lang.is_empty()
                && lang
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_+#.".contains(&b))
        })
}

/// Whether a link (or image) destination may become an anchor.
fn allowed_destination(link_type: LinkType, dest: &str) -> bool {
    if link_type == LinkType::Email {
        // An e-mail autolink: pulldown-cmark validated the address and writes `mailto:` itself.
        return true;
    }
    ["http://", "https://", "mailto:"].iter().any(|scheme| {
        dest.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    })
}

/// The Markdown dialect: CommonMark plus tables, strikethrough and task lists.
fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// One open link or image in the source.
struct Open<'a> {
    /// An anchor was emitted for it.
    anchored: bool,
    /// For an image rendered as a link: where its alt text starts, and its URL (shown when the
    /// alt text is empty).
    image: Option<(usize, CowStr<'a>)>,
}

/// Parses `src` and rewrites the events as described in the module documentation.
fn safe_events(src: &str) -> Vec<Event<'_>> {
    let mut out = Vec::new();
    let mut open: Vec<Open<'_>> = Vec::new();
    let mut anchor_open = false;
    for event in Parser::new_ext(src, options()) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => out.push(Event::Text(html)),
            Event::Start(Tag::HtmlBlock) => {
                out.push(Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)));
            }
            Event::End(TagEnd::HtmlBlock) => out.push(Event::End(TagEnd::CodeBlock)),
            Event::TaskListMarker(done) => {
                out.push(Event::Text(CowStr::Borrowed(if done {
                    "☑ "
                } else {
                    "☐ "
                })));
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let anchored = !anchor_open && allowed_destination(link_type, &dest_url);
                if anchored {
                    anchor_open = true;
                    out.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }));
                }
                open.push(Open {
                    anchored,
                    image: None,
                });
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let anchored = !anchor_open && allowed_destination(link_type, &dest_url);
                let mut image = None;
                if anchored {
                    anchor_open = true;
                    out.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url: dest_url.clone(),
                        title,
                        id,
                    }));
                    image = Some((out.len(), dest_url));
                }
                open.push(Open { anchored, image });
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if let Some(done) = open.pop()
                    && done.anchored
                {
                    if let Some((alt_start, url)) = done.image
                        && out.len() == alt_start
                    {
                        out.push(Event::Text(url));
                    }
                    out.push(Event::End(TagEnd::Link));
                    anchor_open = false;
                }
            }
            // Not produced with the options above; kept inert should they ever be enabled.
            Event::InlineMath(text) | Event::DisplayMath(text) => out.push(Event::Text(text)),
            Event::FootnoteReference(name) => {
                out.push(Event::Text(CowStr::from(format!("[^{name}]"))));
            }
            other => out.push(other),
        }
    }
    out
}

/// Renders agent-authored Markdown to sanitised HTML (see the module documentation for the
/// policy). Never panics; empty input gives an empty string.
pub fn markdown(src: &str) -> String {
    let events = safe_events(src);
    let mut html = String::with_capacity(src.len() + src.len() / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    SANITIZER.clean(&html).to_string()
}

fn html(src: &str) -> Value {
    Value::String(markdown(src))
}

/// `{"insight": html}` or `{}`.
fn insight(src: Option<&str>) -> Value {
    let mut object = Map::new();
    if let Some(src) = src {
        object.insert("insight".into(), html(src));
    }
    Value::Object(object)
}

/// The rendered Markdown of a survey, beside its source:
///
/// ```json
/// {"intro": html?, "questions": {id: {"prompt": html, "detail": html?,
///   "options"?: {key: {"insight": html?}}}}, "quick"?: {key: {"insight": html?}}}
/// ```
///
/// Absent source members are absent here. Every option and quick template appears under its
/// key (an empty object when it has no insight); `options` is absent on a free-text question and
/// `quick` when the survey has no templates. Question, option and template order is kept.
pub fn survey(spec: &SurveySpec) -> Value {
    let mut root = Map::new();
    if let Some(intro) = &spec.intro {
        root.insert("intro".into(), html(intro));
    }
    let mut questions = Map::new();
    for (id, question) in &spec.questions {
        let mut rendered = Map::new();
        rendered.insert("prompt".into(), html(&question.prompt));
        if let Some(detail) = &question.detail {
            rendered.insert("detail".into(), html(detail));
        }
        if let Some(options) = &question.options {
            let options: Map<String, Value> = options
                .iter()
                .map(|option| (option.key.clone(), insight(option.insight.as_deref())))
                .collect();
            rendered.insert("options".into(), Value::Object(options));
        }
        questions.insert(id.clone(), Value::Object(rendered));
    }
    root.insert("questions".into(), Value::Object(questions));
    if let Some(quick) = &spec.quick {
        let quick: Map<String, Value> = quick
            .iter()
            .map(|template| (template.key.clone(), insight(template.insight.as_deref())))
            .collect();
        root.insert("quick".into(), Value::Object(quick));
    }
    Value::Object(root)
}

/// The rendered Markdown of a flat `ask_user_question` call:
/// `{"questions": {id: {"question": html, "detail": html?}}}`, in question order.
pub fn questions(spec: &QuestionsSpec) -> Value {
    let questions: Map<String, Value> = spec
        .questions
        .iter()
        .map(|question| {
            let mut rendered = Map::new();
            rendered.insert("question".into(), html(&question.question));
            if let Some(detail) = &question.detail {
                rendered.insert("detail".into(), html(detail));
            }
            (question.id.clone(), Value::Object(rendered))
        })
        .collect();
    let mut root = Map::new();
    root.insert("questions".into(), Value::Object(questions));
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hostile corpus shared with the HTTP tests.
    const CORPUS: &str = include_str!("../tests/fixtures/xss-corpus.json");

    /// Tags that must never appear as markup, checked on the whole output (escaped text shows
    /// them as `&lt;…`, so the literal never appears).
    const FORBIDDEN_TAGS: &[&str] = &[
        "<script", "<img", "<iframe", "<object", "<embed", "<style", "<svg", "<math", "<base",
        "<meta", "<link", "<form", "<input",
    ];

    /// Words that must never appear inside markup (tags and attributes). Raw HTML in the source
    /// is shown as escaped text, so these words may legitimately appear in *text*.
    const FORBIDDEN_IN_MARKUP: &[&str] = &[
        "onerror",
        "onload",
        "javascript:",
        "vbscript:",
        "data:",
        "srcdoc",
        "style",
        "<script",
        "<img",
        "<iframe",
        "<object",
        "<embed",
        "<svg",
        "<math",
        "<base",
        "<meta",
        "<link",
        "<form",
    ];

    /// One tag of sanitised output: name (with `/` for an end tag) and attributes.
    #[derive(Debug)]
    struct TagToken {
        raw: String,
        name: String,
        attrs: Vec<(String, String)>,
    }

    /// Splits serialised HTML into its tags. In ammonia's output, a `<` in text is always
    /// `&lt;` and attribute values are always double-quoted, so this is exact.
    fn tags_of(html: &str) -> Vec<TagToken> {
        let mut tags = Vec::new();
        let mut rest = html;
        while let Some(start) = rest.find('<') {
            let tail = &rest[start + 1..];
            let mut in_quote = false;
            let end = tail
                .char_indices()
                .find(|&(_, c)| {
                    if c == '"' {
                        in_quote = !in_quote;
                    }
                    c == '>' && !in_quote
                })
                .map(|(i, _)| i)
                .unwrap_or_else(|| panic!("unterminated tag in {html:?}"));
            let inner = &tail[..end];
            tags.push(parse_tag(inner));
            rest = &tail[end + 1..];
        }
        tags
    }

    fn parse_tag(inner: &str) -> TagToken {
        let inner_trim = inner.trim_end_matches('/');
        let name_end = inner_trim
            .find(|c: char| c.is_whitespace())
            .unwrap_or(inner_trim.len());
        let name = inner_trim[..name_end].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut rest = inner_trim[name_end..].trim_start();
        while !rest.is_empty() {
            let name_len = rest
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(rest.len());
            let attr = rest[..name_len].to_ascii_lowercase();
            rest = &rest[name_len..];
            let mut value = String::new();
            if let Some(after) = rest.strip_prefix("=\"") {
                let close = after.find('"').expect("closing quote");
                value = after[..close].to_string();
                rest = &after[close + 1..];
            }
            attrs.push((attr, value));
            rest = rest.trim_start();
        }
        TagToken {
            raw: inner.to_string(),
            name,
            attrs,
        }
    }

    /// Asserts that `html` (the rendering of `src`) is inert under the policy.
    fn assert_inert(src: &str, html: &str) {
        let lower = html.to_ascii_lowercase();
        for bad in FORBIDDEN_TAGS {
            assert!(
                !lower.contains(bad),
                "{bad} survived in {html:?} from {src:?}"
            );
        }
        for tag in tags_of(html) {
            let raw = tag.raw.to_ascii_lowercase();
            for bad in FORBIDDEN_IN_MARKUP {
                assert!(!raw.contains(bad), "{bad} in markup <{raw}> from {src:?}");
            }
            let bare = tag.name.trim_start_matches('/');
            assert!(
                TAGS.contains(&bare),
                "tag <{raw}> not allowed, from {src:?}"
            );
            for (attr, value) in &tag.attrs {
                assert!(
                    !attr.starts_with("on"),
                    "event handler {attr} in <{raw}> from {src:?}"
                );
                let allowed = match bare {
                    "a" => ["href", "title", "rel", "target"].contains(&attr.as_str()),
                    "ol" => attr == "start",
                    "code" => attr == "class" && is_language_class(value),
                    _ => false,
                };
                assert!(allowed, "attribute {attr} on <{raw}> from {src:?}");
                if attr == "href" {
                    let v = value.to_ascii_lowercase();
                    assert!(
                        v.starts_with("http://")
                            || v.starts_with("https://")
                            || v.starts_with("mailto:"),
                        "href {value:?} from {src:?}"
                    );
                }
            }
            if tag.name == "a" {
                assert!(
                    tag.attrs.iter().any(|(a, v)| a == "rel" && v == LINK_REL),
                    "rel missing on <{raw}> from {src:?}"
                );
                assert!(
                    tag.attrs
                        .iter()
                        .any(|(a, v)| a == "target" && v == "_blank"),
                    "target missing on <{raw}> from {src:?}"
                );
            }
        }
    }

    #[test]
    fn render_xss_corpus_is_inert() {
        let corpus: Vec<String> = serde_json::from_str(CORPUS).expect("corpus is a JSON list");
        assert!(corpus.len() >= 40, "corpus has {} entries", corpus.len());
        for src in &corpus {
            let html = markdown(src);
            assert_inert(src, &html);
            // Rendering is idempotent on already-safe output: sanitising twice changes nothing.
            assert_eq!(SANITIZER.clean(&html).to_string(), html, "from {src:?}");
        }
    }

    #[test]
    fn render_plain_markdown() {
        assert_eq!(
            markdown("Some *em* and **strong** and ~~gone~~ and `code`."),
            "<p>Some <em>em</em> and <strong>strong</strong> and <del>gone</del> and \
             <code>code</code>.</p>\n"
        );
        assert_eq!(
            markdown("# Title\n\n## Sub"),
            "<h1>Title</h1>\n<h2>Sub</h2>\n"
        );
        assert_eq!(
            markdown("- one\n- two\n\n3. three\n4. four"),
            "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol start=\"3\">\n<li>three</li>\n\
             <li>four</li>\n</ol>\n"
        );
        assert_eq!(
            markdown("> quoted\n\n---"),
            "<blockquote>\n<p>quoted</p>\n</blockquote>\n<hr>\n"
        );
        assert_eq!(markdown("a  \nb"), "<p>a<br>\nb</p>\n");
        assert_eq!(markdown(""), "");
    }

    #[test]
    fn render_code_blocks_keep_language_class() {
        assert_eq!(
            markdown("```rust\nfn main() { a < b }\n```"),
            "<pre><code class=\"language-rust\">fn main() { a &lt; b }\n</code></pre>\n"
        );
        assert_eq!(
            markdown("```\nplain\n```"),
            "<pre><code>plain\n</code></pre>\n"
        );
        // A hostile info string loses its class, not the code.
        assert_eq!(
            markdown("```\"onmouseover=x\nbody\n```"),
            "<pre><code>body\n</code></pre>\n"
        );
    }

    #[test]
    fn render_tables_without_alignment_styles() {
        assert_eq!(
            markdown("| a | b |\n|:--|--:|\n| 1 | 2 |"),
            "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n\
             <tr><td>1</td><td>2</td></tr>\n</tbody></table>\n"
        );
    }

    #[test]
    fn render_task_lists_as_text_markers() {
        assert_eq!(
            markdown("- [ ] todo\n- [x] done"),
            "<ul>\n<li>☐ todo</li>\n<li>☑ done</li>\n</ul>\n"
        );
    }

    /// An anchor as the sanitiser writes it (`attrs` already escaped).
    fn anchor(attrs: &str, text: &str) -> String {
        format!("<a {attrs} target=\"_blank\" rel=\"{LINK_REL}\">{text}</a>")
    }

    #[test]
    fn render_links_open_in_a_new_tab() {
        assert_eq!(
            markdown("[docs](https://example.com/a?b=1&c=2 \"Docs\")"),
            format!(
                "<p>{}</p>\n",
                anchor(
                    "href=\"https://example.com/a?b=1&amp;c=2\" title=\"Docs\"",
                    "docs"
                )
            )
        );
        assert_eq!(
            markdown("<https://example.com>"),
            format!(
                "<p>{}</p>\n",
                anchor("href=\"https://example.com\"", "https://example.com")
            )
        );
        assert_eq!(
            markdown("[mail](mailto:me@example.com) <you@example.com>"),
            format!(
                "<p>{} {}</p>\n",
                anchor("href=\"mailto:me@example.com\"", "mail"),
                anchor("href=\"mailto:you@example.com\"", "you@example.com")
            )
        );
        assert_eq!(
            markdown("[ref]\n\n[ref]: HTTP://example.com"),
            format!("<p>{}</p>\n", anchor("href=\"HTTP://example.com\"", "ref"))
        );
    }

    #[test]
    fn render_relative_and_foreign_links_become_text() {
        for src in [
            "[x](/relative/path)",
            "[x](page.html)",
            "[x](#anchor)",
            "[x](//evil.example/path)",
            "[x](javascript:alert(1))",
            "[x](data:text/html,hi)",
            "[x](ftp://example.com)",
        ] {
            assert_eq!(markdown(src), "<p>x</p>\n", "from {src:?}");
        }
    }

    #[test]
    fn render_images_become_links_or_alt_text() {
        let url = "https://evil.example/x.png";
        assert_eq!(
            markdown("![a chart](https://evil.example/x.png)"),
            format!("<p>{}</p>\n", anchor(&format!("href=\"{url}\""), "a chart"))
        );
        assert_eq!(
            markdown("![](https://evil.example/x.png)"),
            format!("<p>{}</p>\n", anchor(&format!("href=\"{url}\""), url))
        );
        assert_eq!(
            markdown("![alt *text*](local.png)"),
            "<p>alt <em>text</em></p>\n"
        );
        assert_eq!(
            markdown("[![badge](https://x.example/b.svg)](https://example.com)"),
            format!(
                "<p>{}</p>\n",
                anchor("href=\"https://example.com\"", "badge")
            )
        );
    }

    #[test]
    fn render_raw_html_shows_as_text() {
        assert_eq!(
            markdown("Use Vec<T> and <b onclick=x>bold</b>."),
            "<p>Use Vec&lt;T&gt; and &lt;b onclick=x&gt;bold&lt;/b&gt;.</p>\n"
        );
        assert_eq!(
            markdown("<div>\n<script>alert(1)</script>\n</div>"),
            "<pre><code>&lt;div&gt;\n&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;/div&gt;</code></pre>\n"
        );
        assert_eq!(
            markdown("<!-- hidden -->"),
            "<pre><code>&lt;!-- hidden --&gt;</code></pre>\n"
        );
    }

    #[test]
    fn render_survey_beside_source() {
        let spec: SurveySpec = serde_json::from_value(serde_json::json!({
            "intro": "Pick **one**.",
            "entry": "q2",
            "questions": {
                "q2": {
                    "prompt": "Second *first*",
                    "detail": "`d`",
                    "options": [
                        {"key": "b", "label": "B", "insight": "- **Promise:** x"},
                        {"key": "a", "label": "A"}
                    ]
                },
                "q1": {"prompt": "Free text"}
            },
            "quick": [{"key": "a", "label": "All", "insight": "_why_", "answers": {}},
                      {"key": "b", "label": "None", "answers": {}}]
        }))
        .expect("spec");
        let rendered = survey(&spec);
        assert_eq!(
            rendered,
            serde_json::json!({
                "intro": "<p>Pick <strong>one</strong>.</p>\n",
                "questions": {
                    "q2": {
                        "prompt": "<p>Second <em>first</em></p>\n",
                        "detail": "<p><code>d</code></p>\n",
                        "options": {
                            "b": {"insight": "<ul>\n<li><strong>Promise:</strong> x</li>\n</ul>\n"},
                            "a": {}
                        }
                    },
                    "q1": {"prompt": "<p>Free text</p>\n"}
                },
                "quick": {"a": {"insight": "<p><em>why</em></p>\n"}, "b": {}}
            })
        );
        let order: Vec<&String> = rendered["questions"]
            .as_object()
            .expect("map")
            .keys()
            .collect();
        assert_eq!(order, ["q2", "q1"]);
        let options: Vec<&String> = rendered["questions"]["q2"]["options"]
            .as_object()
            .expect("map")
            .keys()
            .collect();
        assert_eq!(options, ["b", "a"]);

        let bare: SurveySpec = serde_json::from_value(serde_json::json!({
            "entry": "q", "questions": {"q": {"prompt": "P"}}
        }))
        .expect("spec");
        assert_eq!(
            survey(&bare),
            serde_json::json!({"questions": {"q": {"prompt": "<p>P</p>\n"}}})
        );
    }

    #[test]
    fn render_flat_questions() {
        let spec: QuestionsSpec = serde_json::from_value(serde_json::json!({
            "questions": [
                {"id": "z", "question": "Which *one*?", "detail": "[x](javascript:y)"},
                {"id": "a", "question": "Plain"}
            ]
        }))
        .expect("spec");
        let rendered = questions(&spec);
        assert_eq!(
            rendered,
            serde_json::json!({"questions": {
                "z": {"question": "<p>Which <em>one</em>?</p>\n", "detail": "<p>x</p>\n"},
                "a": {"question": "<p>Plain</p>\n"}
            }})
        );
        let order: Vec<&String> = rendered["questions"]
            .as_object()
            .expect("map")
            .keys()
            .collect();
        assert_eq!(order, ["z", "a"]);
    }
}
