//! The MCP App's one self-contained HTML document (issue 20): the web UI's own modules
//! (`ui/js`, `ui/i18n`) and styles (`ui/css`), inlined, since the host's sandboxed frame
//! has no network and relative ES-module imports do not resolve from its document. Each
//! module becomes a function in one inline `<script type="module">`, evaluated on first
//! use (CommonJS-style, live bindings through getters); `js/api.js` is replaced by
//! `ui/app/api.js`, which routes the same calls through the host (`tools/call`).
//!
//! The rewriter is strict: it handles exactly the import/export forms askd's modules use
//! and fails, naming the module and line, on anything else (a unit test runs it over every
//! module it inlines), so a new syntax in `ui/` breaks the build's tests, not the app.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The modules the app inlines (path under `ui/`, text), the app's own first.
const MODULES: &[(&str, &str)] = &[
    ("app/main.js", include_str!("../../../ui/app/main.js")),
    ("app/api.js", include_str!("../../../ui/app/api.js")),
    ("js/align.js", include_str!("../../../ui/js/align.js")),
    ("js/autosave.js", include_str!("../../../ui/js/autosave.js")),
    ("js/deadline.js", include_str!("../../../ui/js/deadline.js")),
    ("js/diagram.js", include_str!("../../../ui/js/diagram.js")),
    ("js/dialog.js", include_str!("../../../ui/js/dialog.js")),
    ("js/dom.js", include_str!("../../../ui/js/dom.js")),
    ("js/drift.js", include_str!("../../../ui/js/drift.js")),
    ("js/html.js", include_str!("../../../ui/js/html.js")),
    ("js/i18n.js", include_str!("../../../ui/js/i18n.js")),
    (
        "js/questions.js",
        include_str!("../../../ui/js/questions.js"),
    ),
    ("js/recap.js", include_str!("../../../ui/js/recap.js")),
    ("js/review.js", include_str!("../../../ui/js/review.js")),
    ("js/rows.js", include_str!("../../../ui/js/rows.js")),
    ("js/theme.js", include_str!("../../../ui/js/theme.js")),
    ("js/tooltip.js", include_str!("../../../ui/js/tooltip.js")),
    ("js/wizard.js", include_str!("../../../ui/js/wizard.js")),
    ("i18n/en.js", include_str!("../../../ui/i18n/en.js")),
    ("i18n/zh-CN.js", include_str!("../../../ui/i18n/zh-CN.js")),
    (
        "i18n/align-en.js",
        include_str!("../../../ui/i18n/align-en.js"),
    ),
    (
        "i18n/align-zh-CN.js",
        include_str!("../../../ui/i18n/align-zh-CN.js"),
    ),
];

/// The stylesheets, in order.
const STYLES: &[(&str, &str)] = &[
    ("css/app.css", include_str!("../../../ui/css/app.css")),
    ("css/align.css", include_str!("../../../ui/css/align.css")),
];

/// A module the page imports that the app replaces: `js/api.js` is the app's `app/api.js`.
fn alias(path: &str) -> &str {
    match path {
        "js/api.js" => "app/api.js",
        p => p,
    }
}

/// A rewrite failure: the module, the 1-based line, what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct RewriteError {
    pub module: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for RewriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ui/{}:{}: {}", self.module, self.line, self.message)
    }
}

/// `./x.js` or `../i18n/x.js` from `from` (a path under `ui/`), as a path under `ui/`.
fn resolve(from: &str, spec: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    let rest = if let Some(r) = spec.strip_prefix("./") {
        r
    } else if spec.starts_with("../") {
        let mut r = spec;
        while let Some(next) = r.strip_prefix("../") {
            parts.pop()?;
            r = next;
        }
        r
    } else {
        return None;
    };
    if rest.contains("..") || rest.contains("./") || !rest.ends_with(".js") {
        return None;
    }
    parts.push(rest);
    Some(alias(&parts.join("/")).to_string())
}

/// The quoted specifier at the start of `s` (`'./x.js'` or `"./x.js"`) and what follows it.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let end = s[1..].find(q)? + 1;
    Some((&s[1..end], &s[end + 1..]))
}

fn ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == '$')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '$')
}

/// One module rewritten into a function body, with its exports and static dependencies.
#[derive(Debug)]
pub struct Rewritten {
    pub body: String,
    pub exports: Vec<String>,
    pub deps: Vec<String>,
}

