//! Dev-only: what the crates' integration tests share. [`server`] is the daemon in the test's
//! own process (`askd-daemon`'s, `askd-tui`'s and `askd`'s tests); [`serve`] is the one
//! launcher of the built `askd serve` as a child process (`askd`'s tests).

pub mod serve;
pub mod server;
