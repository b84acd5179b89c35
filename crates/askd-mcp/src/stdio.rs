//! The stdio transport of `askd mcp`: a line layer in front of rmcp.
//!
//! rmcp's own stdio transport drops what it cannot parse without a word (a lone surrogate
//! escape, nesting deeper than serde_json's 128 levels, an id like `1e400`, a line over its
//! 16 MiB cap, any non-JSON line), so the agent waits for an answer that never comes; and a
//! notification before `initialize` ends its handshake, and with it the adapter. This layer
//! reads stdin itself and makes sure every line is either handed to rmcp as a parsed message
//! or answered here:
//!
//! - a line over [`MAX_LINE`] is skipped to its newline (never buffered whole): `-32600`;
//! - lone surrogate escapes (`"\ud83d"`, from a truncated emoji) are replaced by `\ufffd`
//!   at the text level, before parsing;
//! - what is not JSON is `-32700`; JSON that is not a JSON-RPC 2.0 message is `-32600`; a
//!   message that serde_json cannot represent (too deep, a number out of range) is `-32700`;
//! - `tools/call` whose `params.arguments` is present but not an object is `-32602`;
//! - every answer carries the message's `id` when it can be read, `id: null` otherwise.
//!
//! Everything that reaches stdout — rmcp's messages and this layer's answers — goes through
//! one writer task, one whole line at a time, so lines never interleave.
//!
//! Before the lifecycle starts, rmcp accepts only `initialize`, `ping`, `server/discover` and
//! requests with the 2026-07-28 inline `_meta` (answering the other requests with an error);
//! anything else (e.g. `notifications/initialized` sent first) makes its handshake fail.
//! [`serve_stdio`] then logs the ignored message and starts a fresh handshake on the same
//! stream, so the client can still `initialize` and the adapter keeps serving.

use std::borrow::Cow;
use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage,
};
use rmcp::service::ServerInitializeError;
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};

use crate::backend::Backend;
use crate::server::{AskdServer, Options};

/// The longest line (one JSON-RPC message, without its line ending) the adapter reads.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// What to do with one input line.
#[derive(Debug)]
pub enum Line {
    /// A blank line: nothing to do.
    Blank,
    /// A valid message for rmcp.
    Forward(Box<ClientJsonRpcMessage>),
    /// The JSON-RPC error line to answer with (no trailing newline).
    Answer(Vec<u8>),
}

