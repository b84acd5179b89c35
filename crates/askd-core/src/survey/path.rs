//! The path engine (`survey.md` §6): the one implementation that the server, the web UI (via
//! the daemon), the terminal UI and the quick-template checks all use.
//!
//! The engine runs over a [`Graph`], a light borrowed view of the branching structure. A
//! graph is built from a normal-form [`SurveySpec`] or, during validation, from the raw JSON
//! (best effort: edges of a wrong type count as no edge, exactly as §6.2 normalizes them).

use crate::hash::{FastIndexMap, FastSet};

use indexmap::IndexMap;

use super::model::{Next, SurveySpec};
use crate::json::Json;

/// An option's edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionEdge<'a> {
    /// No `next` member: the question-level `next` applies.
    Inherit,
    /// `next: null`: the branch ends.
    End,
    /// The normalized target list (possibly empty, for `""`).
    To(Vec<&'a str>),
}

#[derive(Debug, Clone, Default)]
pub struct Node<'a> {
    /// The normalized question-level `next`.
    pub next: Vec<&'a str>,
    /// Options in declared order: key and edge.
    pub options: Vec<(&'a str, OptionEdge<'a>)>,
}

/// The branching structure of a survey: question id -> node, in id order.
#[derive(Debug, Clone, Default)]
pub struct Graph<'a> {
    pub entry: &'a str,
    pub nodes: FastIndexMap<&'a str, Node<'a>>,
}

impl<'a> Graph<'a> {
    pub fn from_spec(spec: &'a SurveySpec) -> Self {
        let nodes = spec
            .questions
            .iter()
            .map(|(id, q)| {
                let next = q
                    .next
                    .as_ref()
                    .map(|n| n.targets().collect())
                    .unwrap_or_default();
                let options = q
                    .options()
                    .iter()
                    .map(|o| {
                        let edge = match &o.next {
                            None => OptionEdge::Inherit,
                            Some(Next::End) => OptionEdge::End,
                            Some(n) => OptionEdge::To(n.targets().collect()),
                        };
                        (o.key.as_str(), edge)
                    })
                    .collect();
                (id.as_str(), Node { next, options })
            })
            .collect();
        Graph {
            entry: &spec.entry,
            nodes,
        }
    }

    /// Best-effort graph of a not-yet-validated survey object. Every member of `questions`
    /// is a node; non-object nodes and options have no edges.
    pub fn from_json(entry: &'a str, questions: &'a crate::json::Object<'a>) -> Self {
        let nodes = questions
            .iter()
            .map(|(id, q)| {
                let Some(q) = q.as_object() else {
                    return (id, Node::default());
                };
                let next = q.get("next").map(normalize).unwrap_or_default();
                let options = q
                    .get("options")
                    .and_then(Json::as_array)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(Json::as_object)
                    .filter_map(|o| {
                        let key = o.get("key")?.as_str()?;
                        let edge = match o.get("next") {
                            None => OptionEdge::Inherit,
                            Some(Json::Null) => OptionEdge::End,
                            Some(n) => OptionEdge::To(normalize(n)),
                        };
                        Some((key, edge))
                    })
                    .collect();
                (id, Node { next, options })
            })
            .collect();
        Graph { entry, nodes }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.nodes.contains_key(id)
    }
}

