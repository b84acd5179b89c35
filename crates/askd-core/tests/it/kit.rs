//! What the core's test files share: the recorded fixtures under `tests/fixtures/<dir>/`,
//! and the one shape of random JSON trees the property tests build from their own leaves and
//! keys.

use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;

/// The text of `tests/fixtures/<dir>/<name>`; a missing file fails the test naming it.
pub fn fixture_text(dir: &str, name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// `tests/fixtures/<dir>/<name>` read as JSON.
pub fn fixture_json(dir: &str, name: &str) -> Value {
    serde_json::from_str(&fixture_text(dir, name)).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"))
}

/// Random JSON trees over `leaf`, with object members named by `key`: at most `depth`
/// levels, about `size` nodes, `width` elements per array or object.
pub fn json_tree(
    leaf: BoxedStrategy<Value>,
    key: BoxedStrategy<String>,
    (depth, size, width): (u32, u32, usize),
) -> impl Strategy<Value = Value> {
    leaf.prop_recursive(depth, size, width as u32, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..width).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..width + 2)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
