//! Mermaid diagrams rendered by askd itself (`survey.md` §12.15): no browser, no network.
//!
//! `GET /api/diagrams/{hash}.svg?theme=light|dark&ask={ask_id}` — `hash` is the SHA-256
//! (lower-case hex) of the diagram's Mermaid source, as the page computes it from the spec it
//! already holds. On a cache miss askd reads that ask, finds the diagram whose source has
//! this hash (so only diagrams of a stored ask can be rendered, and a restart loses
//! nothing), renders it with the `mermaid-svg` crate (pure Rust, no dependencies besides
//! `thiserror`) and keeps the result keyed by hash and theme.
//!
//! The page shows the SVG only as `<img>`, which never runs script. Defence in depth, the
//! SVG is also **sanitised** ([`sanitize_svg`]) by parsing it as XML and rebuilding it from an
//! allow-list — no `script`, no `foreignObject`, no `image`, no animation, no event
//! attributes, no links (an `<a>` is unwrapped), no reference outside the document (`href`
//! and `url(…)` only to `#fragment`s), no DOCTYPE or entities — and served with its own CSP
//! (`crate::ui::SVG_CSP`); the route is `crate::http::diagram`. A source that fails to parse or render gives
//! `422 render-failed {source}`, and the page shows the source as text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quick_xml::events::{BytesStart, BytesText, Event};
use quick_xml::{Reader, Writer};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The fonts the SVG names: an `<img>` cannot inherit the page's fonts.
const FONT_STACK: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', sans-serif";

/// How long one render may take before it counts as failed.
pub const RENDER_BUDGET: Duration = Duration::from_secs(5);

