//! Deterministic generator of VALID survey specs, shared by `benches/survey.rs` and
//! `examples/peak_memory.rs` (both include it with `#[path = …] mod specgen;`).
//!
//! Three sizes (`survey.md` §2.6 limits):
//! - `typical`: 20 questions × 6 options, 3 quick templates, moderate prose (~120 KB);
//! - `structure`: every count at its maximum — 150 questions × 40 options, 8 sources per
//!   option and template, 6 quick templates — with every string short;
//! - `length`: the same structure with every string field at exactly its character limit
//!   (~47 MB).
//!
//! Branching is realistic and acyclic: option edges go to later questions (single ids, id
//! lists and `null`, or inherit the question-level `next`), question-level `next` is an id or
//! a list, and the last question ends with `next: null`. Quick templates answer exactly the
//! questions on their own path (§4.6–4.7): each is built by walking the path with
//! `askd_core`'s own engine and keeping only the on-path answers.
//!
//! Strings are ASCII. Prose fields (intro, prompt, detail, insight) and diagrams carry real
//! line breaks, so they arrive as `\n` escapes in the JSON text, as real payloads do.
//! One-line fields (title, header, label, description) and sources have none.

// Each includer uses a different subset of this module.
#![allow(dead_code)]

use askd_core::survey::path::{self, Graph, PathAnswer};
use askd_core::survey::{
    Next, Question, QuickAnswer, QuickTemplate, SurveyOption, SurveySpec, resolve, validate,
};
use indexmap::IndexMap;

/// Which spec to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Typical,
    Structure,
    Length,
}

impl Size {
    pub const ALL: [Size; 3] = [Size::Typical, Size::Structure, Size::Length];

    pub fn name(self) -> &'static str {
        match self {
            Size::Typical => "typical",
            Size::Structure => "structure",
            Size::Length => "length",
        }
    }

    pub fn parse(s: &str) -> Option<Size> {
        Size::ALL.into_iter().find(|z| z.name() == s)
    }

    fn shape(self) -> Shape {
        match self {
            Size::Typical => Shape {
                questions: 20,
                options: 6,
                templates: 3,
                sources: 2,
                title: 42,
                intro: 700,
                prompt: 240,
                detail: 520,
                header: 18,
                label: 48,
                description: 140,
                insight: 380,
                diagram: 260,
                diagram_every: 6,
                source: 70,
            },
            Size::Structure => Shape {
                questions: 150,
                options: 40,
                templates: 6,
                sources: 8,
                title: 12,
                intro: 40,
                prompt: 24,
                detail: 24,
                header: 8,
                label: 10,
                description: 12,
                insight: 12,
                diagram: 12,
                diagram_every: 1,
                source: 8,
            },
            Size::Length => Shape {
                questions: 150,
                options: 40,
                templates: 6,
                sources: 8,
                title: 300,
                intro: 8000,
                prompt: 4000,
                detail: 8000,
                header: 200,
                label: 200,
                description: 400,
                insight: 1500,
                diagram: 1200,
                diagram_every: 1,
                source: 500,
            },
        }
    }
}

/// Counts and string lengths (in characters; every string is ASCII).
struct Shape {
    questions: usize,
    options: usize,
    templates: usize,
    sources: usize,
    title: usize,
    intro: usize,
    prompt: usize,
    detail: usize,
    header: usize,
    label: usize,
    description: usize,
    insight: usize,
    diagram: usize,
    /// One option in this many carries a diagram.
    diagram_every: usize,
    source: usize,
}

pub fn qid(i: usize) -> String {
    format!("q{i:03}")
}

/// Option keys by convention: `a`…`z`, then `aa`, `ab`…
pub fn okey(j: usize) -> String {
    const L: &[u8; 26] = b"abcdefghijklmnopqrstuvwxyz";
    if j < 26 {
        (L[j] as char).to_string()
    } else {
        format!("a{}", L[j - 26] as char)
    }
}

fn is_multi(i: usize) -> bool {
    i % 4 == 2
}

