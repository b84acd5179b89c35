//! The configuration's tests: every key from every source.

use super::*;

fn paths() -> Paths {
    Paths::in_home("/h")
}

fn env(pairs: &[(&str, &str)]) -> Env {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn flags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn from_file(text: &str) -> Result<Config, ConfigError> {
    load(&paths(), Some(text), &Env::new(), &[])
}

fn from_env(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    load(&paths(), None, &env(pairs), &[])
}

fn from_flags(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    load(&paths(), None, &Env::new(), &flags(pairs))
}

fn err(r: Result<Config, ConfigError>) -> String {
    r.expect_err("expected a config error")
        .message()
        .to_string()
}

fn contains_all(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should contain {p:?}");
    }
}

/// The file snippet that sets `def` to `value` (a TOML literal).
fn file_setting(def: &KeyDef, value: &str) -> String {
    match def.table {
        Some(t) => format!("[{t}]\n{} = {value}\n", def.name),
        None => format!("{} = {value}\n", def.name),
    }
}

fn def(name: &str) -> &'static KeyDef {
    KEYS.iter().find(|d| d.name == name).unwrap()
}

#[test]
fn defaults() {
    let cfg = load(&paths(), None, &Env::new(), &[]).unwrap();
    assert_eq!(cfg, Config::default());
    assert_eq!(cfg.listen.to_string(), "127.0.0.1:7391");
    assert_eq!(cfg.max_wait, None);
    assert_eq!(cfg.max_wait_duration(), None);
    assert_eq!(cfg.max_body_bytes, 67_108_864);
    assert_eq!(cfg.language, Language::Auto);
    assert!(cfg.allowed_hosts.is_empty());
    assert_eq!(cfg.idle_exit, 0);
    assert_eq!(cfg.idle_exit_duration(), None);
    assert_eq!(cfg.survey.structure_question_cap, 40);
    assert!(cfg.survey.workspace_records);
    assert_eq!(cfg.batch_review.max_items, 100);
    assert_eq!(cfg.batch_review.virtual_threshold, 500);
    assert!(!cfg.batch_review.allow_external_persist);
    assert_eq!(cfg.alignment.mode, Mode::Auto);
    assert_eq!(cfg.alignment.section, None);
    // An empty file is the defaults too.
    assert_eq!(from_file("").unwrap(), Config::default());
}

#[test]
fn names_follow_the_platform_rule() {
    fn snake_upper(s: &str) -> String {
        let mut out = String::new();
        for c in s.chars() {
            if c.is_ascii_uppercase() {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        }
        out
    }
    for d in KEYS {
        let key = snake_upper(d.name);
        let env = match d.table {
            Some(t) => format!("ASKD_{}_{key}", t.to_ascii_uppercase()),
            None => format!("ASKD_{key}"),
        };
        assert_eq!(d.env, env);
        let kebab = key.to_ascii_lowercase().replace('_', "-");
        let flag = match d.table {
            Some(t) => format!("{}-{kebab}", t.replace('_', "-")),
            None => kebab,
        };
        assert_eq!(d.flag, flag);
    }
    assert_eq!(def("maxWait").env, "ASKD_MAX_WAIT");
    assert_eq!(def("maxWait").flag, "max-wait");
    assert_eq!(def("maxItems").env, "ASKD_BATCH_REVIEW_MAX_ITEMS");
    assert_eq!(def("maxItems").flag, "batch-review-max-items");
    let flags = flag_names();
    assert_eq!(flags.len(), KEYS.len() - 1);
    assert!(flags.contains(&"max-wait") && flags.contains(&"alignment-section"));
    assert!(!flags.contains(&"batch-review-allow-external-persist"));
    assert_eq!(env_names().len(), flags.len());
}

/// (key, TOML literal, env/flag text, check on the result)
type Case = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Config) -> bool,
);

