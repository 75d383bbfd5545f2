// Where the `ptc` binary is: `PTC_BINARY`, else the platform package npm
// installed beside this one (an optional dependency whose `os`/`cpu`/`libc`
// match).

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Environment } from "./types";

/** The npm scope of the platform packages (`@ptc/linux-x64-gnu`, …). */
export const PLATFORM_SCOPE = "@ptc";

/**
 * The platforms a package is published for: `${process.platform}-${process.arch}`,
 * and on Linux the C library the binary is built for (`-gnu`: glibc 2.17 or
 * later; `-musl`: a static binary, for Alpine and other musl systems).
 */
export const PLATFORMS: readonly string[] = [
  "linux-x64-gnu",
  "linux-x64-musl",
  "linux-arm64-gnu",
  "linux-arm64-musl",
  "darwin-x64",
  "darwin-arm64",
  "win32-x64",
];

/** A Linux machine's C library, as the platform packages name it. */
export type Libc = "gnu" | "musl";

/**
 * This machine's C library on Linux: Node reports the glibc version it runs
 * on, and reports none on musl.
 */
export function linuxLibc(): Libc {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return report.header?.glibcVersionRuntime === undefined ? "musl" : "gnu";
}

/** The platform package's name for a machine (this one by default), e.g. `@ptc/linux-x64-gnu`. */
export function platformPackage(
  platform: string = process.platform,
  arch: string = process.arch,
  libc: Libc | undefined = platform === "linux" ? linuxLibc() : undefined,
): string {
  const suffix = platform === "linux" ? `-${libc ?? "gnu"}` : "";
  return `${PLATFORM_SCOPE}/${platform}-${arch}${suffix}`;
}

/** Raised when no `ptc` binary can be found for this machine. */
export class BinaryNotFoundError extends Error {
  override name = "BinaryNotFoundError";
}

/**
 * The path of the `ptc` binary: the `PTC_BINARY` environment variable when
 * set (it must name an existing file), else the binary of the platform
 * package for this machine.
 *
 * @throws {BinaryNotFoundError} neither is there; the message says what to do.
 */
export function findBinary(env: Environment = process.env): string {
  const fromEnv = env["PTC_BINARY"];
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!existsSync(fromEnv)) {
      throw new BinaryNotFoundError(`PTC_BINARY is set to ${fromEnv}, which does not exist`);
    }
    return fromEnv;
  }
  const pkg = platformPackage();
  const exe = process.platform === "win32" ? "ptc.exe" : "ptc";
  let manifest: string;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    const known = PLATFORMS.includes(pkg.slice(PLATFORM_SCOPE.length + 1))
      ? `npm did not install it (optional dependencies skipped, e.g. --omit=optional or --no-optional)`
      : `ptc publishes no binary for ${process.platform}-${process.arch}`;
    throw new BinaryNotFoundError(
      `the ptc binary for this machine (package ${pkg}) is not installed: ${known}; ` +
        `build ptc from source (\`cargo build --release\`) and set PTC_BINARY to the binary's path`,
    );
  }
  const binary = join(dirname(manifest), "bin", exe);
  if (!existsSync(binary)) {
    throw new BinaryNotFoundError(`${pkg} is installed but has no ${join("bin", exe)}; reinstall it`);
  }
  return binary;
}
