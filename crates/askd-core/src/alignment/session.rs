//! The labels a connection gives its session (`alignment.md` §4.1): the client's name, the
//! workspace path, the transport and a harness-chosen id. They are shown in the inbox and
//! the session page, so each has a ceiling — one 10 MB label once made the inbox 211,120 px
//! tall.

use crate::problem::Problem;

/// The most characters (Unicode scalars) a session's `client` may have.
pub const CLIENT_MAX: usize = 256;
/// The most characters a session's `workspace` may have (a path; Linux's `PATH_MAX`).
pub const WORKSPACE_MAX: usize = 4096;
/// The most characters of a session id chosen by a harness, and of `transport`.
pub const ID_MAX: usize = 256;

/// Checks each present label against its ceiling; one problem per label over it.
pub fn check_labels(labels: &[(&str, Option<&str>)]) -> Vec<Problem> {
    labels
        .iter()
        .filter_map(|(field, value)| {
            let max = limit(field);
            let len = (*value)?.chars().count();
            (len > max).then(|| {
                Problem::new(
                    *field,
                    "too_long",
                    format!(
                        "{field} has {len} characters; at most {max} are allowed — send a shorter {field}"
                    ),
                )
            })
        })
        .collect()
}

/// The ceiling of a label by its field name.
pub fn limit(field: &str) -> usize {
    match field {
        "client" => CLIENT_MAX,
        "workspace" => WORKSPACE_MAX,
        _ => ID_MAX,
    }
}

/// `value` cut to the ceiling of `field` (for labels askd reads from a client it does not
/// control, such as MCP's `clientInfo.name`, where refusing every call would help nobody).
pub fn clamp(field: &str, value: &str) -> String {
    value.chars().take(limit(field)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_over_their_ceiling_are_named() {
        let long = "x".repeat(CLIENT_MAX + 1);
        let ok = "y".repeat(CLIENT_MAX);
        let p = check_labels(&[
            ("client", Some(&long)),
            ("workspace", Some(&ok)),
            ("id", None),
        ]);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].path, "client");
        assert_eq!(p[0].code, "too_long");
        assert_eq!(clamp("client", &long).chars().count(), CLIENT_MAX);
    }
}
