//! The docs a new user follows (issue 28 §7): the tools `docs/integrations.md` and the DSH
//! bundle's README list are exactly the tools `tools/list` returns (from the real `askd mcp`
//! child), and no doc cites a section (`§`) of a specification file the repository does not
//! hold.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common_mcp;

use common_mcp::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The backticked tool names between the `tools:begin` and `tools:end` markers of `file`.
fn listed_tools(file: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(repo().join(file)).unwrap();
    let start = text
        .find("<!-- tools:begin")
        .unwrap_or_else(|| panic!("{file}: no tools:begin marker"));
    let end = text[start..]
        .find("<!-- tools:end -->")
        .unwrap_or_else(|| panic!("{file}: no tools:end marker"))
        + start;
    let block = &text[start..end];
    let block = &block[block.find("-->").unwrap() + 3..];
    let mut names = BTreeSet::new();
    for (i, part) in block.split('`').enumerate() {
        if i % 2 == 1
            && !part.is_empty()
            && part.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        {
            names.insert(part.to_string());
        }
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_list_exactly_the_tools_tools_list_returns() {
    let home = Home::new();
    let a = home.adapter("docs-check", &[]).await;
    let served: BTreeSet<String> = a
        .service
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(served.len(), 14, "{served:?}");
    for file in ["docs/integrations.md", "integrations/dsh/README.md"] {
        let listed = listed_tools(file);
        assert_eq!(
            listed, served,
            "{file} lists {listed:?}; tools/list returns {served:?}"
        );
    }
}

#[test]
fn the_docs_cite_no_section_of_a_specification_file() {
    let mut files = vec![
        repo().join("README.md"),
        repo().join("integrations/dsh/README.md"),
    ];
    for e in std::fs::read_dir(repo().join("docs")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "md") {
            files.push(e.path());
        }
    }
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains('§') {
                found.push(format!("{}:{}: {line}", f.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the docs must stand on their own, without § citations of spec files:\n{}",
        found.join("\n")
    );
}