const SETTINGS: &[Case] = &[
    ("listen", "\"127.0.0.2:8000\"", "127.0.0.2:8000", |c| {
        c.listen.to_string() == "127.0.0.2:8000"
    }),
    ("maxWait", "50", "50", |c| c.max_wait == Some(50)),
    ("maxBodyBytes", "2048", "2048", |c| c.max_body_bytes == 2048),
    ("language", "\"zh-CN\"", "zh-CN", |c| {
        c.language == Language::ZhCn
    }),
    (
        "allowedHosts",
        "[\"A.example\", \"b.example\"]",
        "A.example, b.example",
        |c| c.allowed_hosts == ["a.example", "b.example"],
    ),
    ("idleExit", "600", "600", |c| c.idle_exit == 600),
    ("elicitation", "\"form\"", "form", |c| {
        c.elicitation == Elicitation::Form
    }),
    ("structureQuestionCap", "7", "7", |c| {
        c.survey.structure_question_cap == 7
    }),
    ("workspaceRecords", "false", "false", |c| {
        !c.survey.workspace_records
    }),
    ("maxItems", "250", "250", |c| {
        c.batch_review.max_items == 250
    }),
    ("virtualThreshold", "60", "60", |c| {
        c.batch_review.virtual_threshold == 60
    }),
    ("mode", "\"manual\"", "manual", |c| {
        c.alignment.mode == Mode::Manual
    }),
    ("section", "\"Our policy.\"", "Our policy.", |c| {
        c.alignment.section.as_deref() == Some("Our policy.")
    }),
    (
        "publicUrl",
        "\"https://askd.example.ts.net/\"",
        "https://askd.example.ts.net/",
        |c| c.public_url.as_deref() == Some("https://askd.example.ts.net"),
    ),
    (
        "databaseUrl",
        "\"postgres://askd:pw@db.example:5432/askd\"",
        "postgres://askd:pw@db.example:5432/askd",
        |c| c.database_url.as_deref() == Some("postgres://askd:pw@db.example:5432/askd"),
    ),
    ("databaseWait", "\"2m\"", "2m", |c| {
        c.database_wait == Span(120)
    }),
    ("deadline", "\"8h\"", "8h", |c| {
        c.asks.deadline == Span(8 * 3600)
    }),
    ("after", "\"2s\"", "2s", |c| c.notify.after == Span(2)),
    ("remindEvery", "\"1h\"", "1h", |c| {
        c.notify.remind_every == Span(3600)
    }),
    ("beforeDeadline", "\"30m\"", "30m", |c| {
        c.notify.before_deadline == Span(1800)
    }),
    ("quietHours", "\"22:00-07:30\"", "22:00-07:30", |c| {
        c.notify.quiet_hours
            == Some(QuietHours {
                start: 1320,
                end: 450,
            })
    }),
    ("desktop", "false", "false", |c| !c.notify.desktop),
    (
        "webhook",
        "[{url = \"https://ntfy.sh/t\", format = \"ntfy\"}]",
        "ntfy=https://ntfy.sh/t",
        |c| {
            c.notify.webhook
                == [WebhookConfig {
                    name: "ntfy-1".into(),
                    url: "https://ntfy.sh/t".into(),
                    format: WebhookFormat::Ntfy,
                    member: None,
                }]
        },
    ),
    (
        "webhook",
        "[{url = \"https://ntfy.sh/b\", format = \"ntfy\", member = \"bob\"}]",
        "ntfy@bob=https://ntfy.sh/b",
        |c| {
            c.notify.webhook
                == [WebhookConfig {
                    name: "ntfy-1".into(),
                    url: "https://ntfy.sh/b".into(),
                    format: WebhookFormat::Ntfy,
                    member: Some("bob".into()),
                }]
        },
    ),
];