/// A JSON-RPC error response; `id` is `null` when the message's id cannot be read.
fn error_line(id: Option<Value>, code: i64, message: String) -> Vec<u8> {
    let v = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

/// The answer to a line longer than [`MAX_LINE`].
pub fn oversized_line() -> Vec<u8> {
    error_line(
        None,
        INVALID_REQUEST,
        format!(
            "Invalid Request: the message is longer than {MAX_LINE} bytes (16 MiB), the most askd reads on one line; it was skipped — send smaller arguments"
        ),
    )
}

/// Replaces every lone UTF-16 surrogate escape (`\uD800`–`\uDFFF` not part of a
/// high-low pair) with `\ufffd`. Escaped backslashes are skipped, so `\\ud83d` (a backslash
/// and the letters `ud83d`) is left alone. Borrows when there is nothing to repair.
pub fn repair_lone_surrogates(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        let digits = b.get(at..at + 4)?;
        let s = std::str::from_utf8(digits).ok()?;
        u16::from_str_radix(s, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u16> {
        (b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u'))
            .then(|| hex(at + 2))
            .flatten()
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape_at(i) else {
            // Any other escape (`\\`, `\"`, `\n`…): skip both bytes.
            i += 2;
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => {
                if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) {
                    i += 12;
                    continue;
                }
                true
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..i]);
            o.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// The `id` member alone, read without building the rest of the message: serde_json skips
/// the other members without recursion, so this reads the id of a message nested too deep
/// to parse.
#[derive(Deserialize)]
struct IdProbe<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

/// Classifies one line (its line ending already removed).
pub fn classify(line: &[u8]) -> Line {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Line::Answer(error_line(
            None,
            PARSE_ERROR,
            "Parse error: the line is not UTF-8; send each JSON-RPC message as one line of UTF-8 JSON".into(),
        ));
    };
    let text = repair_lone_surrogates(text);
    if !text.trim_start().starts_with('{') {
        // Batches are not part of MCP; a bare value is no message either.
        return Line::Answer(match serde_json::from_str::<serde::de::IgnoredAny>(&text) {
            Ok(_) => error_line(
                None,
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message is one JSON object (batches are not supported); send one message per line".into(),
            ),
            Err(e) => error_line(
                None,
                PARSE_ERROR,
                format!("Parse error: the line is not valid JSON ({e})"),
            ),
        });
    }
    let raw_id = match serde_json::from_str::<IdProbe>(&text) {
        Ok(p) => p.id,
        Err(e) => {
            return Line::Answer(match e.classify() {
                serde_json::error::Category::Data => error_line(
                    None,
                    INVALID_REQUEST,
                    format!("Invalid Request: the message's id cannot be read ({e})"),
                ),
                _ => error_line(
                    None,
                    PARSE_ERROR,
                    format!("Parse error: the line is not valid JSON ({e})"),
                ),
            });
        }
    };
    // The id to answer with: what the message carries if serde_json can read it.
    let id: Option<Value> = raw_id.and_then(|r| serde_json::from_str::<Value>(r.get()).ok());
    if let Some(raw) = raw_id {
        let usable = match &id {
            Some(Value::String(_)) => true,
            Some(Value::Number(n)) => n.is_i64(),
            _ => false,
        };
        if !usable {
            let shown: String = raw.get().chars().take(40).collect();
            return Line::Answer(error_line(
                id.filter(|v| v.is_number()),
                INVALID_REQUEST,
                format!(
                    "Invalid Request: id must be a string or an integer that fits in 64 bits, got {shown}"
                ),
            ));
        }
    }
    let message = match serde_json::from_str::<ClientJsonRpcMessage>(&text) {
        Ok(m) => m,
        Err(e) => {
            return Line::Answer(match e.classify() {
                serde_json::error::Category::Data => error_line(
                    id,
                    INVALID_REQUEST,
                    format!("Invalid Request: not a JSON-RPC 2.0 message ({e})"),
                ),
                _ => error_line(
                    id,
                    PARSE_ERROR,
                    format!(
                        "Parse error: the message cannot be read ({e}); nest at most 128 levels deep and keep numbers within 64-bit range"
                    ),
                ),
            });
        }
    };
    // rmcp reads a request whose params do not fit its method as an unknown method
    // (-32601); for tools/call that is an invalid-params error.
    if let ClientJsonRpcMessage::Request(req) = &message
        && let ClientRequest::CustomRequest(custom) = &req.request
        && custom.method == "tools/call"
    {
        let params = custom.params.clone().unwrap_or(Value::Null);
        let why = match params.get("arguments") {
            Some(a) if !a.is_object() && !a.is_null() => format!(
                "Invalid params: params.arguments must be an object (the tool's arguments by name), got {}",
                kind(a)
            ),
            _ => match serde_json::from_value::<CallToolRequestParams>(params) {
                Err(e) => {
                    format!("Invalid params: tools/call params must be {{name, arguments?}} ({e})")
                }
                Ok(_) => "Invalid params: tools/call params are not valid".to_string(),
            },
        };
        return Line::Answer(error_line(id, INVALID_PARAMS, why));
    }
    Line::Forward(Box::new(legacy_tasks(message, &text)))
}

/// A 2025-11-25 task request, handed over under askd's method name (`crate::tasks`); any
/// other message as it is.
fn legacy_tasks(message: ClientJsonRpcMessage, text: &str) -> ClientJsonRpcMessage {
    let ClientJsonRpcMessage::Request(req) = &message else {
        return message;
    };
    let method = req.request.method();
    let has_task = method == "tools/call" && crate::tasks::has_task(text.as_bytes());
    if !crate::tasks::may_rename(method, has_task) {
        return message;
    }
    let Ok(mut value) = serde_json::from_str::<Value>(text) else {
        return message;
    };
    if !crate::tasks::legacy_inbound(&mut value) {
        return message;
    }
    serde_json::from_value::<ClientJsonRpcMessage>(value).unwrap_or(message)
}

/// A message of rmcp's as its line, with what rmcp's types cannot carry added to two
/// answers (`crate::tasks`): `initialize`'s `tasks` capability and `tools/list`'s
/// `execution.taskSupport`.
fn server_line(item: &ServerJsonRpcMessage) -> serde_json::Result<Vec<u8>> {
    use rmcp::model::ServerResult;
    let patch: Option<fn(&mut Value)> = match item {
        ServerJsonRpcMessage::Response(r) => match &r.result {
            ServerResult::InitializeResult(_) => Some(crate::tasks::patch_initialize),
            ServerResult::ListToolsResult(_) => Some(crate::tasks::patch_tools),
            _ => None,
        },
        _ => None,
    };
    let Some(patch) = patch else {
        return serde_json::to_vec(item);
    };
    let mut value = serde_json::to_value(item)?;
    if let Some(result) = value.get_mut("result") {
        patch(result);
    }
    serde_json::to_vec(&value)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads `input` line by line (at most [`MAX_LINE`] bytes each), forwarding messages to
/// `forward` and answers to `out`, until end of input.
async fn read_lines<R: AsyncRead + Unpin>(
    input: R,
    forward: mpsc::Sender<ClientJsonRpcMessage>,
    out: mpsc::Sender<Vec<u8>>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if buf.capacity() > 1024 * 1024 {
            buf.shrink_to(64 * 1024);
        }
        // Room for the longest line and a CRLF: anything longer is known oversized.
        let cap = MAX_LINE as u64 + 2;
        let n = match (&mut reader).take(cap).read_until(b'\n', &mut buf).await {
            Ok(n) => n,
            Err(e) => {
                eprintln!("askd mcp: cannot read stdin: {e}");
                return;
            }
        };
        if n == 0 {
            return;
        }
        let ended = buf.ends_with(b"\n");
        let mut oversized = false;
        if !ended && n as u64 == cap {
            // Skip to the end of the line without keeping it.
            oversized = true;
            if let Err(e) = skip_line(&mut reader).await {
                eprintln!("askd mcp: cannot read stdin: {e}");
                return;
            }
        }
        let mut line = buf.as_slice();
        if ended {
            line = &line[..line.len() - 1];
            line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        let outcome = if oversized || line.len() > MAX_LINE {
            Line::Answer(oversized_line())
        } else {
            classify(line)
        };
        match outcome {
            Line::Blank => {}
            Line::Forward(m) => {
                if forward.send(*m).await.is_err() {
                    return;
                }
            }
            Line::Answer(mut answer) => {
                answer.push(b'\n');
                if out.send(answer).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Consumes input up to and including the next newline (or end of input).
async fn skip_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> io::Result<()> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(());
        }
        match available.iter().position(|b| *b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = available.len();
                reader.consume(n);
            }
        }
    }
}

/// Writes each queued line to `output` and flushes it, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(mut output: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        if let Err(e) = async {
            output.write_all(&line).await?;
            output.flush().await
        }
        .await
        {
            eprintln!("askd mcp: cannot write stdout: {e}");
            return;
        }
    }
}

/// rmcp's side of the layer: parsed messages in, serialised lines out (to the one writer).
/// The receiver is shared so that a handshake started again reads on from the same place.
struct LineTransport {
    incoming: Arc<Mutex<mpsc::Receiver<ClientJsonRpcMessage>>>,
    out: mpsc::Sender<Vec<u8>>,
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let mut line = server_line(&item)?;
            line.push(b'\n');
            out.send(line)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.lock().await.recv().await
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        Ok(())
    }
}

