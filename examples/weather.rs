//! ptc from Rust: one tool, what the model sees, and a program the model
//! might write, run. `cargo run --example weather`; the README shows this
//! file as it is.

use ptc::{
    Engine, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition, ToolError,
};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::new();
    registry.add(Tool::new(
        ToolDefinition::new("weather")
            .description("Current temperature of a city, in °C")
            .parameters(json!({
                "type": "object",
                "properties": { "city": { "type": "string" } },
                "required": ["city"]
            }))
            .read_only(true)
            // How calls read in events and approval prompts (never to the model).
            .call_title_template("Weather in {city}"),
        |args: Value, _cx: ToolContext| async move {
            Ok::<_, ToolError>(json!({ "city": args["city"], "celsius": 21 }))
        },
    ))?;
    let engine = Engine::new(registry, Limits::default())?;

    // What the model sees: the run_code tool, whose description carries the SDK.
    let presentation = engine.presentation(&engine.registry().scope(), None);
    let run_code = &presentation.tools[0];
    println!("{}", run_code.description.as_deref().unwrap_or_default());

    // What the model wrote: two calls side by side, one number back.
    let code = "const [a, b] = await Promise.all([
  tools.weather({ city: 'Oslo' }),
  tools.weather({ city: 'Lima' }),
])
return a.celsius - b.celsius";
    let outcome = engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await?;
    println!("{}", outcome.text());
    assert_eq!(outcome.text(), "0");
    Ok(())
}