#[test]
fn notify_values() {
    let cfg = from_file(
        "[notify]\nafter = \"10m\"\nremindEvery = 90\n\
         [[notify.webhook]]\nname = \"phone\"\nurl = \"https://ntfy.sh/me\"\nformat = \"ntfy\"\n\
         [[notify.webhook]]\nurl = \"https://hooks.slack.com/services/X?k=1\"\nformat = \"slack\"\n\
         [[notify.webhook]]\nurl = \"http://127.0.0.1:9/h\"\n",
    )
    .unwrap();
    assert_eq!(cfg.notify.after, Span(600));
    assert_eq!(cfg.notify.remind_every, Span(90));
    let names: Vec<&str> = cfg.notify.webhook.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["phone", "slack-1", "json-1"]);
    assert_eq!(cfg.notify.webhook[2].format, WebhookFormat::Json);
    // Serialised back, it reads the same.
    let text = toml::to_string(&cfg).unwrap();
    assert!(text.contains("after = \"10m\""), "{text}");
    assert_eq!(from_file(&text).unwrap(), cfg);
    assert_eq!(Config::default().notify.after, Span(600));
    assert_eq!(Config::default().notify.remind_every, Span(0));
    assert!(Config::default().notify.desktop);

    let m = err(from_file("[notify]\nafter = \"10 minutes\"\n"));
    contains_all(&m, &["[notify] after", "\"90s\"", "0 to turn it off"]);
    let m = err(from_env(&[("ASKD_NOTIFY_QUIET_HOURS", "22-7")]));
    contains_all(
        &m,
        &["ASKD_NOTIFY_QUIET_HOURS", "HH:MM-HH:MM", "22:00-07:00"],
    );
    assert_eq!(
        from_flags(&[("notify-quiet-hours", "off")])
            .unwrap()
            .notify
            .quiet_hours,
        None
    );
    assert!(from_file("[notify]\nquietHours = \"07:00-07:00\"\n").is_err());
    let m = err(from_file("[[notify.webhook]]\nformat = \"ntfy\"\n"));
    contains_all(&m, &["[notify] webhook", "entry 0 has no url"]);
    let m = err(from_file(
        "[[notify.webhook]]\nurl = \"https://x.example/secret\"\nformat = \"teams\"\n",
    ));
    contains_all(&m, &["format \"teams\"", "json, ntfy or slack"]);
    assert!(
        !m.contains("secret"),
        "a webhook URL never appears in a message: {m}"
    );
    let m = err(from_file("[[notify.webhook]]\nurl = \"ftp://x.example\"\n"));
    contains_all(&m, &["entry 0 url", "http:// and https://"]);
    let m = err(from_file(
        "[[notify.webhook]]\nurl = \"https://x.example\"\nsecret = 1\n",
    ));
    contains_all(&m, &["unknown key \"secret\"", "url, format, name"]);
    let m = err(from_env(&[("ASKD_NOTIFY_WEBHOOK", "https://x.example")]));
    contains_all(&m, &["ASKD_NOTIFY_WEBHOOK", "FORMAT=URL"]);
    let m = err(from_env(&[("ASKD_NOTIFY_TYPO", "1")]));
    contains_all(
        &m,
        &[
            "ASKD_NOTIFY_TYPO is not a config variable",
            "ASKD_NOTIFY_AFTER",
        ],
    );
    let m = err(from_file("publicUrl = \"https://askd.example/?token=x\"\n"));
    contains_all(&m, &["publicUrl", "must not have a query"]);
    let m = err(from_file("[notify]\nbefore = 1\n"));
    contains_all(
        &m,
        &["[notify] has unknown key \"before\"", "after, remindEvery"],
    );
}

/// `databaseUrl` takes PostgreSQL URLs only, and no message or dump shows its password.
#[test]
fn database_url_is_checked_and_its_password_never_shown() {
    let m = err(from_file(
        "databaseUrl = \"mysql://u:s3cret@db.example/askd\"\n",
    ));
    contains_all(&m, &["databaseUrl", "not a PostgreSQL URL", "postgres://"]);
    assert!(!m.contains("s3cret"), "{m}");
    let m = err(from_env(&[(
        "ASKD_DATABASE_URL",
        "postgres://u:s3cret@/askd",
    )]));
    contains_all(&m, &["ASKD_DATABASE_URL", "empty host", "postgres://"]);
    assert!(!m.contains("s3cret"), "{m}");
    let m = err(from_env(&[("ASKD_DATABASE_URL", "postgres:/askd")]));
    contains_all(&m, &["ASKD_DATABASE_URL", "has no host"]);
    let m = err(from_flags(&[("database-url", "not a url s3cret")]));
    contains_all(&m, &["--database-url", "is not a URL"]);
    assert!(!m.contains("s3cret"), "{m}");
    let m = err(from_file("databaseUrl = 5\n"));
    contains_all(&m, &["databaseUrl", "postgres://askd@db.example/askd"]);
    let c = from_env(&[("ASKD_DATABASE_URL", "postgresql://u:s3cret@db.example/askd")]).unwrap();
    assert_eq!(
        c.database_url.as_deref(),
        Some("postgresql://u:s3cret@db.example/askd")
    );
    let dump = toml::to_string(&c).unwrap();
    assert!(
        dump.contains("databaseUrl = \"postgresql://u:***@db.example/askd\""),
        "{dump}"
    );
    assert!(!dump.contains("s3cret"), "{dump}");
    assert_eq!(
        Config::default().database_url,
        None,
        "SQLite is the default"
    );
}

#[test]
fn every_key_from_the_file() {
    for (name, lit, _, check) in SETTINGS {
        let cfg = from_file(&file_setting(def(name), lit)).unwrap();
        assert!(check(&cfg), "{name} from file: {cfg:?}");
    }
    let cfg = from_file("[batch_review]\nallowExternalPersist = true\n").unwrap();
    assert!(cfg.batch_review.allow_external_persist);
    // Dotted keys are the same thing.
    assert_eq!(
        from_file("batch_review.maxItems = 3")
            .unwrap()
            .batch_review
            .max_items,
        3
    );
}

#[test]
fn every_key_from_env() {
    for (name, _, text, check) in SETTINGS {
        let cfg = from_env(&[(def(name).env, text)]).unwrap();
        assert!(check(&cfg), "{name} from env: {cfg:?}");
    }
}

