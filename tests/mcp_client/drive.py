"""Drives `ptc mcp` with the official MCP Python SDK, as a desktop client would.

Usage: python3 drive.py '<plan as JSON>'

The plan names the server, `{"stdio": {"command", "args", "cwd", "env"?}}`
(`env` added to the SDK's default environment) or
`{"http": URL, "token"?: str, "origin"?: str}`, and a `scenario`:

- `list`: the tools as the client sees them.
- `call`: one `tools/call` of `name` with `arguments`, with a progress
  callback; prints the result and the progress notifications.
- `cancel`: calls `run_code` with `code`, abandons the call at its first
  progress notification, or once the file `pidFile` names a process (a tool
  command that hangs), so the SDK sends `notifications/cancelled`; with
  `pidFile`, waits until that process is gone (ptc kills a cancelled
  command); then calls `run_code` again with `after` to show the server
  still answers.
- `elicit`: like `call`, answering each elicitation with `answer`
  (`accept`, `decline`, `cancel`; a list answers in turn, then declines),
  or declaring no elicitation at all when `answer` is absent. An accepted
  form sends `content` (by default empty: ptc's approval forms have no
  fields), after `answerDelay` seconds (by default none); with `after`,
  calls `run_code` with that code once the first call answered.

With `untilListed` (a list of strings), the scenario starts once the
tools listed mention every one of them (re-listed every 100 ms, for up to
30 s): `ptc mcp` answers at once and its upstream servers' tools join as
each is ready.

Prints one JSON object on stdout. Rust tests (tests/mcp_server.rs) run it.
"""

import json
import os
import sys
import time

try:
    import anyio
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.exceptions import MCPError
except ImportError as error:
    print(
        f"the MCP Python SDK is missing ({error}): run `pip install -r tests/mcp_client/requirements.txt`",
        file=sys.stderr,
    )
    sys.exit(3)


def server_of(plan):
    if "stdio" in plan:
        stdio = plan["stdio"]
        return StdioServerParameters(
            command=stdio["command"], args=stdio["args"], cwd=stdio.get("cwd"), env=stdio.get("env")
        )
    headers = {}
    if plan.get("token") is not None:
        headers["Authorization"] = f"Bearer {plan['token']}"
    if plan.get("origin") is not None:
        headers["Origin"] = plan["origin"]
    return streamable_http_client(plan["http"], http_client=create_mcp_http_client(headers=headers))


def result_json(result):
    return {
        "isError": result.is_error,
        "content": [block.model_dump(by_alias=True, exclude_none=True) for block in result.content],
        "structuredContent": result.structured_content,
    }


def tool_json(tool):
    return {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.input_schema,
        "outputSchema": tool.output_schema,
        "readOnlyHint": tool.annotations.read_only_hint if tool.annotations else None,
    }


async def scenario_list(client, plan):
    listed = await client.list_tools()
    return {
        "protocolVersion": client.protocol_version,
        "listChanged": bool(client.server_capabilities.tools and client.server_capabilities.tools.list_changed),
        "tools": [tool_json(tool) for tool in listed.tools],
    }


async def scenario_call(client, plan):
    progress = []

    async def on_progress(value, total, message):
        progress.append({"progress": value, "total": total, "message": message})

    started = time.monotonic()
    result = await client.call_tool(plan["name"], plan.get("arguments", {}), progress_callback=on_progress)
    output = {"result": result_json(result), "progress": progress, "seconds": time.monotonic() - started}
    if "after" in plan:
        after = await client.call_tool("run_code", {"code": plan["after"], "description": "after"})
        output["after"] = result_json(after)
    return output


async def scenario_cancel(client, plan):
    started = anyio.Event()
    outcome = {}

    async def on_progress(value, total, message):
        started.set()

    async def call():
        try:
            await client.call_tool("run_code", {"code": plan["code"], "description": "loops"}, progress_callback=on_progress)
            outcome["finished"] = True
        except anyio.get_cancelled_exc_class():
            outcome["abandoned"] = True
            raise

    pid_file = plan.get("pidFile")
    async with anyio.create_task_group() as group:
        group.start_soon(call)
        with anyio.fail_after(60):
            if pid_file is None:
                await started.wait()
            else:
                pid = await read_pid(pid_file)
        began = time.monotonic()
        group.cancel_scope.cancel()
    if pid_file is not None:
        with anyio.fail_after(60):
            while alive(pid):
                await anyio.sleep(0.02)
        outcome["childGone"] = True
    after = await client.call_tool("run_code", {"code": plan["after"], "description": "after"})
    outcome["after"] = result_json(after)
    outcome["afterSeconds"] = time.monotonic() - began
    return outcome


async def read_pid(path):
    while True:
        try:
            with open(path) as file:
                text = file.read().strip()
            if text:
                return int(text)
        except FileNotFoundError:
            pass
        await anyio.sleep(0.02)


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


async def scenario_elicit(client, plan):
    return await scenario_call(client, plan)


def elicitation_callback(plan, seen):
    answer = plan.get("answer")
    if answer is None:
        return None

    answers = list(answer) if isinstance(answer, list) else None

    async def on_elicit(context, params):
        seen.append({"message": params.message, "schema": params.requested_schema})
        current = answer
        if answers is not None:
            current = answers.pop(0) if answers else "decline"
        await anyio.sleep(plan.get("answerDelay", 0))
        if current == "accept":
            return types.ElicitResult(action="accept", content=plan.get("content", {}))
        return types.ElicitResult(action=current)

    return on_elicit


async def wait_listed(client, plan):
    wanted = plan.get("untilListed") or []
    deadline = time.monotonic() + 30
    while True:
        listed = json.dumps([tool_json(tool) for tool in (await client.list_tools()).tools])
        missing = [w for w in wanted if w not in listed]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"never listed: {missing}")
        await anyio.sleep(0.1)


async def main(plan):
    seen = []
    client = Client(server_of(plan), elicitation_callback=elicitation_callback(plan, seen), read_timeout_seconds=120)
    try:
        async with client:
            await wait_listed(client, plan)
            output = await SCENARIOS[plan["scenario"]](client, plan)
    except Exception as error:  # a refusal may come wrapped in task groups' exception groups
        mcp_error = next((e for e in causes(error) if isinstance(e, MCPError)), None)
        if mcp_error is not None:
            output = {"mcpError": {"code": mcp_error.code, "message": mcp_error.message}}
        else:
            output = {"failed": [f"{type(e).__name__}: {e}" for e in causes(error)]}
    if seen:
        output["elicitations"] = seen
    print(json.dumps(output))


def causes(error):
    """The error, the members of exception groups and the causes, depth first."""
    found = []
    stack = [error]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(getattr(current, "exceptions", []))
        if current.__cause__ is not None:
            stack.append(current.__cause__)
    return found


SCENARIOS = {
    "list": scenario_list,
    "call": scenario_call,
    "cancel": scenario_cancel,
    "elicit": scenario_elicit,
}

if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]))
