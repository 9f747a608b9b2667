#!/usr/bin/env bash
# Packages kgateway's Helm charts from its pinned Go module, and collects the Gateway API CRDs kgateway
# needs from theirs, once per machine. Nothing of it is committed.
#
# kgateway's charts are plain charts (no generator): its release runs `helm package --version $(VERSION)
# --app-version $(VERSION)` on install/helm/kgateway and install/helm/kgateway-crds (its Makefile,
# package-kgateway-charts), so the charts' own Chart.yaml versions (v0.0.1) never reach users. This
# does the same. pkg/kgateway/helm/envoy is the chart kgateway's deployer renders each Gateway's proxy
# from; it is packaged too, for tests that follow the deployer.
#
# The modules come from the Go module proxy and are checked against the h1: sums pinned below (the
# same hash go.sum would hold), so a changed module cannot slip in.
#
# Output: $GLOOHA_TESTBIN_CACHE/../kgateway/<key>/ (default ~/.cache/glooha-operator/kgateway/<key>/):
#   kgateway-<v>.tgz  kgateway-crds-<v>.tgz  kgateway-proxy-<v>.tgz (the deployer's chart, pkg/kgateway/helm/envoy)  gateway-api-<v>-standard.yaml
# Prints the directory on stdout (last line); progress goes to stderr.
set -euo pipefail

KGATEWAY_MODULE=github.com/kgateway-dev/kgateway/v2
KGATEWAY_VERSION=v2.2.0
KGATEWAY_SUM='h1:0g/OevXOJVJCNl64Ph6s2C6+NI4uo0JgPN8+pcOyh/o='
# The Gateway API version kgateway v2.2.0's go.mod requires.
GATEWAY_API_MODULE=sigs.k8s.io/gateway-api
GATEWAY_API_VERSION=v1.4.1
GATEWAY_API_SUM='h1:NPxFutNkKNa8UfLd2CMlEuhIPMQgDQ6DXNKG9sHbJU8='

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v go >/dev/null || { echo "build-kgateway: Go is needed to fetch kgateway's module" >&2; exit 1; }
testbin=$(bash "$here/build-testbin.sh" | tail -1)
helm="$testbin/helm"
[ -x "$helm" ] || { echo "build-kgateway: no helm in $testbin" >&2; exit 1; }

cache_root=${GLOOHA_TESTBIN_CACHE:-"$HOME/.cache/glooha-operator/testbin"}
key=$( { cat "$0"; "$helm" version --short; } | sha256sum | cut -c1-16)
out="$(dirname "$cache_root")/kgateway/$key"
v=$KGATEWAY_VERSION
files=("kgateway-$v.tgz" "kgateway-crds-$v.tgz" "kgateway-proxy-$v.tgz" "gateway-api-$GATEWAY_API_VERSION-standard.yaml")
complete=1
for f in "${files[@]}"; do [ -f "$out/$f" ] || complete=0; done
if [ "$complete" = 1 ]; then
  echo "build-kgateway: cached in $out" >&2
  echo "$out"
  exit 0
fi

# The module's directory in the module cache, after checking its hash against the pinned one.
module_dir() { # module version sum
  local json dir sum
  json=$(cd / && GOFLAGS=-mod=mod go mod download -json "$1@$2")
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
  sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$json")
  [ "$sum" = "$3" ] || { echo "build-kgateway: $1@$2 has sum $sum, not the pinned $3" >&2; exit 1; }
  echo "$dir"
}

t0=$(date +%s)
kgw=$(module_dir "$KGATEWAY_MODULE" "$KGATEWAY_VERSION" "$KGATEWAY_SUM")
gwapi=$(module_dir "$GATEWAY_API_MODULE" "$GATEWAY_API_VERSION" "$GATEWAY_API_SUM")

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$(dirname "$out")/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The module cache is read-only: package from a copy.
for chart in install/helm/kgateway install/helm/kgateway-crds pkg/kgateway/helm/envoy; do
  cp -R "$kgw/$chart" "$tmp/src-$(basename "$chart")"
  chmod -R u+w "$tmp/src-$(basename "$chart")"
done
for chart in kgateway kgateway-crds envoy; do
  "$helm" package --version "$v" --app-version "$v" --destination "$tmp" "$tmp/src-$chart" >&2
done
rm -rf "$tmp"/src-*
# Gateway API's standard channel, as its release's standard-install.yaml bundles it.
for f in "$gwapi"/config/crd/standard/gateway.networking.k8s.io_*.yaml; do
  printf -- '---\n'
  cat "$f"
done >"$tmp/gateway-api-$GATEWAY_API_VERSION-standard.yaml"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "build-kgateway: kgateway $v charts and Gateway API $GATEWAY_API_VERSION CRDs in $out ($(( $(date +%s) - t0 ))s)" >&2
echo "$out"
