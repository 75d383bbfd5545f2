#!/usr/bin/env bash
# Packs ptc for npm: the main package `ptc` (launcher + host library, compiled
# from npm/ptc/src with the repository's tsc) and the platform package of this
# machine (`@ptc/<platform>-<arch>`, holding the given binary).
#
#   npm/pack.sh target/release/ptc [OUT_DIR]     # OUT_DIR defaults to target/npm
#
# Prints the two tarballs' paths, one a line (main package first).
set -euo pipefail

usage() { echo "usage: npm/pack.sh BINARY [OUT_DIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
binary=$1
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
out=${2:-"$repo/target/npm"}
tsc=${PTC_TSC:-"$repo/node_modules/.bin/tsc"}

[ -f "$binary" ] && [ -x "$binary" ] || { echo "npm/pack.sh: $binary is not an executable file" >&2; exit 2; }
[ -x "$tsc" ] || { echo "npm/pack.sh: no tsc at $tsc (run npm ci at the repository root, or set PTC_TSC)" >&2; exit 2; }

# One version everywhere: Cargo.toml, the binary, the main package and its
# optional dependencies; one platform list: binary.ts and optionalDependencies.
cargo_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)
binary_version=$("$binary" --version | awk '{print $2}')
platform=$(node -p 'process.platform + "-" + process.arch')
node - "$here/ptc" "$cargo_version" "$binary_version" "$platform" <<'EOF'
const [dir, cargo, binary, platform] = process.argv.slice(2);
const fs = require("fs");
const pkg = JSON.parse(fs.readFileSync(`${dir}/package.json`, "utf8"));
const fail = (message) => { console.error(`npm/pack.sh: ${message}`); process.exit(2); };
if (pkg.version !== cargo) fail(`npm/ptc/package.json has version ${pkg.version}, Cargo.toml ${cargo}`);
if (binary !== cargo) fail(`the binary says version ${binary}, Cargo.toml ${cargo}`);
const source = fs.readFileSync(`${dir}/src/binary.ts`, "utf8");
const scope = /PLATFORM_SCOPE = "([^"]+)"/.exec(source)[1];
const listed = /PLATFORMS[^=]*= \[([^\]]*)\]/.exec(source)[1].match(/"[^"]+"/g).map((s) => `${scope}/${JSON.parse(s)}`);
const deps = pkg.optionalDependencies;
if (JSON.stringify(Object.keys(deps).sort()) !== JSON.stringify(listed.sort())) {
  fail(`optionalDependencies (${Object.keys(deps)}) differ from binary.ts's PLATFORMS (${listed})`);
}
for (const [name, version] of Object.entries(deps)) {
  if (version !== cargo) fail(`optionalDependencies.${name} is ${version}, not ${cargo}`);
}
if (!listed.includes(`${scope}/${platform}`)) fail(`${platform} is not one of the platforms in binary.ts`);
EOF

libc=""
if [ "$(uname -s)" = Linux ]; then
  if getconf GNU_LIBC_VERSION >/dev/null 2>&1; then
    libc='"libc": ["glibc"],'
  else
    echo "npm/pack.sh: only glibc Linux builds are packed (the platform packages declare libc glibc)" >&2
    exit 2
  fi
fi
os=${platform%-*}
cpu=${platform#*-}
exe=ptc
[ "$os" = win32 ] && exe=ptc.exe

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/main" "$stage/platform/bin"

# The main package.
cp "$here/ptc/package.json" "$here/ptc/README.md" "$stage/main/"
"$tsc" -p "$here/ptc/tsconfig.json" --outDir "$stage/main/dist"
chmod +x "$stage/main/dist/cli.js"

# The platform package.
cp "$binary" "$stage/platform/bin/$exe"
chmod 755 "$stage/platform/bin/$exe"
cat > "$stage/platform/package.json" <<EOF
{
  "name": "@ptc/$platform",
  "version": "$cargo_version",
  "description": "The ptc binary for $platform; installed by the \`ptc\` package, not meant to be used alone.",
  "license": "MIT OR Apache-2.0",
  "os": ["$os"],
  "cpu": ["$cpu"],
  $libc
  "files": ["bin/$exe"],
  "preferUnplugged": true
}
EOF
printf '# @ptc/%s\n\nThe `ptc` binary for %s, installed by the [`ptc`](https://www.npmjs.com/package/ptc) package as an optional dependency. Install `ptc`, not this.\n' \
  "$platform" "$platform" > "$stage/platform/README.md"

for dir in main platform; do
  npm pack --json --loglevel=error --pack-destination "$out" "$stage/$dir" |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(process.argv[1] + "/" + JSON.parse(s)[0].filename))' "$out"
done