#[test]
fn every_key_from_a_flag() {
    for (name, _, text, check) in SETTINGS {
        let flag = def(name).flag;
        let cfg = from_flags(&[(flag, text)]).unwrap();
        assert!(check(&cfg), "{name} from flag: {cfg:?}");
        // The leading "--" is optional.
        let cfg = from_flags(&[(&format!("--{flag}"), text)]).unwrap();
        assert!(check(&cfg), "--{name} from flag: {cfg:?}");
    }
}

#[test]
fn precedence_flag_env_file_default() {
    let file = "maxWait = 10\n[batch_review]\nmaxItems = 10\n";
    let p = paths();
    let e = env(&[
        ("ASKD_MAX_WAIT", "20"),
        ("ASKD_BATCH_REVIEW_MAX_ITEMS", "20"),
    ]);
    let f = flags(&[("max-wait", "30")]);
    let cfg = load(&p, Some(file), &Env::new(), &[]).unwrap();
    assert_eq!((cfg.max_wait, cfg.batch_review.max_items), (Some(10), 10));
    let cfg = load(&p, Some(file), &e, &[]).unwrap();
    assert_eq!((cfg.max_wait, cfg.batch_review.max_items), (Some(20), 20));
    let cfg = load(&p, Some(file), &e, &f).unwrap();
    assert_eq!((cfg.max_wait, cfg.batch_review.max_items), (Some(30), 20));
    // Untouched keys keep their default.
    assert_eq!(cfg.batch_review.virtual_threshold, 500);
    // A repeated scalar flag: the last wins.
    let cfg = from_flags(&[("max-wait", "5"), ("max-wait", "6")]).unwrap();
    assert_eq!(cfg.max_wait, Some(6));
    // An empty env var counts as unset.
    let cfg = load(&p, Some(file), &env(&[("ASKD_MAX_WAIT", "")]), &[]).unwrap();
    assert_eq!(cfg.max_wait, Some(10));
}

#[test]
fn every_source_is_validated_even_when_overridden() {
    let m = err(load(
        &paths(),
        Some("maxWait = 0"),
        &Env::new(),
        &flags(&[("max-wait", "5")]),
    ));
    contains_all(
        &m,
        &["/h/askd.toml: maxWait = 0 is out of range", "1..=86400"],
    );
    let m = err(load(
        &paths(),
        None,
        &env(&[("ASKD_MAX_WAIT", "0")]),
        &flags(&[("max-wait", "5")]),
    ));
    contains_all(
        &m,
        &["ASKD_MAX_WAIT=\"0\" is out of range — allowed 1..=86400"],
    );
}

/// Every integer key at both limits, and one past each, from all three sources.
#[test]
fn range_edges() {
    let ranges: &[(&str, u64, u64)] = &[
        ("maxWait", 1, 86_400),
        ("maxBodyBytes", 1_024, 134_217_728),
        ("idleExit", 0, 2_592_000),
        ("structureQuestionCap", 1, 151),
        ("maxItems", 1, 500),
        ("virtualThreshold", 50, 2_000),
    ];
    for &(name, min, max) in ranges {
        let d = def(name);
        let allowed = format!("allowed {min}..={max}");
        for n in [min, max] {
            from_file(&file_setting(d, &n.to_string())).unwrap();
            from_env(&[(d.env, &n.to_string())]).unwrap();
            from_flags(&[(d.flag, &n.to_string())]).unwrap();
        }
        let mut outside = vec![(max + 1).to_string()];
        outside.push(if min == 0 {
            "-1".to_string()
        } else {
            (min - 1).to_string()
        });
        for n in &outside {
            let m = err(from_file(&file_setting(d, n)));
            let key = match d.table {
                Some(t) => format!("/h/askd.toml: [{t}] {name} = {n} is out of range"),
                None => format!("/h/askd.toml: {name} = {n} is out of range"),
            };
            contains_all(&m, &[&key, &allowed]);
            let m = err(from_env(&[(d.env, n)]));
            contains_all(
                &m,
                &[&format!("{}=\"{n}\" is out of range", d.env), &allowed],
            );
            let m = err(from_flags(&[(d.flag, n)]));
            contains_all(
                &m,
                &[&format!("--{}=\"{n}\" is out of range", d.flag), &allowed],
            );
        }
    }
    // The exact message shape.
    assert_eq!(
        err(from_file("[batch_review]\nmaxItems = 0")),
        "/h/askd.toml: [batch_review] maxItems = 0 is out of range — allowed 1..=500"
    );
    // Huge numbers are out of range, not a crash.
    let m = err(from_env(&[(
        "ASKD_MAX_BODY_BYTES",
        "99999999999999999999999999999999999999999",
    )]));
    contains_all(&m, &["out of range", "1024..=134217728"]);
}

