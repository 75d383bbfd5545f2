//! Handlers: the code behind a tool, three ways (raw closure, trait object,
//! typed trait), one runtime shape.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::definition::ToolDefinition;
use crate::contract::call::{ErrorCode, ToolError, ToolOutput, ToolResult};
use crate::tool::context::ToolContext;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The code behind a tool. Implemented for closures
/// `Fn(Value, ToolContext) -> impl Future<Output = Result<impl Into<ToolOutput>, impl Into<ToolError>>>`.
///
/// A handler receives validated arguments and a [`ToolContext`] whose
/// cancellation signal it must observe.
pub trait ToolHandler: Send + Sync + 'static {
    /// Starts one call.
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<ToolResult>;
}

impl<F, Fut, O, E> ToolHandler for F
where
    F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, E>> + Send + 'static,
    O: Into<ToolOutput>,
    E: Into<ToolError>,
{
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<ToolResult> {
        let fut = self(arguments, cx);
        Box::pin(async move { fut.await.map(Into::into).map_err(Into::into) })
    }
}

/// A tool whose parameters and output are Rust types; their JSON Schemas are
/// derived with `schemars`.
///
/// ```
/// use ptc::{Tool, ToolContext, ToolDefinition, ToolError, TypedTool};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddParams { a: i64, b: i64 }
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: i64 }
///
/// struct Add;
/// impl TypedTool for Add {
///     type Params = AddParams;
///     type Output = Sum;
///     fn definition(&self) -> ToolDefinition {
///         ToolDefinition::new("add").description("Adds two integers").read_only(true)
///     }
///     async fn call(&self, p: AddParams, _cx: ToolContext) -> Result<Sum, ToolError> {
///         Ok(Sum { sum: p.a + p.b })
///     }
/// }
/// let tool = Tool::typed(Add);
/// assert_eq!(tool.definition().parameters["required"], serde_json::json!(["a", "b"]));
/// ```
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments, deserialized from the validated JSON object.
    type Params: DeserializeOwned + JsonSchema + Send;
    /// The value returned to the program.
    type Output: Serialize + JsonSchema;

    /// Name, description and hints; `parameters` and `output` are replaced
    /// by the schemas of [`Params`](Self::Params) and [`Output`](Self::Output).
    fn definition(&self) -> ToolDefinition;

    /// Runs one call.
    fn call(
        &self,
        params: Self::Params,
        cx: ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

struct TypedHandler<T>(Arc<T>);

impl<T: TypedTool> ToolHandler for TypedHandler<T> {
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<ToolResult> {
        let tool = Arc::clone(&self.0);
        Box::pin(async move {
            let params: T::Params = serde_json::from_value(arguments).map_err(|e| {
                ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!("invalid arguments: {e}"),
                )
            })?;
            let output = tool.call(params, cx).await?;
            let value = serde_json::to_value(output)
                .map_err(|e| ToolError::tool(format!("output is not JSON: {e}")))?;
            Ok(ToolOutput::new(value))
        })
    }
}

/// `T`'s JSON Schema as a tool shows it: one schema without the `$schema`
/// and `title` schemars adds (the title is the Rust type's name: noise for
/// the model). `contract` says whether it describes what is read (the
/// parameters) or what is written (the output, where an `Option` member
/// that is always serialized is required, as a value or `null`).
fn schema_value<T: JsonSchema>(contract: Contract) -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.contract = contract;
    let mut value = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(map) = &mut value {
        map.remove("title");
    }
    value
}

/// A definition paired with its handler: what a registry holds.
#[derive(Clone)]
pub struct Tool {
    pub(crate) definition: ToolDefinition,
    pub(crate) handler: Arc<dyn ToolHandler>,
}

impl Tool {
    /// A tool from a definition and any handler (closures included).
    pub fn new(definition: ToolDefinition, handler: impl ToolHandler) -> Self {
        Self {
            definition,
            handler: Arc::new(handler),
        }
    }

    /// A tool from a definition and a shared handler.
    pub fn from_arc(definition: ToolDefinition, handler: Arc<dyn ToolHandler>) -> Self {
        Self {
            definition,
            handler,
        }
    }

    /// A typed tool; its schemas come from its Rust types (without the
    /// `$schema` and `title` schemars adds; the output's as it is
    /// serialized).
    pub fn typed<T: TypedTool>(tool: T) -> Self {
        let mut definition = tool.definition();
        definition.parameters = schema_value::<T::Params>(Contract::Deserialize);
        definition.output = Some(schema_value::<T::Output>(Contract::Serialize));
        Self {
            definition,
            handler: Arc::new(TypedHandler(Arc::new(tool))),
        }
    }

    /// The tool's definition.
    pub fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}
