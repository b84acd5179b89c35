//! askd tui
