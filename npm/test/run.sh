#!/usr/bin/env bash
# The npm packages as a user gets them: packs them (npm/pack.sh), installs
# the two tarballs into an empty project with npm offline, then runs
# `npx ptc` and a host written against the library (npm/test/host.mts and,
# against a hostile fake ptc, npm/test/hostile.mts, compiled with tsc
# --strict against the installed .d.ts) and the examples of docs/node.md and
# npm/ptc/README.md; then compiles npm/test/no-node-types.mts without
# @types/node.
#
#   npm/test/run.sh target/release/ptc
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: npm/test/run.sh BINARY" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$(dirname "$here")")"
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
tsc="$repo/node_modules/.bin/tsc"   # the pinned one (npm/pack.sh installs it)

work=$(mktemp -d)
launcher=""
cleanup() {
  # A launcher left running by a failed check is stopped (it passes the signal on).
  if [ -n "$launcher" ]; then kill -TERM "$launcher" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# The launcher must find the platform package, not an override.
unset PTC_BINARY

mapfile -t tarballs < <("$here/../pack.sh" "$binary" "$work/tarballs")
[ ${#tarballs[@]} -eq 2 ] || { echo "npm/test: expected 2 tarballs, got: ${tarballs[*]}" >&2; exit 1; }
ls -l "${tarballs[@]}"

project="$work/project"
mkdir "$project"
cd "$project"
echo '{ "name": "npm-test", "private": true }' > package.json
# Offline, and with the npm cache in the scratch folder: nothing comes from a
# registry. The main package's optional dependencies for other platforms
# cannot be fetched and are skipped; this platform's is the tarball.
npm install --offline --cache "$work/npm-cache" --no-audit --no-fund --loglevel=error "${tarballs[@]}"

fail() { echo "npm/test: $*" >&2; exit 1; }
check() { # check NAME EXPECTED ACTUAL
  [ "$2" = "$3" ] || fail "$1: expected $(printf %q "$2"), got $(printf %q "$3")"
}

echo "== npx ptc"
check "npx ptc run -e" 42 "$(npx --offline ptc run -e 'return 6 * 7')"
check "npx ptc run - (stdin)" '[1,2]' "$(echo 'return [1, 2]' | npx --offline ptc run -)"
echo 'const entries = await tools.list_dir({ path: "." }); return entries.map((e) => e.name).includes("package.json")' > program.ts
check "npx ptc run FILE (workspace tools)" true "$(npx --offline ptc run program.ts)"
status=0
out=$(npx --offline ptc run -e 'throw new Error("boom")') || status=$?
check "exit status of a failed program" 1 "$status"
case "$out" in *boom*) ;; *) fail "a failed program's text: $out" ;; esac
status=0
npx --offline ptc run --timeout-ms 0 -e 'return 1' 2>/dev/null || status=$?
check "exit status of a usage error" 2 "$status"
check "npx ptc --version" "ptc $(node -p 'require("ptc/package.json").version')" "$(npx --offline ptc --version)"
PTC_BINARY="$work/nowhere" npx --offline ptc --version 2>"$work/stderr" && fail "PTC_BINARY to a missing file ran"
grep -q "PTC_BINARY is set to $work/nowhere, which does not exist" "$work/stderr" || fail "no clear error for a bad PTC_BINARY: $(cat "$work/stderr")"

echo "== a signal to the launcher reaches the binary"
node_modules/.bin/ptc run --timeout-ms 60000 -e 'while (true) {}' &
launcher=$!
binary_of_project="$project/node_modules/@ptc/.*/bin/ptc run"
for _ in $(seq 200); do pgrep -f "$binary_of_project" >/dev/null && break; sleep 0.05; done
pgrep -f "$binary_of_project" >/dev/null || fail "the binary did not start"
kill -TERM "$launcher"
status=0
wait "$launcher" || status=$?
launcher=""
check "status of a launcher killed by SIGTERM" 143 "$status"
if pgrep -f "$binary_of_project" >/dev/null; then fail "the binary outlived its launcher"; fi

echo "== the host library (tsc --strict, then node)"
# npm/test/host.mts and docs/node.md's example, as written: ES modules
# importing the CommonJS package by name, type-checked against its .d.ts.
cp "$here/host.mts" "$here/hostile.mts" .
first_ts_block() { awk '/^```ts$/ { on = 1; next } /^```$/ { if (on) exit } on' "$1"; }
first_ts_block "$repo/docs/node.md" > example.mts
first_ts_block "$repo/npm/ptc/README.md" > readme.mts
# The repository README's "From Node" section, as written.
awk '$0 == "### From Node" { s = 1; next } s && /^```ts$/ { on = 1; next } on && /^```$/ { exit } on' \
  "$repo/README.md" > main-readme.mts
grep -q "Ptc.start" main-readme.mts || fail "no example under the README's From Node"
grep -q "Ptc.start" example.mts || fail "no example in docs/node.md"
grep -q "Ptc.start" readme.mts || fail "no example in npm/ptc/README.md"
"$tsc" --strict --noEmitOnError --target ES2022 --module nodenext --moduleResolution nodenext \
  --typeRoots "$repo/node_modules/@types" --types node --outDir out host.mts hostile.mts example.mts readme.mts main-readme.mts
# The reading of ptc's output and of approvers' answers, piece by piece (the
# package's internal wire.js, by its path); then a fake ptc that writes what a
# broken or hostile one might; then the real one.
node "$here/wire.mjs" node_modules/ptc/dist/wire.js
node out/hostile.mjs "$here/fake-serve.mjs"
node out/host.mjs
node out/example.mjs > example.out || fail "docs/node.md's example failed"
tail -1 example.out | grep -q ' 4$' || fail "docs/node.md's example printed: $(cat example.out)"
node out/readme.mjs > readme.out || fail "npm/ptc/README.md's example failed"
head -1 readme.out | grep -q '^false {"city":"Paris","celsius":18}' || fail "npm/ptc/README.md's example printed: $(cat readme.out)"
node out/main-readme.mjs > main-readme.out || fail "the README's From Node example failed"
check "the README's From Node example" '{"city":"Paris","celsius":18}' "$(cat main-readme.out)"
# A script that never calls close() still ends, and ptc with it: neither an
# answered request, nor a refused one, nor an approval keeps Node running.
serve_of_project="$project/node_modules/@ptc/.*/bin/ptc serve"
out=$(timeout 20 node --input-type=module -e '
  import { Ptc } from "ptc";
  const ptc = await Ptc.start({ tools: [{ name: "add", policy: "ask", handler: ({ a, b }) => a + b }], approver: () => true });
  await ptc.runCode("return 1", { timeoutMs: 0 }).then(() => console.log("timeoutMs 0 was not refused"), () => {});
  console.log((await ptc.runCode("return await tools.add({ a: 1, b: 2 })")).text);') ||
  fail "a script without close() did not end by itself (status $?)"
check "a script without close()" 3 "$out"
for _ in $(seq 100); do pgrep -f "$serve_of_project" >/dev/null || break; sleep 0.1; done
if pgrep -f "$serve_of_project" >/dev/null; then fail "ptc serve outlived a script that ended without close()"; fi

echo "== the .d.ts without @types/node, and the platform package of each libc"
cp "$here/no-node-types.mts" .
cat > tsconfig.no-node.json <<'JSON'
{
  "compilerOptions": {
    "strict": true, "noEmit": true, "skipLibCheck": false, "exactOptionalPropertyTypes": true,
    "target": "ES2022", "lib": ["ES2022"], "types": [], "module": "nodenext", "moduleResolution": "nodenext"
  },
  "files": ["no-node-types.mts"]
}
JSON
"$tsc" -p tsconfig.no-node.json || fail "the package's types need @types/node"
check "this machine's platform package" "@ptc/linux-$(node -p process.arch)-gnu" "$(node -p 'require("ptc").platformPackage()')"
check "a musl machine's" "@ptc/linux-arm64-musl" "$(node -p 'require("ptc").platformPackage("linux", "arm64", "musl")')"
check "a Mac's" "@ptc/darwin-arm64" "$(node -p 'require("ptc").platformPackage("darwin", "arm64")')"
echo "npm/test: ok (${SECONDS} s)"
