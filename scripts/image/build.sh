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

# The build's npm must trust what this machine's npm trusts (a TLS-intercepting proxy's CA, a private
# registry): the RUN steps get this machine's CA file and registry through bind mounts at npm's global
# config path. Bind mounts never enter a layer; check-image.ts checks that the image has neither file.
mounts=()
cafile=$(npm config get cafile 2>/dev/null || true)
[ -n "$cafile" ] && [ "$cafile" != null ] && [ "$cafile" != undefined ] || cafile=${NODE_EXTRA_CA_CERTS:-}
if [ -n "$cafile" ] && [ -f "$cafile" ]; then
  npmrc=$(mktemp)
  trap 'rm -f "$npmrc"' EXIT
  printf 'cafile=/usr/local/etc/build-ca.crt\nregistry=%s\n' "$(npm config get registry)" >"$npmrc"
  chmod 0644 "$npmrc"
  mounts=(--volume "$cafile:/usr/local/etc/build-ca.crt:ro" --volume "$npmrc:/usr/local/etc/npmrc:ro")
  echo "build-image: the RUN steps' npm trusts $cafile (bind-mounted, not in the image)" >&2
fi

echo "build-image: buildah bud --build-arg NODE_IMAGE=$base -t $image" >&2
buildah bud --layers --quiet "${mounts[@]}" --build-arg NODE_IMAGE="$base" -t "$image" -f "$repo/Dockerfile" "$repo" >&2
end=$(date +%s)
echo "build-image: base image $(( base_done - start ))s, Dockerfile $(( end - base_done ))s, total $(( end - start ))s" >&2
echo "$image"