/// Whether template `t` answers question `i` with custom text only (never on a multi-select
/// or an `allowCustom: false` question).
fn custom_only(t: usize, i: usize) -> bool {
    t % 2 == 1 && i % 6 == 3 && !is_multi(i)
}

/// The option indexes template `t` selects on question `i` (template 0 always takes option 0,
/// the edge to the next question, so it walks the whole survey).
fn template_choice(t: usize, i: usize, m: usize) -> Vec<usize> {
    if is_multi(i) {
        vec![(t + i) % m, (t + i + 2) % m]
    } else if t == 0 {
        vec![0]
    } else {
        vec![(t * 3 + i) % m]
    }
}

/// A forward edge `d` questions ahead, or `None` past the end.
fn ahead(i: usize, d: usize, n: usize) -> Option<String> {
    (i + d < n).then(|| qid(i + d))
}

fn next_of(ids: Vec<Option<String>>) -> Next {
    let mut ids: Vec<String> = ids.into_iter().flatten().collect();
    match ids.len() {
        0 => Next::End,
        1 => Next::One(ids.remove(0)),
        _ => Next::Many(ids),
    }
}

/// Option `j` of question `i`: by `j % 5`, an id, a farther id, an id list, `null`, or no
/// `next` (inherit the question-level one).
fn option_edge(i: usize, j: usize, n: usize) -> Option<Next> {
    let off = 1 + (j / 5) % 3;
    match j % 5 {
        0 => Some(next_of(vec![ahead(i, off, n)])),
        1 => Some(next_of(vec![ahead(i, off + 1, n)])),
        2 => Some(next_of(vec![ahead(i, off, n), ahead(i, off + 2, n)])),
        3 => Some(Next::End),
        _ => None,
    }
}

fn question_edge(i: usize, n: usize) -> Next {
    if i % 10 == 9 {
        next_of(vec![ahead(i, 1, n), ahead(i, 2, n)])
    } else {
        next_of(vec![ahead(i, 1, n)])
    }
}

const WORDS: &[&str] = &[
    "release",
    "scope",
    "api",
    "freeze",
    "latency",
    "budget",
    "cache",
    "migration",
    "schema",
    "rollout",
    "canary",
    "review",
    "docs",
    "owner",
    "risk",
    "cost",
    "queue",
    "index",
    "shard",
    "retry",
    "quota",
    "tenant",
    "audit",
    "deadline",
    "stable",
    "beta",
    "client",
    "server",
    "payload",
    "window",
    "metric",
    "alert",
    "backfill",
    "partition",
    "replica",
    "lease",
];

/// Deterministic pseudo-random stream (64-bit LCG).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x2545_F491_4F6C_DD1D))
    }
    fn next(&mut self, m: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % m as u64) as usize
    }
}

#[derive(Clone, Copy)]
enum Style {
    /// Words and punctuation, no line break.
    Line,
    /// Markdown prose: sentences, paragraphs separated by a blank line.
    Prose,
    /// Mermaid source, one edge per line.
    Diagram,
    /// A URL.
    Url,
}

/// Exactly `len` ASCII characters of text in `style`, seeded by `seed`. Never blank when
/// `len > 0`.
fn text(len: usize, seed: u64, style: Style) -> String {
    let mut r = Rng::new(seed);
    let mut s = String::with_capacity(len + 24);
    match style {
        Style::Url => s.push_str("https://docs.example.com/"),
        Style::Diagram => s.push_str("flowchart TD\n"),
        Style::Line | Style::Prose => {}
    }
    let mut node = 0;
    while s.len() < len {
        match style {
            Style::Line => {
                if !s.is_empty() {
                    s.push(' ');
                }
                s.push_str(WORDS[r.next(WORDS.len())]);
            }
            Style::Prose => {
                let words = 6 + r.next(10);
                for w in 0..words {
                    let word = WORDS[r.next(WORDS.len())];
                    if w == 0 {
                        s.push_str(&word[..1].to_ascii_uppercase());
                        s.push_str(&word[1..]);
                    } else {
                        s.push(' ');
                        if r.next(9) == 0 {
                            s.push_str("**");
                            s.push_str(word);
                            s.push_str("**");
                        } else {
                            s.push_str(word);
                        }
                    }
                }
                s.push('.');
                s.push_str(if r.next(4) == 0 { "\n\n" } else { " " });
            }
            Style::Diagram => {
                s.push_str(&format!(
                    "  n{node}[{}] --> n{}[{}]\n",
                    WORDS[r.next(WORDS.len())],
                    node + 1,
                    WORDS[r.next(WORDS.len())]
                ));
                node += 1;
            }
            Style::Url => {
                s.push_str(WORDS[r.next(WORDS.len())]);
                s.push('/');
            }
        }
    }
    s.truncate(len);
    if s.trim().is_empty() && len > 0 {
        s.replace_range(..1, "x");
    }
    s
}

