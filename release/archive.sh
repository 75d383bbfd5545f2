#!/usr/bin/env bash
# Packs a release binary as the archive `cargo binstall ptc` downloads
# (Cargo.toml, [package.metadata.binstall]): ptc-<target>.tar.gz holding
# ptc-<target>/ptc, to attach to the release v<version>. Then checks the
# archive against the metadata's templates, so the two cannot drift.
#
#   release/archive.sh target/release/ptc [TARGET] [OUT_DIR]
#
# TARGET defaults to this machine's (rustc -vV), OUT_DIR to target/release-archives.
# Prints the archive's path.
set -euo pipefail

usage() { echo "usage: release/archive.sh BINARY [TARGET] [OUT_DIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 3 ] || usage
binary=$1
repo="$(cd "$(dirname "$0")/.." && pwd)"
target=${2:-$(rustc -vV | sed -n 's/^host: //p')}
out=${3:-"$repo/target/release-archives"}
[ -f "$binary" ] && [ -x "$binary" ] || { echo "release/archive.sh: $binary is not an executable file" >&2; exit 2; }

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/ptc-$target" "$out"
cp "$binary" "$stage/ptc-$target/ptc"
archive="$out/ptc-$target.tar.gz"
tar -C "$stage" -czf "$archive" "ptc-$target"

# The metadata's templates, rendered for this archive: its name must end the
# download URL, and the binary must be where bin-dir says.
python3 - "$repo/Cargo.toml" "$archive" "$target" <<'PY'
import sys, tarfile, tomllib
manifest, archive, target = sys.argv[1:]
meta = tomllib.load(open(manifest, "rb"))["package"]["metadata"]["binstall"]
def render(template):
    for key, value in {"target": target, "bin": "ptc", "binary-ext": "", "archive-suffix": ".tar.gz"}.items():
        template = template.replace("{ %s }" % key, value)
    return template
url, bin_dir = render(meta["pkg-url"]), render(meta["bin-dir"])
name = archive.rsplit("/", 1)[-1]
assert meta["pkg-fmt"] == "tgz", meta["pkg-fmt"]
assert url.endswith("/" + name), f"pkg-url {url} does not name {name}"
members = tarfile.open(archive).getnames()
assert bin_dir in members, f"bin-dir {bin_dir} is not in the archive: {members}"
PY
echo "$archive"
