//! ptc's requests to the host (host-protocol.md, "Requests from ptc"): a
//! call of a tool the host registered, an approval of an `ask` call or an
//! escalation, and the cancellation of a request ptc stopped waiting for;
//! each with the reading of the host's answer. `$/cancel` goes both ways:
//! the host cancels its own requests with the same shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Method, RpcError};
use crate::contract::call::{ContentBlock, ErrorCode, ToolError, ToolOutput};
use crate::json::json_type;

/// `tools/call`'s params: a call of a tool the host registered (`runId`
/// for a program's sub-call).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallParams<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) run_id: Option<&'a str>,
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    pub(crate) arguments: Value,
}

impl Method for CallParams<'_> {
    const NAME: &'static str = "tools/call";
}

/// `tools/approve`'s params for a call whose policy is `ask`.
#[derive(Serialize)]
pub(crate) struct ApproveCall<'a> {
    #[serde(flatten)]
    call: CallParams<'a>,
    title: String,
    kind: &'static str,
}

impl Method for ApproveCall<'_> {
    const NAME: &'static str = "tools/approve";
}

impl<'a> ApproveCall<'a> {
    pub(crate) fn new(call: CallParams<'a>, title: String) -> Self {
        Self {
            call,
            title,
            kind: "call",
        }
    }
}

/// `tools/approve`'s params for a run that asks for escalation.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ApproveEscalation<'a, G: Serialize> {
    run_id: &'a str,
    kind: &'static str,
    code: &'a str,
    description: &'a str,
    justification: &'a str,
    /// What the run would be granted (the approval's type, its shape its
    /// serialization).
    grant: &'a G,
}

impl<G: Serialize> Method for ApproveEscalation<'_, G> {
    const NAME: &'static str = "tools/approve";
}

impl<'a, G: Serialize> ApproveEscalation<'a, G> {
    /// Run `run_id`'s escalation: its program, what it does, why it needs
    /// more, and the grant.
    pub(crate) fn new(
        run_id: &'a str,
        code: &'a str,
        description: &'a str,
        justification: &'a str,
        grant: &'a G,
    ) -> Self {
        Self {
            run_id,
            kind: "escalation",
            code,
            description,
            justification,
            grant,
        }
    }
}

/// `$/cancel`'s params: the sender no longer waits for its request `id`
/// (ptc's ids are numbers; the host's, any JSON-RPC id).
#[derive(Serialize, Deserialize)]
pub(crate) struct Cancel<I = u64> {
    pub(crate) id: I,
}

impl<I> Method for Cancel<I> {
    const NAME: &'static str = "$/cancel";
}

impl Cancel<Value> {
    /// The host's `$/cancel` params, when they name a request.
    pub(crate) fn read(params: Value) -> Option<Self> {
        serde_json::from_value(params).ok()
    }
}

/// The host's answer to `tools/call` for tool `name`, as the call's result:
/// an error's `data.code` and `data.detail` are kept, a malformed result
/// is the tool's error.
pub(crate) fn call_answer(
    name: &str,
    reply: Result<Value, RpcError>,
) -> Result<ToolOutput, ToolError> {
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

/// The host's answer to `tools/approve` about `what` (`` `x` `` or `the
/// escalation`): approved only by `approved: true`; anything else refuses,
/// with the host's `reason`, else `refusal`, else what was wrong.
///
/// # Errors
/// The refusal's reason.
pub(crate) fn approval_answer(
    reply: Result<Value, RpcError>,
    what: &str,
    refusal: String,
) -> Result<(), String> {
    let answer = reply.map_err(|e| format!("the approval of {what} failed: {}", e.message))?;
    match answer.get("approved").and_then(Value::as_bool) {
        Some(true) => Ok(()),
        Some(false) => Err(answer
            .get("reason")
            .and_then(Value::as_str)
            .map_or(refusal, str::to_owned)),
        None => Err(format!(
            "the host's answer to the approval of {what} has no boolean `approved`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn image_blocks_are_checked() {
        let image = |data: &str, mime: &str| {
            call_answer(
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
