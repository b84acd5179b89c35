//! The configuration flags (`--max-wait`, `--batch-review-max-items`, …), registered from
//! the configuration's own key table so the two can never drift apart.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

/// Every `--<table>-<key> VALUE` given on the command line, as `(name, value)` pairs.
#[derive(Debug, Clone, Default)]
pub struct ConfigFlags(pub Vec<(String, String)>);

impl FromArgMatches for ConfigFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut pairs = Vec::new();
        for name in askd_daemon::config::flag_names() {
            if let Some(v) = m.get_one::<String>(name) {
                pairs.push((name.to_string(), v.clone()));
            }
        }
        Ok(ConfigFlags(pairs))
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for ConfigFlags {
    fn augment_args(cmd: Command) -> Command {
        askd_daemon::config::flag_names()
            .into_iter()
            .fold(cmd, |cmd, name| {
                cmd.arg(
                    Arg::new(name)
                        .long(name)
                        .value_name("VALUE")
                        .action(ArgAction::Set)
                        .help_heading("Configuration (flag beats env beats askd.toml)"),
                )
            })
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
