//! The kit's in-process test daemon (`askd_testkit::server`), composed as `askd serve`
//! composes it: `/mcp` beside the daemon's routes.

use std::sync::Arc;

use askd_daemon::Daemon;
use askd_daemon::http::routes::Routes;
pub use askd_testkit::server::*;

/// `/mcp` ([`askd::mcp_http::mount`]).
pub struct Mcp;

impl Mount for Mcp {
    fn routes(daemon: &Arc<Daemon>) -> Routes {
        askd::mcp_http::mount(daemon)
    }
}

/// A daemon in this process serving `/mcp` beside its own routes.
pub type TestServer = askd_testkit::server::TestServer<Mcp>;