#[test]
fn origins_name_the_winning_source() {
    let (cfg, origins) = load_with_origins(
        &paths(),
        Some("maxBodyBytes = 4096\n[batch_review]\nmaxItems = 7\nvirtualThreshold = 60\n"),
        &env(&[("ASKD_BATCH_REVIEW_MAX_ITEMS", "8")]),
        &flags(&[("batch-review-virtual-threshold", "70")]),
    )
    .unwrap();
    assert_eq!(cfg.batch_review.max_items, 8);
    assert_eq!(cfg.batch_review.virtual_threshold, 70);
    let at = |k: &str| {
        let o = &origins[k];
        (o.layer, o.source.as_str())
    };
    assert_eq!(at("maxBodyBytes"), ("file", "/h/askd.toml"));
    assert_eq!(
        at("batch_review.maxItems"),
        ("env", "ASKD_BATCH_REVIEW_MAX_ITEMS")
    );
    assert_eq!(
        at("batch_review.virtualThreshold"),
        ("flag", "--batch-review-virtual-threshold")
    );
    assert!(!origins.contains_key("maxWait"), "defaults have no origin");
    let (_, origins) = load_with_origins(
        &paths(),
        None,
        &Env::new(),
        &flags(&[("allowed-hosts", "a.b")]),
    )
    .unwrap();
    assert_eq!(origins["allowedHosts"].layer, "flag");
}

#[test]
fn section_limits() {
    let exact = "x".repeat(SECTION_MAX_BYTES);
    let cfg = from_env(&[("ASKD_ALIGNMENT_SECTION", &exact)]).unwrap();
    assert_eq!(cfg.alignment.section.unwrap().len(), SECTION_MAX_BYTES);
    let over = "x".repeat(SECTION_MAX_BYTES + 1);
    let m = err(from_file(&format!("[alignment]\nsection = \"{over}\"")));
    contains_all(&m, &["[alignment] section", "32768 bytes", "32 KiB"]);
    assert!(m.len() < 300, "the section text is not echoed");
    let m = err(from_flags(&[("alignment-section", &"y".repeat(40 * 1024))]));
    contains_all(&m, &["--alignment-section", "32768"]);
    let m = err(from_file("[alignment]\nsection = \"  \"\n"));
    contains_all(&m, &["[alignment] section", "must contain text"]);
    let m = err(from_env(&[("ASKD_ALIGNMENT_SECTION", " \n ")]));
    contains_all(&m, &["ASKD_ALIGNMENT_SECTION", "must contain text"]);
    let m = err(from_file("[alignment]\nsection = 3\n"));
    contains_all(&m, &["section must be a string", "integer"]);
}

#[test]
fn elicitation_setting_refuses_unknown_values_naming_the_choices() {
    assert_eq!(Config::default().elicitation, Elicitation::Auto);
    let m = err(from_env(&[("ASKD_ELICITATION", "forms")]));
    contains_all(
        &m,
        &[
            "ASKD_ELICITATION=\"forms\"",
            "\"auto\", \"form\", \"url\" or \"off\"",
        ],
    );
    let m = err(from_file("elicitation = true"));
    contains_all(&m, &["elicitation = true", "a lowercase string", "boolean"]);
    assert_eq!(
        from_env(&[("ASKD_ELICITATION", "off")])
            .unwrap()
            .elicitation,
        Elicitation::Off
    );
}

#[test]
fn enumerated_values() {
    assert_eq!(
        err(from_env(&[("ASKD_LANGUAGE", "fr")])),
        "ASKD_LANGUAGE=\"fr\" is not allowed — use auto, en or zh-CN"
    );
    let m = err(from_file("language = \"zh-cn\""));
    contains_all(
        &m,
        &["/h/askd.toml: language = \"zh-cn\"", "auto, en or zh-CN"],
    );
    for (lit, label) in [("\"Auto\"", "mode = \"Auto\""), ("3", "mode = 3")] {
        let m = err(from_file(&format!("[alignment]\nmode = {lit}")));
        contains_all(&m, &[label, "\"auto\"", "\"manual\"", "\"off\""]);
    }
    let m = err(from_flags(&[("alignment-mode", "banana")]));
    contains_all(
        &m,
        &[
            "--alignment-mode=\"banana\"",
            "\"auto\", \"manual\" or \"off\"",
        ],
    );
    for mode in ["auto", "manual", "off"] {
        let cfg = from_env(&[("ASKD_ALIGNMENT_MODE", mode)]).unwrap();
        assert_eq!(cfg.alignment.mode.as_str(), mode);
    }
    for lang in ["auto", "en", "zh-CN"] {
        assert_eq!(
            from_flags(&[("language", lang)]).unwrap().language.as_str(),
            lang
        );
    }
    let m = err(from_env(&[("ASKD_SURVEY_WORKSPACE_RECORDS", "yes")]));
    contains_all(
        &m,
        &["ASKD_SURVEY_WORKSPACE_RECORDS=\"yes\"", "true or false"],
    );
    assert!(
        !from_env(&[("ASKD_SURVEY_WORKSPACE_RECORDS", "false")])
            .unwrap()
            .survey
            .workspace_records
    );
}