/// Seeds: one per field instance, so no two strings are identical.
fn seed(parts: &[usize]) -> u64 {
    parts.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, p| {
        (h ^ *p as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn sources(z: &Shape, base: &[usize]) -> Vec<String> {
    (0..z.sources)
        .map(|k| {
            let mut p = base.to_vec();
            p.push(k);
            text(z.source, seed(&p), Style::Url)
        })
        .collect()
}

/// The spec of `size`, in normal form.
pub fn spec(size: Size) -> SurveySpec {
    let z = size.shape();
    let n = z.questions;
    let mut questions = IndexMap::with_capacity(n);
    for i in 0..n {
        let options = (0..z.options)
            .map(|j| SurveyOption {
                key: okey(j),
                label: text(z.label, seed(&[1, i, j]), Style::Line),
                description: Some(text(z.description, seed(&[2, i, j]), Style::Line)),
                insight: Some(text(z.insight, seed(&[3, i, j]), Style::Prose)),
                diagram: ((i + j) % z.diagram_every == 0)
                    .then(|| text(z.diagram, seed(&[4, i, j]), Style::Diagram)),
                sources: Some(sources(&z, &[5, i, j])),
                recommended: (j == i % z.options).then_some(true),
                next: option_edge(i, j, n),
            })
            .collect();
        let question = Question {
            prompt: text(z.prompt, seed(&[6, i]), Style::Prose),
            header: Some(text(z.header, seed(&[7, i]), Style::Line)),
            detail: Some(text(z.detail, seed(&[8, i]), Style::Prose)),
            multi_select: is_multi(i).then_some(true),
            allow_custom: (i % 6 == 1).then_some(false),
            skippable: (i % 6 == 5).then_some(false),
            options: Some(options),
            next: Some(if i + 1 == n {
                Next::End
            } else {
                question_edge(i, n)
            }),
        };
        questions.insert(qid(i), question);
    }
    let mut spec = SurveySpec {
        title: Some(text(z.title, seed(&[9]), Style::Line)),
        intro: Some(text(z.intro, seed(&[10]), Style::Prose)),
        entry: qid(0),
        questions,
        quick: None,
    };
    let quick = (0..z.templates)
        .map(|t| QuickTemplate {
            key: okey(t),
            label: text(z.label, seed(&[11, t]), Style::Line),
            description: Some(text(z.description, seed(&[12, t]), Style::Line)),
            insight: Some(text(z.insight, seed(&[13, t]), Style::Prose)),
            diagram: Some(text(z.diagram, seed(&[14, t]), Style::Diagram)),
            sources: Some(sources(&z, &[15, t])),
            recommended: (t == 0).then_some(true),
            answers: template_answers(&spec, t, z.options),
        })
        .collect();
    spec.quick = Some(quick);
    spec
}

/// Template `t`'s answers: a choice on every question, walked with the engine; only the
/// questions on the resulting path are kept (in path order), so the template covers its own
/// branch exactly (§4.7). Dropping off-path answers cannot change the path: the engine only
/// reads the answers of questions it visits.
fn template_answers(spec: &SurveySpec, t: usize, m: usize) -> IndexMap<String, QuickAnswer> {
    let n = spec.questions.len();
    let mut full: IndexMap<String, QuickAnswer> = IndexMap::with_capacity(n);
    for i in 0..n {
        let answer = if custom_only(t, i) {
            QuickAnswer {
                selected: None,
                custom: Some(text(60, seed(&[16, t, i]), Style::Line)),
            }
        } else {
            QuickAnswer {
                selected: Some(template_choice(t, i, m).into_iter().map(okey).collect()),
                custom: None,
            }
        };
        full.insert(qid(i), answer);
    }
    let walk: IndexMap<&str, PathAnswer> = full
        .iter()
        .map(|(id, a)| {
            let pa = PathAnswer {
                selected: a.selected.clone().unwrap_or_default(),
                custom: a.custom.clone(),
                skipped: false,
            };
            (id.as_str(), pa)
        })
        .collect();
    let graph = Graph::from_spec(spec);
    let on_path = path::compute(&graph, &walk);
    on_path
        .into_iter()
        .map(|id| (id.to_string(), full[id].clone()))
        .collect()
}

/// The raw argument text: `{"survey": …}` serialised.
pub fn args_text(spec: &SurveySpec) -> String {
    let body = serde_json::to_string(spec).expect("a spec always serialises");
    let mut out = String::with_capacity(body.len() + 12);
    out.push_str("{\"survey\":");
    out.push_str(&body);
    out.push('}');
    out
}

/// A fixed answer map that walks the longest branch: option 0 (the edge to the next
/// question) everywhere, plus option 2 (an id list) on multi-select questions. It depends
/// only on `size`, so a process can rebuild it without the spec.
pub fn long_branch_answers(size: Size) -> IndexMap<String, PathAnswer> {
    let z = size.shape();
    (0..z.questions)
        .map(|i| {
            let keys = if is_multi(i) { vec![0, 2] } else { vec![0] };
            let pa = PathAnswer {
                selected: keys.into_iter().map(okey).collect(),
                custom: None,
                skipped: false,
            };
            (qid(i), pa)
        })
        .collect()
}

/// The measured work: resolve the raw text, validate, build the graph and walk the path.
/// Returns the path length.
pub fn run(text: &str, answers: &IndexMap<String, PathAnswer>) -> usize {
    let resolved = resolve::resolve_text(text).expect("the arguments resolve");
    let spec = validate(&resolved.survey).expect("the spec is valid");
    path::compute(&Graph::from_spec(&spec), answers).len()
}

/// A generated input, checked: the text resolves, validates to exactly the generated normal
/// form, and the answer map walks every question. Panics otherwise, so a broken generator
/// cannot produce a meaningless figure.
pub struct Fixture {
    pub size: Size,
    pub text: String,
    pub answers: IndexMap<String, PathAnswer>,
}

impl Fixture {
    pub fn new(size: Size) -> Self {
        let spec = spec(size);
        let text = args_text(&spec);
        let answers = long_branch_answers(size);
        {
            let resolved = resolve::resolve_text(&text)
                .unwrap_or_else(|p| panic!("{}: resolve failed: {}", size.name(), p.message));
            let validated = validate(&resolved.survey).unwrap_or_else(|errs| {
                let msgs: Vec<&str> = errs.iter().take(10).map(|p| p.message.as_str()).collect();
                panic!(
                    "{}: generated spec is invalid ({} errors): {}",
                    size.name(),
                    errs.len(),
                    msgs.join("; ")
                )
            });
            assert!(
                validated == spec,
                "{}: the normal form differs from the generated spec",
                size.name()
            );
            let quick = validated.quick.as_deref().unwrap_or_default();
            assert_eq!(quick.len(), size.shape().templates);
            let path_len = path::compute(&Graph::from_spec(&validated), &answers).len();
            assert_eq!(
                path_len,
                validated.questions.len(),
                "{}: the long branch must walk every question",
                size.name()
            );
            assert_eq!(run(&text, &answers), path_len);
        }
        Fixture {
            size,
            text,
            answers,
        }
    }
}
