// Where the `ptc` binary is: `PTC_BINARY`, else the platform package npm
// installed beside this one (an optional dependency whose `os`/`cpu` match).

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/** The npm scope of the platform packages (`@ptc/linux-x64`, …). */
export const PLATFORM_SCOPE = "@ptc";

/** The platforms a package is published for, as `${process.platform}-${process.arch}`. */
export const PLATFORMS: readonly string[] = [
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
  "win32-x64",
];

/** The platform package's name for this machine, e.g. `@ptc/linux-x64`. */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `${PLATFORM_SCOPE}/${platform}-${arch}`;
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
export function findBinary(env: NodeJS.ProcessEnv = process.env): string {
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
    const known = PLATFORMS.includes(`${process.platform}-${process.arch}`)
      ? `npm did not install it (optional dependencies skipped, e.g. --omit=optional or --no-optional, or another libc than glibc)`
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
