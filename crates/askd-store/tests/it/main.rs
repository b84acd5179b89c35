//! `askd-store`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `common*`.

mod bytes;
mod common;
mod pg;
mod sqlite;
mod upgrade;