#[test]
fn unknown_top_level_key() {
    let m = err(from_file("maxwait = 5"));
    assert!(
        m.starts_with("/h/askd.toml: unknown key \"maxwait\""),
        "{m}"
    );
    contains_all(
        &m,
        &[
            "did you mean \"maxWait\"",
            "allowed top-level keys: listen, maxWait, maxBodyBytes, language, allowedHosts, idleExit, elicitation",
            "[survey], [batch_review], [alignment]",
        ],
    );
}

#[test]
fn unknown_key_in_a_table() {
    let m = err(from_file("[alignment]\nmodes = \"auto\""));
    contains_all(
        &m,
        &[
            "[alignment] has unknown key \"modes\"",
            "allowed keys in [alignment]: mode, section",
        ],
    );
    let m = err(from_file("[batch_review]\nmax_items = 5"));
    contains_all(
        &m,
        &[
            "\"max_items\"",
            "did you mean \"maxItems\"",
            "maxItems, virtualThreshold, allowExternalPersist",
        ],
    );
    let m = err(from_file("[survey]\ncap = 5"));
    contains_all(&m, &["structureQuestionCap, workspaceRecords"]);
    // maxBodyBytes lives at the top level, not in [batch_review].
    let m = err(from_file("[batch_review]\nmaxBodyBytes = 2048"));
    contains_all(&m, &["unknown key \"maxBodyBytes\""]);
}

#[test]
fn unknown_table() {
    let m = err(from_file("[review]\nmaxItems = 5"));
    contains_all(
        &m,
        &[
            "unknown table [review]",
            "allowed top-level keys: listen",
            "tables: [survey], [batch_review], [alignment]",
        ],
    );
    let m = err(from_file("batch_review = 5"));
    contains_all(
        &m,
        &[
            "batch_review has the wrong type",
            "expected a table",
            "maxItems",
        ],
    );
}

#[test]
fn unknown_env_and_flags() {
    // Unrelated ASKD_* variables are not config keys and are ignored.
    from_env(&[("ASKD_HOME", "/x"), ("ASKD_TOKEN", "t")]).unwrap();
    // Names under a table prefix are reserved.
    let m = err(from_env(&[("ASKD_BATCH_REVIEW_MAXITEMS", "5")]));
    contains_all(
        &m,
        &["ASKD_BATCH_REVIEW_MAXITEMS", "ASKD_BATCH_REVIEW_MAX_ITEMS"],
    );
    let m = err(from_flags(&[("--maxwait", "5")]));
    contains_all(
        &m,
        &[
            "--maxwait is not a config flag",
            "did you mean \"max-wait\"",
            "--max-wait",
            "--listen",
        ],
    );
    // allowExternalPersist is config-file only.
    let m = err(from_env(&[(
        "ASKD_BATCH_REVIEW_ALLOW_EXTERNAL_PERSIST",
        "true",
    )]));
    contains_all(&m, &["allowExternalPersist can be set only in askd.toml"]);
    let m = err(from_flags(&[(
        "batch-review-allow-external-persist",
        "true",
    )]));
    contains_all(
        &m,
        &["--batch-review-allow-external-persist", "only in askd.toml"],
    );
}

#[test]
fn bad_toml_reports_line_and_column() {
    let m = err(from_file("listen = \"127.0.0.1:7391\"\nmaxWait = = 3\n"));
    contains_all(
        &m,
        &["/h/askd.toml: not valid TOML at line 2, column", ": "],
    );
    assert!(!m.contains('\n'), "one line: {m}");
    let m = err(from_file("maxWait = 1\nmaxWait = 2\n"));
    contains_all(&m, &["not valid TOML at line 2"]);
}

