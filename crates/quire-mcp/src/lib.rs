//! The Model Context Protocol (MCP) as a server speaks it over the
//! streamable HTTP transport, without I/O: JSON-RPC 2.0 messages read from
//! a `POST` body ([`read`]), the version negotiation of `initialize`
//! ([`initialize`]), tool descriptions ([`Tool`]) and results ([`text`]),
//! and the answers to write back ([`Reply`]). Servers are stateless: no
//! session id, one JSON answer per `POST` (which the protocol allows in
//! place of an event stream), `202` for notifications, `405` for `GET`.
//! The HTTP side and the tools themselves belong to whoever serves them.

use serde_json::{Map, Value, json};

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// A tool's arguments.
pub type Arguments = Map<String, Value>;
/// A JSON-RPC error: its code and message.
pub type CallError = (i64, String);

/// Messages a body may hold at most (a batch).
const MAX_BATCH: usize = 32;

/// One message of a `POST`.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: it gets an answer with its id.
    Request { id: Value, method: String, params: Value },
    /// A notification or a response to the server: no answer.
    Notification { method: String },
}

/// Why a body is no MCP message: answered with a JSON-RPC error (and
/// HTTP 400).
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    pub code: i64,
    pub message: String,
}

impl Unreadable {
    /// The JSON-RPC error answer (with a null id).
    pub fn answer(&self) -> Value {
        error(&Value::Null, self.code, &self.message)
    }
}

/// Reads a `POST` body: one message or a batch of them.
pub fn read(body: &[u8]) -> Result<Vec<Message>, Unreadable> {
    let value: Value = serde_json::from_slice(body).map_err(|e| Unreadable {
        code: PARSE_ERROR,
        message: format!("the body is not JSON: {e}"),
    })?;
    let items = match value {
        Value::Array(items) if items.is_empty() => {
            return Err(invalid("an empty batch"));
        }
        Value::Array(items) if items.len() > MAX_BATCH => {
            return Err(invalid(&format!("a batch holds at most {MAX_BATCH} messages")));
        }
        Value::Array(items) => items,
        single => vec![single],
    };
    items.into_iter().map(message).collect()
}

fn invalid(why: &str) -> Unreadable {
    Unreadable {
        code: INVALID_REQUEST,
        message: format!("not a JSON-RPC 2.0 message: {why}"),
    }
}

fn message(value: Value) -> Result<Message, Unreadable> {
    let Value::Object(mut object) = value else {
        return Err(invalid("not an object"));
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    let method = object.remove("method");
    let id = object.remove("id");
    match (method, id) {
        (Some(Value::String(method)), Some(id)) if id.is_string() || id.is_number() => Ok(Message::Request {
            id,
            method,
            params: object.remove("params").unwrap_or(Value::Object(Map::new())),
        }),
        (Some(Value::String(_)), Some(_)) => Err(invalid("`id` must be a string or a number")),
        (Some(Value::String(method)), None) => Ok(Message::Notification { method }),
        // A response to something the server asked: nothing to answer.
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => {
            Ok(Message::Notification { method: String::new() })
        }
        _ => Err(invalid("`method` must be a string")),
    }
}

/// The result of `initialize`: the client's protocol version when this
/// server speaks it, else the newest this server speaks.
pub fn initialize(params: &Value, name: &str, version: &str, instructions: &str) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let agreed = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": agreed,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": name, "version": version },
        "instructions": instructions,
    })
}

/// Whether a `MCP-Protocol-Version` header names a version this server
/// speaks (absent: yes, the protocol's default).
pub fn speaks(header: Option<&str>) -> bool {
    header.is_none_or(|v| PROTOCOL_VERSIONS.contains(&v.trim()))
}

/// A tool as `tools/list` shows it.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: &'static str,
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    /// Reads only (the `readOnlyHint` annotation).
    pub read_only: bool,
}

impl Tool {
    pub fn describe(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {
                "readOnlyHint": self.read_only,
                "destructiveHint": false,
                "idempotentHint": self.read_only,
                "openWorldHint": false,
            },
        })
    }
}

/// `tools/list`'s result.
pub fn tool_list(tools: &[Tool]) -> Value {
    json!({ "tools": tools.iter().map(Tool::describe).collect::<Vec<_>>() })
}

