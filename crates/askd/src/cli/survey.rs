//! `askd survey validate | path | schema`.

use std::process::ExitCode;

use askd_core::json::{self, Json};
use askd_core::problem::{PathBuf, Problem, join_messages};
use askd_core::survey::path::{self, Graph, PathAnswer};
use askd_core::survey::{SurveySpec, model, resolve, validate};
use clap::Subcommand;
use indexmap::IndexMap;
use serde_json::json;

use super::{EXIT_INVALID, print_json, read_input};

#[derive(Debug, Subcommand)]
pub enum SurveyCommand {
    /// Validate raw `ask_survey` tool-argument text (e.g. `{"survey": {...}}`) with the same
    /// lenient resolution and validation as the tool. Prints `{"ok":true,"spec":…}` with the
    /// repaired normal form, or `{"ok":false,"message","errors"}` and exits 1.
    Validate {
        /// The argument text; `-` (the default) reads standard input.
        #[arg(default_value = "-")]
        file: String,
    },
    /// Compute the branch path for a spec and a map of answers
    /// (`question id -> {selected: [keys], custom?, skipped?}`). Prints `{"path":[ids…]}`.
    Path {
        /// Raw `ask_survey` argument text, as for `validate` (`-` reads standard input).
        spec_file: String,
        /// A JSON object mapping question ids to answers (`-` reads standard input).
        answers_file: String,
    },
    /// Print the JSON Schema of the `ask_survey` tool arguments.
    Schema,
}

pub fn run(cmd: SurveyCommand) -> ExitCode {
    match cmd {
        SurveyCommand::Validate { file } => {
            let text = match read_input(&file) {
                Ok(t) => t,
                Err(code) => return code,
            };
            match load_spec(&text) {
                Ok(spec) => {
                    print_json(&json!({"ok": true, "spec": spec}));
                    ExitCode::SUCCESS
                }
                Err(code) => code,
            }
        }
        SurveyCommand::Path {
            spec_file,
            answers_file,
        } => {
            if spec_file == "-" && answers_file == "-" {
                eprintln!("askd: only one of SPEC_FILE and ANSWERS_FILE can be standard input");
                return ExitCode::from(super::EXIT_USAGE);
            }
            let (spec_text, answers_text) =
                match (read_input(&spec_file), read_input(&answers_file)) {
                    (Ok(s), Ok(a)) => (s, a),
                    (Err(code), _) | (_, Err(code)) => return code,
                };
            let spec = match load_spec(&spec_text) {
                Ok(spec) => spec,
                Err(code) => return code,
            };
            let answers = match parse_answers(&answers_text) {
                Ok(a) => a,
                Err(problems) => {
                    print_failure("invalid answers", &problems);
                    return ExitCode::from(EXIT_INVALID);
                }
            };
            let graph = Graph::from_spec(&spec);
            print_json(&json!({"path": path::compute(&graph, &answers)}));
            ExitCode::SUCCESS
        }
        SurveyCommand::Schema => {
            print_json(&model::args_schema());
            ExitCode::SUCCESS
        }
    }
}

/// Resolves and validates raw argument text; on failure prints the failure document.
fn load_spec(text: &str) -> Result<SurveySpec, ExitCode> {
    let resolved = resolve::resolve_text(text).map_err(|p| {
        print_failure("invalid survey argument", std::slice::from_ref(&p));
        ExitCode::from(EXIT_INVALID)
    })?;
    validate(&resolved.survey).map_err(|problems| {
        print_failure("invalid survey spec", &problems);
        ExitCode::from(EXIT_INVALID)
    })
}

fn print_failure(lead: &str, problems: &[Problem]) {
    print_json(&json!({
        "ok": false,
        "message": format!("{lead}: {}", join_messages(problems)),
        "errors": problems,
    }));
}

/// The answers map of `askd survey path`: `id -> {selected: [keys], custom?, skipped?}`.
/// Types are checked; ids and keys the spec does not know are left to the path engine,
/// which ignores them.
fn parse_answers(text: &str) -> Result<IndexMap<String, PathAnswer>, Vec<Problem>> {
    let value = json::parse(text).map_err(|e| {
        vec![Problem::new(
            "",
            "answers_unparseable",
            format!("the answers file is not valid JSON ({e})"),
        )]
    })?;
    let Some(map) = value.as_object() else {
        return Err(vec![Problem::new(
            "",
            "answers_type",
            format!(
                "answers must be an object map of question id -> {{selected, custom?, skipped?}}, got {}",
                value.kind()
            ),
        )]);
    };
    let mut out = IndexMap::new();
    let mut problems = Vec::new();
    for (id, entry) in map.iter() {
        let at = PathBuf::root().id(id);
        let Some(e) = entry.as_object() else {
            problems.push(Problem::new(
                at,
                "answer_type",
                format!("answers.{id} must be an object {{selected, custom?, skipped?}}"),
            ));
            continue;
        };
        let selected = match e.get_present("selected") {
            None => Vec::new(),
            Some(Json::Array(keys)) if keys.iter().all(|k| k.as_str().is_some()) => keys
                .iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect(),
            Some(_) => {
                problems.push(Problem::new(
                    at.field("selected"),
                    "selected_type",
                    format!("answers.{id}.selected must be an array of option keys"),
                ));
                continue;
            }
        };
        let custom = match e.get_present("custom") {
            None => None,
            Some(Json::String(c)) => Some(c.to_string()),
            Some(_) => {
                problems.push(Problem::new(
                    at.field("custom"),
                    "custom_type",
                    format!("answers.{id}.custom must be a string"),
                ));
                continue;
            }
        };
        let skipped = match e.get_present("skipped") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => {
                problems.push(Problem::new(
                    at.field("skipped"),
                    "skipped_type",
                    format!("answers.{id}.skipped must be a boolean"),
                ));
                continue;
            }
        };
        out.insert(
            id.to_string(),
            PathAnswer {
                selected,
                custom,
                skipped,
            },
        );
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}