/// How many rendered diagrams the cache keeps (it is emptied when full).
const CACHE_ENTRIES: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn parse(s: Option<&str>) -> Option<Theme> {
        match s {
            None | Some("light") => Some(Theme::Light),
            Some("dark") => Some(Theme::Dark),
            Some(_) => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// A finished render: the sanitised SVG, or why it failed.
pub type Rendered = Arc<Result<String, String>>;

/// Rendered diagrams by source hash and theme, one per daemon (emptied when it holds
/// `CACHE_ENTRIES`).
#[derive(Debug, Default)]
pub struct Cache(Mutex<HashMap<(String, Theme), Rendered>>);

impl Cache {
    pub fn get(&self, key: &(String, Theme)) -> Option<Rendered> {
        self.0.lock().ok()?.get(key).cloned()
    }

    pub fn remember(&self, key: (String, Theme), value: Rendered) {
        if let Ok(mut cache) = self.0.lock() {
            if cache.len() >= CACHE_ENTRIES {
                cache.clear();
            }
            cache.insert(key, value);
        }
    }
}

/// Every `diagram` string in an ask's spec (options and quick templates).
pub fn diagram_sources(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("diagram", Value::String(s)) => out.push(s.clone()),
                    _ => diagram_sources(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| diagram_sources(v, out)),
        _ => {}
    }
}

/// The content hash of a diagram source, as the page computes it.
pub fn hash(source: &str) -> String {
    Sha256::digest(source.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Renders Mermaid source to a sanitised SVG.
pub fn render(source: &str, theme: Theme) -> Result<String, String> {
    let base = match theme {
        Theme::Light => mermaid_svg::Theme::by_name("neutral"),
        Theme::Dark => mermaid_svg::Theme::by_name("dark"),
    }
    .unwrap_or_default()
    .with_font(FONT_STACK);
    let svg = mermaid_svg::render_with(source, &base).map_err(|e| e.to_string())?;
    sanitize_svg(&svg)
}

// ---------------------------------------------------------------------------------------------
// The SVG sanitiser
// ---------------------------------------------------------------------------------------------

/// Elements kept as they are (with their allowed attributes).
const KEEP: &[&str] = &[
    "svg",
    "g",
    "defs",
    "marker",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "title",
    "desc",
    "style",
    "linearGradient",
    "radialGradient",
    "stop",
    "clipPath",
    "mask",
    "pattern",
    "symbol",
    "use",
    "filter",
    "feDropShadow",
    "feGaussianBlur",
    "feOffset",
    "feFlood",
    "feComposite",
    "feMerge",
    "feMergeNode",
    "feBlend",
    "feColorMatrix",
];

/// Elements whose tag is dropped but whose children are kept (a link keeps its text).
const UNWRAP: &[&str] = &["a"];

/// What happens to an open element, remembered until its end tag.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    Keep,
    Unwrap,
    Drop,
}

/// CSS that could fetch or run something: `@import`, `url(` to anything but a fragment,
/// legacy expressions and bindings, and escapes (which could spell any of these).
fn css_is_safe(css: &str) -> bool {
    let lower = css.to_ascii_lowercase();
    if lower.contains('\\')
        || lower.contains("@import")
        || lower.contains("expression")
        || lower.contains("javascript:")
        || lower.contains("behavior")
        || lower.contains("binding")
    {
        return false;
    }
    urls_are_local(&lower)
}

/// Every `url(` in the value points into the document (`url(#id)`).
fn urls_are_local(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    lower.match_indices("url(").all(|(i, _)| {
        lower[i + 4..]
            .trim_start()
            .trim_start_matches(['"', '\''])
            .starts_with('#')
    })
}

fn attribute_allowed(name: &str, value: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let local = lower.rsplit(':').next().unwrap_or(&lower);
    if local.starts_with("on") || lower == "xml:base" {
        return false;
    }
    if lower.starts_with("xmlns:") && lower != "xmlns:xlink" {
        return false;
    }
    if local == "href" || local == "src" {
        return value.trim_start().starts_with('#');
    }
    if local == "style" {
        return css_is_safe(value);
    }
    let v = value.to_ascii_lowercase();
    !v.contains("javascript:") && !v.contains("data:") && urls_are_local(value)
}

/// Rebuilds an SVG document from the allow-list. Anything unparseable (including a DOCTYPE,
/// which could declare entities, and entity references other than the five predefined ones)
/// is refused as a whole.
pub fn sanitize_svg(svg: &str) -> Result<String, String> {
    fn bad(e: impl std::fmt::Display) -> String {
        format!("the renderer produced invalid SVG: {e}")
    }
    let mut reader = Reader::from_str(svg);
    reader.config_mut().trim_text(false);
    reader.config_mut().check_end_names = true;
    let mut writer = Writer::new(Vec::with_capacity(svg.len()));
    // One entry per open element: what happens to it, and whether it is a `<style>`.
    let mut stack: Vec<(Open, bool)> = Vec::new();
    let mut dropping = 0usize;
    let mut seen_root = false;
    loop {
        let event = reader.read_event().map_err(bad)?;
        let in_style = stack.last().is_some_and(|(_, style)| *style);
        match event {
            Event::Eof => break,
            Event::DocType(_) => return Err("the SVG declares a DOCTYPE".into()),
            Event::Start(e) => {
                if dropping > 0 {
                    dropping += 1;
                    stack.push((Open::Drop, false));
                    continue;
                }
                let (open, tag) = open_tag(&e, &mut seen_root)?;
                if let Some(tag) = tag {
                    writer.write_event(Event::Start(tag)).map_err(bad)?;
                }
                if open == Open::Drop {
                    dropping += 1;
                }
                stack.push((open, e.local_name().as_ref() == "style"));
            }
            Event::Empty(e) => {
                if dropping == 0
                    && let (_, Some(tag)) = open_tag(&e, &mut seen_root)?
                {
                    writer.write_event(Event::Empty(tag)).map_err(bad)?;
                }
            }
            Event::End(e) => match stack.pop() {
                Some((Open::Drop, _)) => dropping -= 1,
                Some((Open::Keep, _)) => writer.write_event(Event::End(e)).map_err(bad)?,
                Some((Open::Unwrap, _)) => {}
                None => return Err(bad("an end tag without a start")),
            },
            Event::Text(t) if dropping == 0 => {
                let text = t.xml10_content();
                if in_style && !css_is_safe(&text) {
                    return Err("the SVG carries an unsafe style sheet".into());
                }
                writer
                    .write_event(Event::Text(BytesText::new(&text)))
                    .map_err(bad)?;
            }
            Event::CData(c) if dropping == 0 => {
                let text = c.into_inner();
                if in_style && !css_is_safe(&text) {
                    return Err("the SVG carries an unsafe style sheet".into());
                }
                writer
                    .write_event(Event::Text(BytesText::new(&text)))
                    .map_err(bad)?;
            }
            Event::GeneralRef(r) if dropping == 0 => {
                let ch = match r.resolve_char_ref().map_err(bad)? {
                    Some(c) => c,
                    None => match r.into_inner().as_ref() {
                        "lt" => '<',
                        "gt" => '>',
                        "amp" => '&',
                        "apos" => '\'',
                        "quot" => '"',
                        other => return Err(bad(format!("unknown entity &{other};"))),
                    },
                };
                if in_style && ch == '\\' {
                    return Err("the SVG carries an unsafe style sheet".into());
                }
                let mut buf = [0u8; 4];
                writer
                    .write_event(Event::Text(BytesText::new(ch.encode_utf8(&mut buf))))
                    .map_err(bad)?;
            }
            // Declarations, processing instructions, comments, and anything inside a dropped
            // element.
            _ => {}
        }
    }
    if !seen_root || !stack.is_empty() {
        return Err("the renderer produced no complete SVG document".into());
    }
    String::from_utf8(writer.into_inner()).map_err(bad)
}

/// Decides an element's fate and rebuilds its start tag from the allowed attributes.
fn open_tag(
    e: &BytesStart<'_>,
    seen_root: &mut bool,
) -> Result<(Open, Option<BytesStart<'static>>), String> {
    let name = e.name().as_ref().to_string();
    if !*seen_root {
        if name != "svg" {
            return Err("the document is not an SVG".into());
        }
        *seen_root = true;
    }
    if UNWRAP.contains(&name.as_str()) {
        return Ok((Open::Unwrap, None));
    }
    if !KEEP.contains(&name.as_str()) {
        return Ok((Open::Drop, None));
    }
    let mut tag = BytesStart::new(name);
    for attr in e.attributes() {
        let attr = attr.map_err(|e| format!("the renderer produced invalid SVG: {e}"))?;
        let key = attr.key.as_ref();
        let value = attr
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| format!("the renderer produced invalid SVG: {e}"))?;
        if attribute_allowed(key, &value) {
            tag.push_attribute((key, value.as_ref()));
        }
    }
    Ok((Open::Keep, Some(tag.into_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(svg: &str) -> String {
        sanitize_svg(svg).unwrap()
    }

    #[test]
    fn renders_a_flowchart_in_both_themes() {
        let src = "flowchart LR\n  A[Client] -->|REST| B(API)\n  B --> C{Cache?}";
        for theme in [Theme::Light, Theme::Dark] {
            let svg = render(src, theme).unwrap();
            assert!(svg.starts_with("<svg"), "{svg}");
            assert!(svg.contains("Client") && svg.contains("Cache?"));
            assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
        }
        assert_ne!(render(src, Theme::Light), render(src, Theme::Dark));
    }

    #[test]
    fn a_broken_source_fails_to_render() {
        assert!(render("this is not mermaid", Theme::Light).is_err());
        assert!(render("", Theme::Dark).is_err());
    }

    #[test]
    fn hostile_labels_and_click_directives_stay_inert() {
        let src = "flowchart TD\n  A[\"<img src=x onerror=alert(1)>\"] --> B[\"<script>alert(1)</script>\"]\n  click A \"javascript:alert(1)\"\n  click B call alert(1)\n  C[<a href='https://evil.example'>x</a>]";
        let svg = render(src, Theme::Light).unwrap();
        let lower = svg.to_ascii_lowercase();
        for needle in [
            "<script",
            "onerror=",
            "onclick=",
            "href=\"javascript",
            "<a ",
            "<img",
            "evil.example\"",
        ] {
            assert!(!lower.contains(needle), "{needle} in {svg}");
        }
    }

    #[test]
    fn the_sanitiser_drops_script_foreign_objects_events_and_external_references() {
        let out = clean(concat!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"x()\">",
            "<script>alert(1)</script>",
            "<foreignObject><div xmlns=\"http://www.w3.org/1999/xhtml\">hi</div></foreignObject>",
            "<a href=\"javascript:alert(1)\"><text x=\"1\">kept</text></a>",
            "<image href=\"https://evil.example/x.png\"/>",
            "<use href=\"https://evil.example/x.svg#a\"/><use href=\"#local\"/>",
            "<rect fill=\"url(https://evil.example/p)\" stroke=\"url(#g)\" style=\"fill:url(http://e/x)\"/>",
            "<animate attributeName=\"href\" to=\"javascript:alert(1)\"/>",
            "<set attributeName=\"onclick\" to=\"alert(1)\"/>",
            "<g ONCLICK=\"x\" xml:base=\"https://evil.example/\"><path d=\"M0 0\"/></g>",
            "<!-- comment --><?pi x?>",
            "</svg>"
        ));
        assert_eq!(
            out,
            concat!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\">",
                "<text x=\"1\">kept</text>",
                "<use/><use href=\"#local\"/>",
                "<rect stroke=\"url(#g)\"/>",
                "<g><path d=\"M0 0\"/></g>",
                "</svg>"
            )
        );
    }

    #[test]
    fn the_sanitiser_refuses_doctypes_entities_and_unsafe_style_sheets() {
        assert!(sanitize_svg("<!DOCTYPE svg [<!ENTITY x \"y\">]><svg>&x;</svg>").is_err());
        assert!(sanitize_svg("<svg>&x;</svg>").is_err());
        assert!(sanitize_svg("<svg><style>@import url(https://e/x.css);</style></svg>").is_err());
        assert!(sanitize_svg("<svg><style>a{fill:u\\72l(x)}</style></svg>").is_err());
        assert!(sanitize_svg("<html><svg/></html>").is_err());
        assert!(sanitize_svg("<svg><g></svg>").is_err());
        assert_eq!(
            clean("<svg><style>.a{fill:url(#g)}</style><text>&lt;b&gt; &amp; &#x41;</text></svg>"),
            "<svg><style>.a{fill:url(#g)}</style><text>&lt;b&gt; &amp; A</text></svg>"
        );
    }

    #[test]
    fn hashes_are_sha256_hex() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
