//! A host-registered tool: each call is a `tools/call` request to the host,
//! and its answer, checked, is the call's result.

use std::sync::Arc;

use serde_json::Value;

use super::errors::RpcError;
use super::peer::Peer;
use crate::contract::call::{ContentBlock, ErrorCode, ToolError, ToolOutput};
use crate::contract::host_protocol::CallParams;
use crate::json::json_type;
use crate::tool::context::ToolContext;
use crate::tool::handler::{BoxFuture, ToolHandler};

/// The params shared by `tools/call` and `tools/approve`.
pub(super) fn call_params<'a>(
    cx: &'a ToolContext,
    name: &'a str,
    arguments: Value,
) -> CallParams<'a> {
    CallParams {
        run_id: cx.run_id(),
        id: cx.call_id(),
        name,
        arguments,
    }
}

/// The handler of a host-registered tool: a `tools/call` request to the host.
pub(super) struct HostTool {
    pub(super) name: String,
    pub(super) peer: Arc<Peer>,
}

impl ToolHandler for HostTool {
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<Result<ToolOutput, ToolError>> {
        let name = self.name.clone();
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let mut pending = peer.request("tools/call", call_params(&cx, &name, arguments));
            let reply = tokio::select! {
                biased;
                _ = cx.cancellation().cancelled() => {
                    drop(pending);
                    return Err(ToolError::new(
                        ErrorCode::Aborted,
                        format!("call to `{name}` was cancelled"),
                    ));
                }
                reply = pending.answer() => reply,
            };
            tool_result(&name, reply)
        })
    }
}

/// The host's answer to `tools/call` as a result.
fn tool_result(name: &str, reply: Result<Value, RpcError>) -> Result<ToolOutput, ToolError> {
    let result = match reply {
        Ok(result) => result,
        Err(error) => {
            let data = error.data.as_ref();
            let code = data
                .and_then(|d| d.get("code"))
                .and_then(Value::as_str)
                .and_then(ErrorCode::parse)
                .unwrap_or(ErrorCode::ToolError);
            let mut failure = ToolError::new(code, error.message);
            if let Some(detail) = data.and_then(|d| d.get("detail")).and_then(Value::as_str) {
                failure = failure.with_detail(detail);
            }
            return Err(failure);
        }
    };
    let malformed = |what: String| {
        ToolError::tool(format!(
            "the host's answer to the call of `{name}` is malformed: {what}"
        ))
    };
    let Value::Object(mut result) = result else {
        return Err(malformed(format!(
            "expected an object `{{ value, content? }}`, got {}",
            json_type(&result)
        )));
    };
    let Some(value) = result.remove("value") else {
        return Err(malformed("it has no `value`".to_owned()));
    };
    let mut output = ToolOutput::new(value);
    match result.remove("content") {
        None | Some(Value::Null) => {}
        Some(content) => {
            output.content = serde_json::from_value::<Vec<ContentBlock>>(content)
                .map_err(|e| malformed(format!("`content`: {e}")))?;
        }
    }
    for (index, block) in output.content.iter().enumerate() {
        if let Err(what) = check_image(block) {
            return Err(malformed(format!("`content[{index}]`: {what}")));
        }
    }
    Ok(output)
}

/// An image block must be what it says: an `image/…` type and base64
/// data, so a model or an MCP client never receives garbage as a picture.
fn check_image(block: &ContentBlock) -> Result<(), String> {
    use base64::Engine as _;
    let ContentBlock::Image { data, mime_type } = block else {
        return Ok(());
    };
    let subtype = mime_type.strip_prefix("image/").unwrap_or_default();
    if subtype.is_empty() || !subtype.bytes().all(|b| b.is_ascii_graphic() && b != b';') {
        return Err(format!(
            "`mimeType` must be an image type such as image/png, got {mime_type:?}"
        ));
    }
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map(drop)
        .map_err(|e| format!("`data` is not base64: {e}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn image_blocks_are_checked() {
        let image = |data: &str, mime: &str| {
            tool_result(
                "t",
                Ok(json!({ "value": 1, "content": [
                    { "type": "text", "text": "a picture" },
                    { "type": "image", "data": data, "mimeType": mime }
                ] })),
            )
        };
        assert!(image("iVBORw0KGgo=", "image/png").is_ok());
        let bad = image("not base64!", "image/png").unwrap_err();
        assert!(
            bad.message.starts_with("the host's answer to the call of `t` is malformed: `content[1]`: `data` is not base64"),
            "{}",
            bad.message
        );
        let bad = image("iVBORw0KGgo=", "text/html").unwrap_err();
        assert!(
            bad.message.contains("`mimeType` must be an image type"),
            "{}",
            bad.message
        );
        assert!(image("iVBORw0KGgo=", "image/").is_err());
    }
}
