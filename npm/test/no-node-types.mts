// A project without @types/node or the DOM library compiles against the
// package's .d.ts (npm/test/run.sh: tsc with `types: []` and `lib: ES2022`).
// Nothing here runs; every exported name a host uses is named once.

import {
  Ptc,
  linuxLibc,
  platformPackage,
  type Environment,
  type Libc,
  type ReadableStreamLike,
  type RunOptions,
  type Signal,
  type StartOptions,
  type ToolContext,
} from "ptc";

export async function host(signal: Signal, env: Environment): Promise<string> {
  const options: StartOptions = {
    env,
    stderr: "pipe",
    tools: [{ name: "aborted", handler: (_args: unknown, context: ToolContext) => context.signal.aborted }],
    approver: (_request, { signal: waiting }) => !waiting.aborted,
  };
  const ptc = await Ptc.start(options);
  const run: RunOptions = { signal, timeoutMs: 1000 };
  const outcome = await ptc.runCode("return await tools.aborted({})", run);
  const stderr: ReadableStreamLike | null = ptc.stderr;
  if (stderr !== null) for await (const _chunk of stderr) break;
  await ptc.invoke("aborted", {}, { signal });
  await ptc.close();
  const libc: Libc = linuxLibc();
  return `${outcome.text} ${platformPackage("linux", "x64", libc)}`;
}
