#!/usr/bin/env node
// `npx ptc …`: runs the platform package's binary with the same arguments,
// stdin, stdout and stderr, and exits as it exits.

import { spawn } from "node:child_process";
import { BinaryNotFoundError, findBinary } from "./binary";

function main(): void {
  let binary: string;
  try {
    binary = findBinary();
  } catch (error) {
    if (error instanceof BinaryNotFoundError) {
      process.stderr.write(`ptc: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  // A terminal's Ctrl-C reaches the whole process group, the child included;
  // signals sent to this process alone are passed on.
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) process.on(signal, forward);
  child.on("error", (error) => {
    process.stderr.write(`ptc: cannot start ${binary}: ${error.message}\n`);
    process.exit(2);
  });
  child.on("exit", (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (signal !== null) {
      // Die of the same signal, so the caller sees what the shell would.
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

main();