/// A tool's result made of text items (`is_error`: the tool failed in a way
/// the model should read, not a protocol error).
pub fn text(items: impl IntoIterator<Item = String>, is_error: bool) -> Value {
    let content: Vec<Value> = items
        .into_iter()
        .map(|text| json!({ "type": "text", "text": text }))
        .collect();
    json!({ "content": content, "isError": is_error })
}

/// The name and arguments of `tools/call`.
pub fn tool_call(params: &Value) -> Result<(&str, &Arguments), CallError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or((INVALID_PARAMS, "tools/call needs a tool `name`".to_owned()))?;
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => EMPTY.get_or_init(Map::new),
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return Err((INVALID_PARAMS, "`arguments` must be an object".to_owned())),
    };
    Ok((name, arguments))
}

/// A string argument, required.
pub fn string_argument<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, CallError> {
    match arguments.get(name) {
        Some(Value::String(value)) if !value.trim().is_empty() => Ok(value),
        Some(Value::String(_)) => Err((INVALID_PARAMS, format!("`{name}` must not be empty"))),
        Some(_) => Err((INVALID_PARAMS, format!("`{name}` must be a string"))),
        None => Err((INVALID_PARAMS, format!("`{name}` is required"))),
    }
}

/// A successful answer to request `id`.
pub fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error answer to request `id`.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// What a `POST` is answered with.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Notifications and responses only: `202` without a body.
    Accepted,
    /// `200` with this JSON (an object, or an array for a batch).
    Json(Value),
}

impl Reply {
    /// The reply to a body of `messages` whose requests got `answers`, in
    /// order (a batch is answered with an array).
    pub fn of(batch: bool, answers: Vec<Value>) -> Reply {
        match (batch, answers.len()) {
            (_, 0) => Reply::Accepted,
            (false, 1) => Reply::Json(answers.into_iter().next().unwrap_or(Value::Null)),
            _ => Reply::Json(Value::Array(answers)),
        }
    }
}

/// Whether the body was a batch (a JSON array).
pub fn is_batch(body: &[u8]) -> bool {
    body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// The answer to `GET` (no server-initiated stream) and `DELETE` (no
/// session to end): HTTP 405 with this body.
pub fn method_not_allowed() -> Value {
    error(&Value::Null, -32000, "Method not allowed.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_one_or_batched() {
        let one = read(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
        assert_eq!(
            one,
            vec![Message::Request {
                id: json!(1),
                method: "ping".into(),
                params: json!({})
            }]
        );
        let batch = read(br#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}]"#).unwrap();
        assert_eq!(batch.len(), 2);
        assert!(matches!(batch[0], Message::Notification { .. }));
        assert!(is_batch(b"  [1]"));
    }

    #[test]
    fn bad_bodies_get_their_json_rpc_code() {
        assert_eq!(read(b"{").unwrap_err().code, PARSE_ERROR);
        assert_eq!(read(b"[]").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(
            read(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#).unwrap_err().code,
            INVALID_REQUEST
        );
        assert_eq!(
            read(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).unwrap_err().code,
            INVALID_REQUEST
        );
        assert_eq!(read(br#"{"jsonrpc":"2.0","id":1}"#).unwrap_err().code, INVALID_REQUEST);
    }

    #[test]
    fn versions_are_negotiated() {
        let agreed = initialize(&json!({ "protocolVersion": "2025-06-18" }), "s", "1", "");
        assert_eq!(agreed["protocolVersion"], "2025-06-18");
        let newest = initialize(&json!({ "protocolVersion": "1999-01-01" }), "s", "1", "");
        assert_eq!(newest["protocolVersion"], PROTOCOL_VERSIONS[0]);
        assert!(speaks(None) && speaks(Some("2025-03-26")) && !speaks(Some("2020-01-01")));
    }

    #[test]
    fn arguments_are_checked() {
        let params = json!({ "name": "getPage", "arguments": { "url": "x", "n": 1 } });
        let (name, arguments) = tool_call(&params).unwrap();
        assert_eq!(name, "getPage");
        assert_eq!(string_argument(arguments, "url").unwrap(), "x");
        assert!(string_argument(arguments, "n").is_err());
        assert!(string_argument(arguments, "missing").is_err());
        assert!(tool_call(&json!({ "arguments": {} })).is_err());
    }
}
