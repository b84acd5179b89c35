//! The configuration flags (`--max-wait`, `--batch-review-max-items`, …), registered from
//! the configuration's own key table so the two can never drift apart. Each flag's help
//! names what it sets, its default and its `ASKD_…` variable. The variable is read by the
//! configuration itself (so `askd doctor` can say whether a value came from the environment
//! or a flag), not by clap: the help only names it.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

/// The heading the configuration flags are listed under in `--help`.
pub const HEADING: &str = "Configuration (flag beats env beats askd.toml)";

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
        askd_daemon::config::key_docs()
            .into_iter()
            .filter_map(|d| d.flag.map(|flag| (flag, d)))
            .fold(cmd, |cmd, (flag, d)| {
                cmd.arg(
                    Arg::new(flag)
                        .long(flag)
                        .value_name("VALUE")
                        .action(ArgAction::Set)
                        .help(format!(
                            "{} [default: {}] [env: {}] [askd.toml: {}]",
                            d.help, d.default, d.env, d.key
                        ))
                        .help_heading(HEADING),
                )
            })
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
