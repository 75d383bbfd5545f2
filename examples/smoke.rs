use ptc::*;
use serde_json::{Value, json};

#[tokio::main]
async fn main() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("echo").read_only(true),
        |a: Value, _c: ToolContext| async move { Ok::<_, ToolError>(a) },
    ))
    .unwrap();
    r.add(Tool::new(
        ToolDefinition::new("sleep").read_only(true),
        |a: Value, _c: ToolContext| async move {
            tokio::time::sleep(std::time::Duration::from_millis(
                a["ms"].as_u64().unwrap_or(1),
            ))
            .await;
            Ok::<_, ToolError>(json!(null))
        },
    ))
    .unwrap();
    let e = Engine::new(r, Limits::default()).unwrap();
    for code in [
        "return 1",
        "const x: number = 2; console.log('hi', {a: 1}); return x * 21",
        "return (await tools.echo({ value: 5 })).value",
        "await tools.sleep({ms: 5}); return 'slept'",
        "let s = 0; for (let i = 0; i < 1000; i++) { s += (await tools.echo({ value: i })).value } return s",
        "throw new Error('boom')",
        "\n\nnull.x",
        "return (1 +",
        "enum A { B }",
        "try { await tools.nope() } catch (e) { return e.code + ' ' + e.message }",
        "tools.sleep({ms: 100}); return 'forgot'",
        "await new Promise(r => setTimeout(r, 10)); return 'timer'",
        "while(true){}",
        "const a = []; try { while (true) a.push(new Array(100000).fill(1)) } catch (e) { return 'caught ' + e }",
        "return await tools.echo({x: NaN})",
        "Promise.reject(new Error('lost')); return 2",
        "await new Promise(() => {})",
    ] {
        let t = std::time::Instant::now();
        let o = e
            .run_code(
                RunRequest::new(code).timeout_ms(2000),
                RunOptions::default(),
            )
            .await
            .unwrap();
        println!(
            "--- {code:?} [{:?}] kind={:?} subcalls={}\n{}",
            t.elapsed(),
            o.kind,
            o.sub_calls,
            o.text()
        );
    }
}
