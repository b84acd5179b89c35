//! Schemas every client can compile (`clients.md` §2.3): the official TypeScript SDK compiles
//! tool schemas with ajv in strict mode, which refuses custom `format`s (`uint64`, emitted by
//! schemars for unsigned integers), type unions other than `[T, "null"]`, and keywords whose
//! type is not declared beside them; Codex strips `format` anyway. [`strict`] rewrites a
//! schema into that subset without changing what it accepts:
//! - `$schema` and every `format` are removed (MCP's default dialect is 2020-12);
//! - `type: [A, B, …]` (other than `[T, "null"]`) becomes `anyOf: [{type: A, …}, …]`, each
//!   branch carrying the keywords that apply to its type.
//!
//! And [`admitting_errors`]: an output schema that also admits askd's error envelope, since
//! the TypeScript SDK validates `structuredContent` against `outputSchema` on error results
//! too (§2.2).

use serde_json::{Map, Value, json};

/// The keywords that apply only to instances of one JSON type.
fn keyword_type(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "minLength" | "maxLength" | "pattern" => "string",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => "number",
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" | "contains" => "array",
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties" => "object",
        _ => return None,
    })
}

fn applies(keyword_ty: &str, ty: &str) -> bool {
    keyword_ty == ty || (keyword_ty == "number" && ty == "integer")
}

/// `schema` rewritten into the strict subset (see the module docs).
pub fn strict(schema: &Value) -> Value {
    match schema {
        Value::Array(a) => Value::Array(a.iter().map(strict).collect()),
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                match k.as_str() {
                    "$schema" | "format" => {}
                    // Maps of schemas: their keys are names, not keywords.
                    "properties" | "$defs" | "definitions" | "patternProperties" => {
                        let inner = v
                            .as_object()
                            .map(|m| m.iter().map(|(n, s)| (n.clone(), strict(s))).collect())
                            .unwrap_or_default();
                        out.insert(k.clone(), Value::Object(inner));
                    }
                    "enum" | "const" | "default" | "examples" | "required" => {
                        out.insert(k.clone(), v.clone());
                    }
                    _ => {
                        out.insert(k.clone(), strict(v));
                    }
                }
            }
            split_union(out)
        }
        other => other.clone(),
    }
}

fn split_union(mut o: Map<String, Value>) -> Value {
    let types: Vec<String> = match o.get("type") {
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => return Value::Object(o),
    };
    let nullable = types.len() == 2 && types.iter().any(|t| t == "null");
    if types.len() < 2 || nullable {
        return Value::Object(o);
    }
    o.remove("type");
    let typed: Vec<(String, Value)> = o
        .iter()
        .filter(|(k, _)| keyword_type(k).is_some())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, _) in &typed {
        o.remove(k);
    }
    let branches: Vec<Value> = types
        .iter()
        .map(|t| {
            let mut b = Map::new();
            b.insert("type".into(), json!(t));
            for (k, v) in &typed {
                if keyword_type(k).is_some_and(|kt| applies(kt, t)) {
                    b.insert(k.clone(), v.clone());
                }
            }
            Value::Object(b)
        })
        .collect();
    o.insert("anyOf".into(), Value::Array(branches));
    Value::Object(o)
}

/// askd's error envelope: `{"error": {code, message, errors?, ask_id?, …}}`.
pub fn error_envelope() -> Value {
    json!({
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                    "errors": {"type": "array", "items": {"type": "object"}},
                    "ask_id": {"type": "string"}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["error"]
    })
}

/// An output schema that admits the tool's result or askd's error envelope.
pub fn admitting_errors(result: &Value) -> Value {
    json!({"type": "object", "anyOf": [result, error_envelope()]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_formats_and_dialect_are_rewritten() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "id": {"type": ["string", "integer"], "minLength": 1, "minimum": 0},
                "n": {"type": "integer", "format": "uint64", "minimum": 0},
                "note": {"type": ["string", "null"]},
                "format": {"type": "string"}
            },
            "required": ["id"]
        });
        let got = strict(&s);
        assert_eq!(
            got,
            json!({
                "type": "object",
                "properties": {
                    "id": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]},
                    "n": {"type": "integer", "minimum": 0},
                    "note": {"type": ["string", "null"]},
                    "format": {"type": "string"}
                },
                "required": ["id"]
            })
        );
    }
}