/// Rewrites one module (see the module doc): `import {a, b as c} from './x.js';`,
/// `import x from './x.js';`, `import './x.js';`, `export function|async function|class|
/// const|let …`, `export default …`, `import('./x.js')` and `import.meta.url`. Anything else
/// that imports or exports is an error.
pub fn rewrite(module: &str, src: &str, known: &[&str]) -> Result<Rewritten, RewriteError> {
    let fail = |line: usize, message: String| RewriteError {
        module: module.to_string(),
        line,
        message,
    };
    let mut body = String::with_capacity(src.len() + 256);
    let mut exports = Vec::new();
    let mut deps = Vec::new();
    let target = |line: usize, spec: &str| -> Result<String, RewriteError> {
        let path = resolve(module, spec).ok_or_else(|| {
            fail(
                line,
                format!("the specifier {spec:?} is not a relative .js path"),
            )
        })?;
        if !known.contains(&path.as_str()) {
            return Err(fail(
                line,
                format!("{spec:?} ({path}) is not among the modules the app inlines"),
            ));
        }
        Ok(path)
    };
    for (i, raw) in src.lines().enumerate() {
        let n = i + 1;
        let mut line = raw.to_string();
        let trimmed = raw.trim_start();
        let indented = trimmed.len() != raw.len();
        if raw.to_ascii_lowercase().contains("</script") {
            return Err(fail(n, "`</script` would end the inline script".into()));
        }
        if let Some(rest) = trimmed.strip_prefix("import ") {
            if indented {
                return Err(fail(n, "an indented import statement".into()));
            }
            line = import_statement(n, rest, &fail, &target, &mut deps)?;
        } else if let Some(rest) = trimmed.strip_prefix("export ") {
            if indented {
                return Err(fail(n, "an indented export".into()));
            }
            line = export_statement(n, rest, trimmed, &fail, &mut exports)?;
        }
        // Dynamic imports and import.meta, anywhere on the line.
        let out = dynamic_imports(module, n, &line, &fail, &target)?;
        body.push_str(&out);
        body.push('\n');
    }
    Ok(Rewritten {
        body,
        exports,
        deps,
    })
}

/// One `import …` statement (`rest` after the keyword) as a `__req` of its module, which
/// joins `deps`.
fn import_statement(
    n: usize,
    rest: &str,
    fail: &dyn Fn(usize, String) -> RewriteError,
    target: &dyn Fn(usize, &str) -> Result<String, RewriteError>,
    deps: &mut Vec<String>,
) -> Result<String, RewriteError> {
    let rest = rest.trim();
    if let Some((spec, tail)) = quoted(rest) {
        // import './x.js';  (side effects only)
        if tail.trim() != ";" {
            return Err(fail(
                n,
                "an import statement must end with `;` on its line".into(),
            ));
        }
        let path = target(n, spec)?;
        let line = format!("__req({path:?});");
        deps.push(path);
        Ok(line)
    } else {
        let Some((names, from)) = rest.split_once(" from ") else {
            return Err(fail(n, "an import without ` from ` on its line".into()));
        };
        let Some((spec, tail)) = quoted(from.trim()) else {
            return Err(fail(n, "the import's specifier must be quoted".into()));
        };
        if tail.trim() != ";" {
            return Err(fail(
                n,
                "an import statement must end with `;` on its line".into(),
            ));
        }
        let path = target(n, spec)?;
        let names = names.trim();
        let line = if let Some(inner) = names.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            let mut bound = Vec::new();
            for item in inner.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (a, b) = match item.split_once(" as ") {
                    Some((a, b)) => (a.trim(), b.trim()),
                    None => (item, item),
                };
                if !ident(a) || !ident(b) {
                    return Err(fail(n, format!("cannot read the imported name {item:?}")));
                }
                bound.push(if a == b {
                    a.to_string()
                } else {
                    format!("{a}: {b}")
                });
            }
            format!("const {{ {} }} = __req({path:?});", bound.join(", "))
        } else if ident(names) {
            format!("const {names} = __req({path:?}).default;")
        } else {
            return Err(fail(
                n,
                format!(
                    "unsupported import form {names:?} (use `{{ a, b as c }}` or a default import)"
                ),
            ));
        };
        deps.push(path);
        Ok(line)
    }
}

