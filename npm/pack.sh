#!/usr/bin/env bash
# Packs ptc for npm: the main package `ptc` (launcher + host library, compiled
# from npm/ptc/src with the TypeScript the repository pins) and the platform
# package of the given binary (`@ptc/<platform>-<arch>[-<libc>]`). A Linux
# binary's platform is read from the binary itself (its machine, and glibc's
# or musl's loader, or none: a static musl build), so cross-built binaries
# pack on any machine; another binary packs as this machine's platform.
#
#   npm/pack.sh target/x86_64-unknown-linux-gnu/release/ptc [OUT_DIR]   # OUT_DIR defaults to target/npm
#
# Prints the two tarballs' paths, one a line (main package first).
set -euo pipefail

usage() { echo "usage: npm/pack.sh BINARY [OUT_DIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
binary=$1
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
out=${2:-"$repo/target/npm"}

[ -f "$binary" ] && [ -x "$binary" ] || { echo "npm/pack.sh: $binary is not an executable file" >&2; exit 2; }

# The TypeScript of the repository's package-lock.json, whatever else is
# installed: another major version emits other JavaScript and .d.ts.
tsc="$repo/node_modules/.bin/tsc"
pinned=$(node -p 'require(process.argv[1]).devDependencies.typescript' "$repo/package.json")
if [ ! -x "$tsc" ] || [ "$("$tsc" --version)" != "Version $pinned" ]; then
  echo "npm/pack.sh: installing the pinned TypeScript $pinned (npm ci at the repository root)" >&2
  (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
[ "$("$tsc" --version)" = "Version $pinned" ] || { echo "npm/pack.sh: $tsc is not TypeScript $pinned" >&2; exit 2; }

# One version everywhere: Cargo.toml, the binary, the main package and its
# optional dependencies; one platform list: binary.ts and optionalDependencies.
cargo_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)
repository=$(sed -n 's/^repository = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)
# The binary's platform. Its version is asked only of a binary this machine runs.
libc=""
if machine=$(readelf -h "$binary" 2>/dev/null | sed -n 's/^ *Machine: *//p') && [ -n "$machine" ]; then
  case $machine in
  *X86-64) cpu=x64 ;;
  AArch64) cpu=arm64 ;;
  *) echo "npm/pack.sh: $binary is for $machine, for which no package is published" >&2; exit 2 ;;
  esac
  loader=$(readelf -l "$binary" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
  case $loader in
  */ld-linux*) libc=gnu ;;
  */ld-musl*) libc=musl ;;
  "") readelf -d "$binary" | grep -q '(NEEDED)' || libc=musl ;;
  esac
  [ -n "$libc" ] || { echo "npm/pack.sh: $binary loads through ${loader:-no loader, with shared libraries}, neither glibc's nor musl's" >&2; exit 2; }
  os=linux
  platform="linux-$cpu-$libc"
else
  os=$(node -p 'process.platform')
  cpu=$(node -p 'process.arch')
  platform="$os-$cpu"
fi
if [ "$os-$cpu" = "$(node -p 'process.platform + "-" + process.arch')" ]; then
  binary_version=$("$binary" --version | awk '{print $2}')
else
  binary_version=$cargo_version   # a cross build, which this machine cannot run
fi
node - "$here/ptc" "$cargo_version" "$binary_version" "$platform" "$repository" <<'EOF'
const [dir, cargo, binary, platform, repository] = process.argv.slice(2);
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
// Where the package comes from: Cargo.toml's repository, the one place it is written.
if (!/^https:\/\/\S+[^/]$/.test(repository)) fail(`Cargo.toml's repository is "${repository}", not a https URL`);
const expected = { repository: { type: "git", url: `git+${repository}.git` }, homepage: `${repository}#readme`, bugs: { url: `${repository}/issues` } };
for (const [key, value] of Object.entries(expected)) {
  if (JSON.stringify(pkg[key]) !== JSON.stringify(value)) {
    fail(`npm/ptc/package.json's ${key} is ${JSON.stringify(pkg[key])}, not ${JSON.stringify(value)} (from Cargo.toml's repository)`);
  }
}
EOF

libc_field=""
case $libc in
gnu) libc_field='"libc": ["glibc"],' ;;
musl) libc_field='"libc": ["musl"],' ;;
esac
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
  "repository": { "type": "git", "url": "git+$repository.git" },
  "os": ["$os"],
  "cpu": ["$cpu"],
  $libc_field
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
