#!/usr/bin/env bash
# Builds ptc for one Linux target as users install it, and checks each piece
# for what it promises (docs/python.md and docs/node.md, "Platforms"):
#
#   - the wheel, by maturin with zig as the linker: against glibc 2.17
#     (`manylinux2014`: RHEL 7 and later, Debian 9, Ubuntu 18.04, Amazon
#     Linux 2) or statically against musl (`musllinux_1_2`: Alpine);
#     checked: its tag, its name and links, the binary's highest `GLIBC_`
#     symbol version (gnu) or that it loads no library at all (musl), and a
#     program run on it where this machine can run the target;
#   - the npm platform package of the same binary (npm/pack.sh), its
#     `os`/`cpu`/`libc`;
#   - the `cargo binstall` archive (release/archive.sh).
#
#   release/build.sh TARGET [OUT_DIR]      # OUT_DIR defaults to target/dist/TARGET
#
# TARGET is x86_64- or aarch64-unknown-linux-gnu or -musl; its standard
# library comes from `rustup target add TARGET`. PYTHON (default python3)
# is an interpreter with maturin and ziglang (python/requirements-ci.txt).
# The binary is target/TARGET/release/ptc. Prints the wheel's path, the two
# npm tarballs' and the archive's, one a line.
set -euo pipefail

usage() { echo "usage: release/build.sh TARGET [OUT_DIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
target=$1
repo="$(cd "$(dirname "$0")/.." && pwd)"
out=${2:-"$repo/target/dist/$target"}
python=${PYTHON:-python3}
fail() { echo "release/build.sh: $*" >&2; exit 1; }

case $target in
x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu) libc=gnu policy=manylinux2014 ;;
x86_64-unknown-linux-musl | aarch64-unknown-linux-musl) libc=musl policy=musllinux_1_2 ;;
*) echo "release/build.sh: no build for $target (x86_64/aarch64, -unknown-linux-gnu/-musl)" >&2; exit 2 ;;
esac
arch=${target%%-*}
case $arch in x86_64) elf_machine="X86-64" npm_cpu=x64 ;; aarch64) elf_machine="AArch64" npm_cpu=arm64 ;; esac
# The oldest glibc the gnu builds ask for: manylinux2014's, and Rust's own floor.
glibc_floor=2.17

rustup target list --installed | grep -qx "$target" || {
  echo "release/build.sh: installing the standard library for $target" >&2
  rustup target add "$target" >&2
}
rm -rf "$out"
mkdir -p "$out/wheels"

# maturin finds zig as `python -m ziglang` of the interpreter on PATH.
PATH="$(dirname "$(command -v "$python")"):$PATH"
(cd "$repo/python" && "$python" -m maturin build --release --locked --ignore-rust-version \
  --zig --target "$target" --compatibility "$policy" --out "$out/wheels") >&2
binary="$repo/target/$target/release/ptc"

