#!/usr/bin/env bash
# Builds the project's own Dockerfile, unchanged, with buildah (no Docker engine, no daemon), on the
# offline base image from base-image.sh instead of node:26-trixie-slim (the only difference from the
# published image; see README.md, "Image").
#
#   bash scripts/image/build.sh            → prints the image name (localhost/glooha-operator:<version>-ci)
#
# Layers are cached in the image storage (scripts/image/env.sh): a rebuild with unchanged inputs only
# re-tags; a source change rebuilds from the `COPY src` step on. Needs root, buildah and debootstrap.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=env.sh
source "$here/env.sh"

start=$(date +%s)
base=$(bash "$here/base-image.sh" | tail -n 1)
base_done=$(date +%s)
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$repo/package.json" | head -n 1)
image="localhost/glooha-operator:$version-ci"

# The build's inputs: the Dockerfile, .dockerignore and what it lets into the context (package files,
# tsconfigs, scripts/{copy-assets,bundle,ascii-source}.mjs, src/ without tests), plus the base image. Unchanged inputs: the
# image built from them is reused as is (buildah's layer cache would still copy every stage's rootfs on
# vfs, minutes for nothing).
inputs=$(cd "$repo" && { echo "$base"; find Dockerfile .dockerignore package.json package-lock.json tsconfig.json \
  tsconfig.build.json scripts/copy-assets.mjs scripts/bundle.mjs scripts/ascii-source.mjs src -type f ! -name '*.test.ts' | LC_ALL=C sort | xargs sha256sum; } |
  sha256sum | cut -c1-12)
keyed="$image-$inputs"
if buildah inspect --type image "$keyed" >/dev/null 2>&1; then
  buildah tag "$keyed" "$image"
  echo "build-image: inputs unchanged, reusing $keyed ($(( $(date +%s) - start ))s)" >&2
  echo "$image"
  exit 0
fi

echo "build-image: buildah bud --build-arg NODE_IMAGE=$base -t $image" >&2
buildah bud --layers --quiet --build-arg NODE_IMAGE="$base" -t "$image" -t "$keyed" -f "$repo/Dockerfile" "$repo" >&2
# Keep the storage from growing with every source change: drop images nothing uses any more (earlier
# builds' layers, superseded base images); this build's layers stay as the next build's cache.
for old in $(buildah images --format '{{.Name}}:{{.Tag}}' |
  grep -E '^localhost/(glooha-node-base:|glooha-operator:.*-ci-)' | grep -vxF -e "$base" -e "$keyed" || true); do
  buildah rmi "$old" >/dev/null 2>&1 || true
done
buildah rmi --prune >/dev/null 2>&1 || true
end=$(date +%s)
echo "build-image: base image $(( base_done - start ))s, Dockerfile $(( end - base_done ))s, total $(( end - start ))s" >&2
echo "$image"
