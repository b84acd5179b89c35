//! The kit's in-process test daemon (`askd_testkit::server`), serving the daemon's routes
//! alone.

pub use askd_testkit::server::*;

/// A daemon in this process with no routes beside its own.
pub type TestServer = askd_testkit::server::TestServer<NoMount>;