# The wheel: one, tagged for the policy and the architecture, for every Python.
wheels=("$out"/wheels/*.whl)
[ ${#wheels[@]} -eq 1 ] || fail "expected one wheel, got: ${wheels[*]}"
wheel=${wheels[0]}
case $policy in
manylinux2014) tag="manylinux2014_${arch}.manylinux_2_17_${arch}" ;;
musllinux_1_2) tag="musllinux_1_2_${arch}" ;;
esac
case $(basename "$wheel") in
ptc_runtime-*-py3-none-"$tag".whl) ;;
*) fail "the wheel $(basename "$wheel") is not ptc_runtime-…-py3-none-$tag.whl" ;;
esac
repository=$(sed -n 's/^repository = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)
"$python" - "$wheel" "$repository" <<'PY' || fail "the wheel's metadata"
import sys, zipfile
wheel, repository = sys.argv[1:]
archive = zipfile.ZipFile(wheel)
metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
lines = archive.read(metadata).decode().splitlines()
assert "Name: ptc-runtime" in lines, "no Name: ptc-runtime"
for url in (f"Repository, {repository}", f"Issues, {repository}/issues"):
    assert f"Project-URL: {url}" in lines, f"no Project-URL: {url}"
assert any(n.endswith(".data/scripts/ptc") for n in archive.namelist()), "no ptc script"
PY

# The wheel with its `[python]` extra resolves for its platform, as pip on
# such a system would (from PyPI: Monty's worker is published for glibc 2.28
# and musl 1.1; manylinux2014 alone gets the TypeScript-only wheel).
case $libc in
gnu) platforms=("manylinux_2_28_$arch" "manylinux2014_$arch") ;;
musl) platforms=("musllinux_1_2_$arch" "musllinux_1_1_$arch") ;;
esac
"$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --python-version 3.10 \
  "${platforms[@]/#/--platform=}" --dest "$out/resolved" "$wheel[python]" >&2 ||
  fail "pip cannot install $(basename "$wheel")[python] on ${platforms[0]}"
ls "$out"/resolved/pydantic_monty_runtime-*.whl >/dev/null 2>&1 || fail "no Monty worker resolved for ${platforms[0]}"
rm -rf "$out/resolved"

# The binary: the target's machine, and what it asks of the system's C library.
[ "$(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')" != "" ] || fail "$binary is no ELF file"
readelf -h "$binary" | grep -q "Machine: .*$elf_machine" || fail "$binary is not for $elf_machine"
if [ $libc = gnu ]; then
  # The highest GLIBC_x.y any symbol is bound to (readelf's version needs).
  highest=$(readelf -W --version-info "$binary" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
  [ -n "$highest" ] || fail "$binary binds no GLIBC_ symbol version"
  [ "$(printf '%s\n%s\n' "$highest" "$glibc_floor" | sort -V | tail -1)" = "$glibc_floor" ] ||
    fail "$binary needs glibc $highest, past $glibc_floor"
  echo "release/build.sh: $target needs glibc $highest at most" >&2
else
  if readelf -l "$binary" | grep -q 'program interpreter' || readelf -d "$binary" | grep -q '(NEEDED)'; then
    fail "$binary is not static: $(readelf -d "$binary" | grep '(NEEDED)' | tr -s ' ')"
  fi
fi

# A program on it, where this machine runs the target (natively, or a musl
# build anywhere on this architecture; qemu-user for another one).
runner=()
if [ "$arch" != "$(uname -m)" ]; then
  if command -v "qemu-$arch" >/dev/null; then runner=("qemu-$arch" -L "/usr/$arch-linux-gnu"); else runner=(skip); fi
fi
if [ "${runner[0]:-}" = skip ]; then
  echo "release/build.sh: no qemu-$arch here, so no program was run on $target" >&2
else
  answer=$("${runner[@]}" "$binary" run -e 'const sum = [1, 2, 3].reduce((a, b) => a + b, 0); return { sum, target: "'"$target"'" }')
  [ "$answer" = '{"sum":6,"target":"'"$target"'"}' ] || fail "$target ran a program as: $answer"
fi

# The npm platform package of this binary (and the main package beside it).
mapfile -t tarballs < <("$repo/npm/pack.sh" "$binary" "$out/npm")
[ ${#tarballs[@]} -eq 2 ] || fail "npm/pack.sh made: ${tarballs[*]}"
platform_json=$(tar -xOzf "${tarballs[1]}" package/package.json)
node -e '
  const [json, name, cpu, libc] = process.argv.slice(1);
  const pkg = JSON.parse(json);
  const want = { name, os: ["linux"], cpu: [cpu], libc: [libc] };
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(pkg[key]) !== JSON.stringify(value)) throw new Error(`${key} is ${JSON.stringify(pkg[key])}, not ${JSON.stringify(value)}`);
  }' "$platform_json" "@ptc/linux-$npm_cpu-$libc" "$npm_cpu" "$([ $libc = gnu ] && echo glibc || echo musl)" ||
  fail "the npm platform package of $target"

archive=$("$repo/release/archive.sh" "$binary" "$target" "$out")
printf '%s\n' "$wheel" "${tarballs[@]}" "$archive"
