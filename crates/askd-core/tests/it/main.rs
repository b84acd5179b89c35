//! `askd-core`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `kit`.

mod alignment_recorded;
mod kit;
mod path_props;
mod questions;
mod review;
mod survey_answers;
mod survey_path;
mod survey_props;
mod survey_resolve;
mod survey_validation;