/// Serves MCP over `input`/`output` (newline-delimited JSON-RPC) until the input ends.
pub async fn serve_lines<R, W>(
    backend: Arc<dyn Backend>,
    options: Arc<Options>,
    input: R,
    output: W,
) -> Result<(), String>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(64);
    let (in_tx, in_rx) = mpsc::channel::<ClientJsonRpcMessage>(64);
    let writer = tokio::spawn(write_lines(output, out_rx));
    let reader = tokio::spawn(read_lines(input, in_tx, out_tx.clone()));
    let incoming = Arc::new(Mutex::new(in_rx));
    let result = loop {
        let transport = LineTransport {
            incoming: incoming.clone(),
            out: out_tx.clone(),
        };
        let server = AskdServer::new(backend.clone(), options.clone());
        match server.serve(transport).await {
            Ok(running) => {
                break running
                    .waiting()
                    .await
                    .map(|_| ())
                    .map_err(|e| format!("MCP session ended with an error: {e}"));
            }
            // A message rmcp cannot take before `initialize` (a notification, a response):
            // ignore it and wait for the handshake again.
            Err(ServerInitializeError::ExpectedInitializeRequest(m)) => {
                let what = match &m {
                    Some(ClientJsonRpcMessage::Notification(n)) => {
                        serde_json::to_value(&n.notification)
                            .ok()
                            .and_then(|v| v["method"].as_str().map(str::to_string))
                            .unwrap_or_else(|| "a notification".into())
                    }
                    Some(ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_)) => {
                        "a response".into()
                    }
                    _ => "a message".into(),
                };
                tracing::warn!("ignored {what} received before initialize");
            }
            // The initialize request was answered with an error: the client may try again.
            Err(ServerInitializeError::InitializeFailed(e)) => {
                tracing::warn!("initialize failed: {}", e.message);
            }
            Err(e) => break Err(format!("MCP handshake failed: {e}")),
        }
    };
    reader.abort();
    drop(out_tx);
    drop(incoming);
    let _ = writer.await;
    result
}

/// Serves one MCP session over this process's stdin/stdout until the client disconnects.
pub async fn serve_stdio(backend: Arc<dyn Backend>, options: Arc<Options>) -> Result<(), String> {
    let (input, output) = rmcp::transport::stdio_pipes();
    serve_lines(backend, options, input, output).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_replaced_and_pairs_kept() {
        assert_eq!(
            repair_lone_surrogates(
                r#"{"a":"x\ud83d","b":"\ude00y","c":"\ud83d\ude00","d":"\\ud83d"}"#
            ),
            r#"{"a":"x\ufffd","b":"\ufffdy","c":"\ud83d\ude00","d":"\\ud83d"}"#
        );
        assert!(matches!(
            repair_lone_surrogates(r#""plain""#),
            Cow::Borrowed(_)
        ));
        // A high surrogate followed by another high one: both lone.
        assert_eq!(
            repair_lone_surrogates(r#""\uD83D\uD83D""#),
            r#""\ufffd\ufffd""#
        );
        // An escaped backslash, then a real lone escape: only the escape is repaired.
        assert_eq!(repair_lone_surrogates(r#""\\\ud83d""#), r#""\\\ufffd""#);
        // Truncated escapes stay for the parser to refuse.
        assert_eq!(repair_lone_surrogates(r#""\ud8"#), r#""\ud8"#);
    }
}