/// §6.2 on a raw JSON value.
pub fn normalize<'a>(v: &'a Json<'a>) -> Vec<&'a str> {
    match v {
        Json::String(s) if !s.is_empty() => vec![s.as_ref()],
        Json::Array(items) => items
            .iter()
            .filter_map(Json::as_str)
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// What the engine needs to know about the answers: for a question id, the selected keys
/// when the answer takes the selection branch (answered, not an explicit skip, at least one
/// key), `None` when it falls through.
pub trait Selections {
    fn selection(&self, id: &str) -> Option<&[String]>;
}

/// An answer as the engine and the CLI see it (§6.1).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct PathAnswer {
    #[serde(default)]
    pub selected: Vec<String>,
    #[serde(default)]
    pub custom: Option<String>,
    #[serde(default)]
    pub skipped: bool,
}

impl PathAnswer {
    fn selection(&self) -> Option<&[String]> {
        (!self.skipped && !self.selected.is_empty()).then_some(self.selected.as_slice())
    }
}

impl<K, S> Selections for IndexMap<K, PathAnswer, S>
where
    K: std::borrow::Borrow<str> + std::hash::Hash + Eq,
    S: std::hash::BuildHasher,
{
    fn selection(&self, id: &str) -> Option<&[String]> {
        self.get(id).and_then(PathAnswer::selection)
    }
}

impl<S: Selections + ?Sized> Selections for &S {
    fn selection(&self, id: &str) -> Option<&[String]> {
        (**self).selection(id)
    }
}

/// Computes the path (§6.3): the ordered, duplicate-free list of asked question ids.
///
/// Depth-first with an explicit stack, so a hostile graph of any depth cannot overflow the
/// call stack; the visiting order is exactly that of the recursive `expand` of §6.3.
pub fn compute<'a>(graph: &Graph<'a>, answers: &impl Selections) -> Vec<&'a str> {
    let mut path = Vec::new();
    let mut seen: FastSet<&str> = FastSet::default();
    // Pending targets, pushed in reverse so they pop in order.
    let mut stack: Vec<&'a str> = vec![graph.entry];
    let mut targets: Vec<&'a str> = Vec::new();
    while let Some(id) = stack.pop() {
        let Some((key, node)) = graph.nodes.get_key_value(id) else {
            continue;
        };
        if !seen.insert(key) {
            continue;
        }
        path.push(*key);
        targets.clear();
        match answers.selection(key) {
            Some(selected) => {
                for (okey, edge) in &node.options {
                    if !selected.iter().any(|s| s == okey) {
                        continue;
                    }
                    match edge {
                        OptionEdge::Inherit => targets.extend_from_slice(&node.next),
                        OptionEdge::End => {}
                        OptionEdge::To(ids) => targets.extend_from_slice(ids),
                    }
                }
            }
            None => targets.extend_from_slice(&node.next),
        }
        stack.extend(targets.iter().rev());
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    /// Graph G of §6.5.
    const G: &str = r#"{
        "q1": {"next": "q3", "options": [
            {"key":"a","next":"q2a"},{"key":"b","next":"q2b"},{"key":"c"},{"key":"d","next":null},{"key":"e"}]},
        "q2a": {"next": "q3"}, "q2b": {"next": "q3"},
        "q3": {"multiSelect": true, "options": [
            {"key":"a","next":"x"},{"key":"b","next":["y","z"]},{"key":"c"},{"key":"d"},{"key":"e"}]},
        "x": {"next": "x2"}, "x2": {}, "y": {}, "z": {}
    }"#;

    fn run(answers: &[(&str, &[&str], bool)]) -> Vec<String> {
        let v = json::parse(G).unwrap();
        let g = Graph::from_json("q1", v.as_object().unwrap());
        let map: IndexMap<String, PathAnswer> = answers
            .iter()
            .map(|(id, sel, skipped)| {
                (
                    id.to_string(),
                    PathAnswer {
                        selected: sel.iter().map(|s| s.to_string()).collect(),
                        custom: None,
                        skipped: *skipped,
                    },
                )
            })
            .collect();
        compute(&g, &map).into_iter().map(String::from).collect()
    }

    #[test]
    fn worked_examples_of_graph_g() {
        assert_eq!(run(&[]), ["q1", "q3"]);
        assert_eq!(run(&[("q1", &["a"], false)]), ["q1", "q2a", "q3"]);
        assert_eq!(run(&[("q1", &["c"], false)]), ["q1", "q3"]);
        assert_eq!(run(&[("q1", &["d"], false)]), ["q1"]);
        assert_eq!(run(&[("q1", &["a"], true)]), ["q1", "q3"]);
        assert_eq!(run(&[("q1", &[], false)]), ["q1", "q3"]);
        assert_eq!(
            run(&[("q1", &["a"], false), ("q3", &["b", "a"], false)]),
            ["q1", "q2a", "q3", "x", "x2", "y", "z"]
        );
        assert_eq!(
            run(&[("q1", &["a"], false), ("q3", &["c"], false)]),
            ["q1", "q2a", "q3"]
        );
    }

    #[test]
    fn convergence_asks_shared_tail_before_sibling() {
        let v = json::parse(
            r#"{"q1":{"multiSelect":true,"options":[{"key":"a","next":"q2a"},{"key":"b","next":"q2b"}]},
                "q2a":{"next":"q3"},"q2b":{"next":"q3"},"q3":{}}"#,
        )
        .unwrap();
        let g = Graph::from_json("q1", v.as_object().unwrap());
        let mut m = IndexMap::new();
        m.insert(
            "q1".to_string(),
            PathAnswer {
                selected: vec!["b".into(), "a".into()],
                ..Default::default()
            },
        );
        assert_eq!(compute(&g, &m), ["q1", "q2a", "q3", "q2b"]);
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000;
        let mut text = String::from("{");
        for i in 0..n {
            text.push_str(&format!("\"q{i}\":{{\"next\":\"q{}\"}},", i + 1));
        }
        text.push_str(&format!("\"q{n}\":{{}}}}"));
        let v = json::parse(&text).unwrap();
        let g = Graph::from_json("q0", v.as_object().unwrap());
        let m: IndexMap<String, PathAnswer> = IndexMap::new();
        assert_eq!(compute(&g, &m).len(), n + 1);
    }
}