#[test]
fn type_errors_name_the_expected_type() {
    let cases = [
        (
            "maxWait = \"5\"",
            "maxWait = \"5\" has the wrong type — expected an integer, found string",
        ),
        ("maxBodyBytes = 1.5", "expected an integer, found float"),
        ("listen = 7391", "expected a socket address string"),
        ("language = true", "expected a string, found boolean"),
        (
            "allowedHosts = \"a.example\"",
            "expected an array of host-name strings, found string",
        ),
        (
            "allowedHosts = [\"a\", 3]",
            "item 1 (3) has the wrong type — expected a host-name string, found integer",
        ),
        (
            "[survey]\nworkspaceRecords = \"yes\"",
            "expected a boolean (true or false), found string",
        ),
        (
            "[batch_review]\nallowExternalPersist = 1",
            "expected a boolean",
        ),
    ];
    for (file, want) in cases {
        let m = err(from_file(file));
        contains_all(&m, &["/h/askd.toml: ", want]);
    }
    let m = err(from_env(&[("ASKD_IDLE_EXIT", "10m")]));
    contains_all(
        &m,
        &[
            "ASKD_IDLE_EXIT=\"10m\" is not an integer",
            "0..=2592000 seconds",
        ],
    );
    let m = err(from_flags(&[("listen", "localhost:7391")]));
    contains_all(&m, &["--listen=\"localhost:7391\" is not a socket address"]);
}

#[test]
fn non_loopback_listen_needs_allowed_hosts() {
    let m = err(from_file("listen = \"0.0.0.0:7391\""));
    contains_all(
        &m,
        &[
            "listen = 0.0.0.0:7391",
            "/h/askd.toml: listen",
            "allowedHosts",
        ],
    );
    let m = err(from_env(&[("ASKD_LISTEN", "192.168.1.5:7391")]));
    contains_all(&m, &["ASKD_LISTEN", "allowedHosts"]);
    let cfg = load(
        &paths(),
        Some("listen = \"0.0.0.0:7391\"\nallowedHosts = [\"desk.example\"]"),
        &Env::new(),
        &[],
    )
    .unwrap();
    assert_eq!(cfg.allowed_hosts, ["desk.example"]);
    let cfg = from_flags(&[
        ("listen", "[::]:80"),
        ("allowed-hosts", "a.example"),
        ("allowed-hosts", "b.example,A.EXAMPLE"),
    ])
    .unwrap();
    assert_eq!(cfg.allowed_hosts, ["a.example", "b.example"]);
    // Loopback binds (v4, v6, v4-mapped) need nothing.
    for addr in [
        "127.0.0.1:1",
        "127.9.9.9:0",
        "[::1]:7391",
        "[::ffff:127.0.0.1]:7391",
    ] {
        from_flags(&[("listen", addr)]).unwrap();
    }
}

#[test]
fn allowed_hosts_entries() {
    let cfg = from_env(&[(
        "ASKD_ALLOWED_HOSTS",
        "Desk.Example, 10.0.0.2, ::1, [fe80::1],,",
    )])
    .unwrap();
    assert_eq!(
        cfg.allowed_hosts,
        ["desk.example", "10.0.0.2", "[::1]", "[fe80::1]"]
    );
    for bad in ["desk.example:7391", "a b", "http://x", "[zz]"] {
        let m = err(from_file(&format!("allowedHosts = [{bad:?}]")));
        contains_all(&m, &["allowedHosts", "invalid host name", "without a port"]);
    }
}

#[test]
fn language_resolution_order() {
    let auto = Language::Auto;
    assert_eq!(resolve_language(auto, &Env::new()), "en");
    assert_eq!(
        resolve_language(auto, &env(&[("LANG", "zh_CN.UTF-8")])),
        "zh-CN"
    );
    assert_eq!(
        resolve_language(auto, &env(&[("LANG", "en_US.UTF-8")])),
        "en"
    );
    assert_eq!(
        resolve_language(auto, &env(&[("LC_MESSAGES", "zh_TW"), ("LANG", "en_US")])),
        "zh-CN"
    );
    assert_eq!(
        resolve_language(auto, &env(&[("LC_ALL", "C"), ("LC_MESSAGES", "zh_CN")])),
        "en"
    );
    // Empty values are skipped.
    assert_eq!(
        resolve_language(
            auto,
            &env(&[("LC_ALL", ""), ("LC_MESSAGES", ""), ("LANG", "zh")])
        ),
        "zh-CN"
    );
    assert_eq!(
        resolve_language(auto, &env(&[("LC_ALL", "zh_CN"), ("LANG", "en_US")])),
        "zh-CN"
    );
    // An explicit language ignores the locale.
    let zh = env(&[("LC_ALL", "zh_CN.UTF-8")]);
    assert_eq!(resolve_language(Language::En, &zh), "en");
    assert_eq!(resolve_language(Language::ZhCn, &Env::new()), "zh-CN");
    let cfg = from_flags(&[("language", "en")]).unwrap();
    assert_eq!(cfg.resolved_language(&zh), "en");
}