/// One `export …` statement (`rest` after the keyword; `trimmed` the whole) without the
/// keyword, its name joining `exports`.
fn export_statement(
    n: usize,
    rest: &str,
    trimmed: &str,
    fail: &dyn Fn(usize, String) -> RewriteError,
    exports: &mut Vec<String>,
) -> Result<String, RewriteError> {
    let decl = ["function ", "async function ", "class ", "const ", "let "]
        .iter()
        .find(|k| rest.starts_with(**k));
    if let Some(k) = decl {
        let after = &rest[k.len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        if !ident(&name) {
            return Err(fail(n, "cannot read the exported name".into()));
        }
        let rest_of_decl = &after[name.len()..];
        if k.starts_with("const") || k.starts_with("let") {
            // One binding per export statement: `export const a = 1, b = 2;` is not read.
            if !rest_of_decl.trim_start().starts_with('=') {
                return Err(fail(n, "an exported const/let must be `name = …`".into()));
            }
        }
        exports.push(name);
        Ok(rest.to_string())
    } else if let Some(value) = rest.strip_prefix("default ") {
        exports.push("default".into());
        Ok(format!("const __default = {value}"))
    } else {
        Err(fail(
            n,
            format!(
                "unsupported export form: {}",
                trimmed.chars().take(40).collect::<String>()
            ),
        ))
    }
}

/// `line` with its dynamic imports (`import('./x.js')`) as `__import` and `import.meta.url`
/// as the module's URL.
fn dynamic_imports(
    module: &str,
    n: usize,
    line: &str,
    fail: &dyn Fn(usize, String) -> RewriteError,
    target: &dyn Fn(usize, &str) -> Result<String, RewriteError>,
) -> Result<String, RewriteError> {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = find_keyword(rest, "import") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "import".len()..];
        if let Some(a) = after
            .strip_prefix("('")
            .or_else(|| after.strip_prefix("(\""))
        {
            let q = &after[1..2];
            let Some(end) = a.find(q) else {
                return Err(fail(n, "an unterminated dynamic import".into()));
            };
            let spec = &a[..end];
            let Some(tail) = a[end + 1..].strip_prefix(')') else {
                return Err(fail(
                    n,
                    "a dynamic import must be `import('./x.js')`".into(),
                ));
            };
            let path = target(n, spec)?;
            out.push_str(&format!("__import({path:?})"));
            rest = tail;
        } else if let Some(tail) = after.strip_prefix(".meta.url") {
            out.push_str(&format!("{:?}", format!("https://askd.invalid/{module}")));
            rest = tail;
        } else if after.starts_with('(') || after.starts_with(".meta") {
            return Err(fail(n, "an import this rewriter does not handle".into()));
        } else {
            // The word in a comment or a string ("import" in prose).
            out.push_str("import");
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The byte offset of `word` in `s` as a whole word.
fn find_keyword(s: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find(word) {
        let at = from + i;
        let before = s[..at].chars().next_back();
        let boundary =
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.');
        if boundary {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Fails on a cycle of static imports (the lazy loader would hand out a half-made module).
fn check_cycles(graph: &BTreeMap<String, Vec<String>>) -> Result<(), String> {
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, Vec<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
    ) -> Result<(), String> {
        match state.get(node) {
            Some(2) => return Ok(()),
            Some(1) => {
                stack.push(node);
                return Err(format!("a cycle of static imports: {}", stack.join(" → ")));
            }
            _ => {}
        }
        state.insert(node, 1);
        stack.push(node);
        for d in graph.get(node).into_iter().flatten() {
            visit(d, graph, state, stack)?;
        }
        stack.pop();
        state.insert(node, 2);
        Ok(())
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        visit(node, graph, &mut state, &mut Vec::new())?;
    }
    Ok(())
}

/// The loader every module function runs under.
const LOADER: &str = r#"const __defs = Object.create(null);
const __done = Object.create(null);
const __busy = new Set();
function __req(path) {
  if (path in __done) return __done[path];
  if (!(path in __defs)) throw new Error(`askd app: no module ${path}`);
  if (__busy.has(path)) throw new Error(`askd app: import cycle at ${path}`);
  __busy.add(path);
  try {
    __done[path] = __defs[path]();
  } finally {
    __busy.delete(path);
  }
  return __done[path];
}
function __import(path) {
  try {
    return Promise.resolve(__req(path));
  } catch (e) {
    return Promise.reject(e);
  }
}
"#;

/// Builds the document from `modules` and `styles`.
pub fn build(modules: &[(&str, &str)], styles: &[(&str, &str)]) -> Result<String, String> {
    let known: Vec<&str> = modules.iter().map(|(p, _)| *p).collect();
    let mut script = String::from(LOADER);
    let mut graph = BTreeMap::new();
    for (path, src) in modules {
        let r = rewrite(path, src, &known).map_err(|e| e.to_string())?;
        let getters: Vec<String> = r
            .exports
            .iter()
            .map(|name| {
                let binding = if name == "default" { "__default" } else { name };
                format!("get {name}() {{ return {binding}; }}")
            })
            .collect();
        script.push_str(&format!(
            "__defs[{path:?}] = () => {{\n{}return Object.freeze({{ {} }});\n}};\n",
            r.body,
            getters.join(", ")
        ));
        graph.insert(path.to_string(), r.deps);
    }
    check_cycles(&graph)?;
    script.push_str("__req(\"app/main.js\");\n");
    let mut css = String::new();
    let mut names = Vec::new();
    for (path, text) in styles {
        // `css/align.css` → `align`: js/align.js finds it inlined and loads nothing.
        names.push(path.trim_start_matches("css/").trim_end_matches(".css"));
        if text.to_ascii_lowercase().contains("</style") {
            return Err(format!("ui/{path}: `</style` would end the inline style"));
        }
        css.push_str(&format!("/* ui/{path} */\n{text}\n"));
    }
    let names = names.join(" ");
    // The page's in-app links (inbox, session page) and a review's export downloads (daemon
    // URLs) lead nowhere inside the host's frame, which has no network.
    css.push_str("/* the MCP App */\nbody.mcp-app a[data-nav], body.mcp-app .rv-exports, body.mcp-app .rv-export, body.mcp-app .rv-hint-link { display: none !important; }\n");
    Ok(format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>askd</title>\n<style data-askd-css=\"{names}\">\n{css}</style>\n</head>\n<body class=\"mcp-app\">\n<main id=\"app\" class=\"app\"></main>\n<script type=\"module\">\n{script}</script>\n</body>\n</html>\n"
    ))
}

/// The app's document, assembled once per process.
pub fn document() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        build(MODULES, STYLES).unwrap_or_else(|e| {
            tracing::error!("the MCP App could not be assembled: {e}");
            format!(
                "<!doctype html><meta charset=\"utf-8\"><p>askd: the app could not be assembled ({}). Answer on askd's page instead.</p>",
                e.replace('<', "&lt;")
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_inlined_module_rewrites_and_the_document_builds() {
        let doc = build(MODULES, STYLES).expect("the app document builds");
        assert!(doc.contains("__defs[\"js/wizard.js\"]"));
        assert!(doc.contains("__defs[\"app/api.js\"]"));
        assert!(
            !doc.contains("__defs[\"js/api.js\"]"),
            "js/api.js is replaced"
        );
        // No import/export statement survives.
        for line in doc.lines() {
            let t = line.trim_start();
            assert!(
                !t.starts_with("import ") && !t.starts_with("export "),
                "{line}"
            );
        }
        assert!(
            !doc.replace("__import(", "").contains("import("),
            "every dynamic import is rewritten"
        );
    }

    #[test]
    fn the_rewriter_reads_the_forms_it_knows() {
        let known = ["js/a.js", "js/b.js", "i18n/en.js"];
        let r = rewrite(
            "js/a.js",
            "import { x, y as z } from './b.js';\nimport en from '../i18n/en.js';\nimport './b.js';\nexport function f() { return import('./b.js'); }\nexport const K = 1;\nexport default { a: 1 };\n// an import in prose\n",
            &known,
        )
        .unwrap();
        assert!(r.body.contains("const { x, y: z } = __req(\"js/b.js\");"));
        assert!(r.body.contains("const en = __req(\"i18n/en.js\").default;"));
        assert!(r.body.contains("return __import(\"js/b.js\");"));
        assert!(r.body.contains("const __default = { a: 1 };"));
        assert_eq!(r.exports, ["f", "K", "default"]);
    }

    #[test]
    fn the_rewriter_fails_loudly_on_what_it_does_not_handle() {
        let known = ["js/a.js", "js/b.js"];
        for (src, why) in [
            ("import * as b from './b.js';", "unsupported import form"),
            ("import {\n  x } from './b.js';", "without ` from `"),
            ("import { x } from './c.js';", "not among the modules"),
            ("import { x } from 'lodash';", "not a relative .js path"),
            ("export { x };", "unsupported export form"),
            ("export * from './b.js';", "unsupported export form"),
            ("const m = import(name);", "does not handle"),
            ("const m = import.meta.resolve('x');", "does not handle"),
            ("  export function f() {}", "indented export"),
            ("const s = '</script>';", "inline script"),
        ] {
            match rewrite("js/a.js", src, &known) {
                Err(e) => assert!(e.message.contains(why), "{src}: {e}"),
                Ok(_) => panic!("{src} was accepted"),
            }
        }
    }

    #[test]
    fn a_cycle_of_static_imports_is_refused() {
        let mods = [
            ("app/main.js", "import { a } from '../js/a.js';\n"),
            (
                "js/a.js",
                "import { b } from './b.js';\nexport const a = 1;\n",
            ),
            (
                "js/b.js",
                "import { a } from './a.js';\nexport const b = 1;\n",
            ),
        ];
        let e = build(&mods, &[]).unwrap_err();
        assert!(e.contains("cycle"), "{e}");
    }
}