#[test]
fn paths_resolution() {
    let p = Paths::resolve(
        &env(&[("ASKD_HOME", "/iso")]),
        Some("/data".into()),
        Some("/conf".into()),
    )
    .unwrap();
    assert_eq!(p.data_dir, Path::new("/iso"));
    assert_eq!(p.config_file, Path::new("/iso/askd.toml"));
    let p = Paths::resolve(&Env::new(), Some("/data".into()), Some("/conf".into())).unwrap();
    assert_eq!(p.data_dir, Path::new("/data/askd"));
    assert_eq!(p.config_file, Path::new("/conf/askd/askd.toml"));
    assert_eq!(p.db_file(), Path::new("/data/askd/askd.db"));
    assert_eq!(p.token_file(), Path::new("/data/askd/token"));
    assert_eq!(p.daemon_json(), Path::new("/data/askd/daemon.json"));
    assert_eq!(p.start_lock(), Path::new("/data/askd/start.lock"));
    // An empty ASKD_HOME counts as unset.
    let p = Paths::resolve(
        &env(&[("ASKD_HOME", "")]),
        Some("/d".into()),
        Some("/c".into()),
    )
    .unwrap();
    assert_eq!(p.data_dir, Path::new("/d/askd"));
    let e = Paths::resolve(&Env::new(), None, Some("/c".into())).unwrap_err();
    contains_all(e.message(), &["ASKD_HOME"]);
    // Errors name the configured file path.
    let p = Paths::in_home("/somewhere/else");
    let m = err(load(&p, Some("bogus = 1"), &Env::new(), &[]));
    assert!(m.starts_with("/somewhere/else/askd.toml: "), "{m}");
}

#[test]
fn serializes_to_a_valid_config_file() {
    let cfg = load(
        &paths(),
        Some(
            "listen = \"0.0.0.0:9000\"\nallowedHosts = [\"desk.example\"]\nmaxWait = 45\n\
             [batch_review]\nallowExternalPersist = true\n[alignment]\nmode = \"off\"\nsection = \"P\"\n",
        ),
        &Env::new(),
        &[],
    )
    .unwrap();
    let text = toml::to_string(&cfg).unwrap();
    for key in [
        "listen = \"0.0.0.0:9000\"",
        "maxWait = 45",
        "maxBodyBytes = 67108864",
        "[batch_review]",
        "maxItems = 100",
        "[alignment]",
        "mode = \"off\"",
        "language = \"auto\"",
    ] {
        assert!(text.contains(key), "{key} in {text}");
    }
    assert_eq!(from_file(&text).unwrap(), cfg);
    let json = serde_json::to_value(Config::default()).unwrap();
    assert_eq!(json["batch_review"]["virtualThreshold"], 500);
    assert_eq!(json["survey"]["structureQuestionCap"], 40);
    assert_eq!(json["language"], "auto");
    assert!(json.get("maxWait").is_none());
    let defaults = toml::to_string(&Config::default()).unwrap();
    assert_eq!(from_file(&defaults).unwrap(), Config::default());
}

#[test]
fn saved_notify_values_go_through_the_same_validation_and_a_wrong_one_is_skipped() {
    let base = NotifyConfig::default();
    let saved: serde_json::Map<String, serde_json::Value> =
        serde_json::from_value(serde_json::json!({
            "notify.after": "90s",
            "notify.remindEvery": 3600,
            "notify.quietHours": "off",
            "notify.desktop": "yes",
            "notify.webhook": [{"url": "https://ntfy.sh/t", "format": "ntfy"}],
            "maxItems": 3
        }))
        .unwrap();
    let (cfg, problems) = notify_with_saved(&base, &saved, "notify.");
    assert_eq!(cfg.after, Span(90));
    assert_eq!(cfg.remind_every, Span(3600));
    assert_eq!(cfg.quiet_hours, None);
    assert!(
        cfg.desktop,
        "the wrong saved value keeps the configuration's"
    );
    assert_eq!(cfg.webhook[0].name, "ntfy-1");
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].key, "desktop");
    assert!(
        problems[0]
            .message
            .starts_with("[notify] desktop = \"yes\" has the wrong type"),
        "{}",
        problems[0].message
    );
    assert_eq!(
        notify_value(&cfg, "webhook"),
        serde_json::json!([{"name": "ntfy-1", "format": "ntfy"}])
    );
    assert_eq!(notify_value(&cfg, "quietHours"), "off");
}
