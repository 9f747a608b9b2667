#!/usr/bin/env bash
# Packages kgateway's Helm charts from its pinned Go module, collects the Gateway API CRDs kgateway
# needs, and (with --controller) builds kgateway's controller, ./cmd/kgateway, once per machine and
# version. Nothing of it is committed.
#
#   bash test/env/build-kgateway.sh [--controller] [VERSION...]   (default: every pinned version)
#
# The pinned versions are the wrapper modules under test/env/kgateway/<version>/ (v2.4.2, the newest
# line the Go module proxy serves that this Go builds, and v2.3.6, the oldest supported line). Only the
# newest's controller is built (the callers pass --controller with that version: test/env/binaries.ts
# KGATEWAY_CONTROLLER_VERSION, scripts/test-lanes.ts, .ci/run); the others are charts only. They live
# outside test/env/tools/ on purpose: the control
# plane's cache key hashes every test/env/tools/*/go.mod, and a kgateway bump must not rebuild Kubernetes.
# Each wrapper's go.sum pins the h1: sums of kgateway's module and of everything it builds from, so
# `go` refuses a module that changed; Gateway API's CRDs come from the gateway-api module version the
# same build selects (the version the controller is compiled against).
#
# kgateway's charts are plain charts (no generator): its release runs `helm package --version $(VERSION)
# --app-version $(VERSION)` on install/helm/kgateway and install/helm/kgateway-crds (its Makefile,
# package-kgateway-charts), so the charts' own Chart.yaml versions (v0.0.1) never reach users. This
# does the same. pkg/kgateway/helm/envoy is the chart kgateway's deployer renders each Gateway's proxy
# from; it is packaged too, for unit tests that follow the deployer.
#
# The controller is built as kgateway's Makefile builds it (CGO_ENABLED=0, `-X .../pkg/version.Version`,
# `-s -w`), plus -trimpath and no DWARF from the compiler (see build-testbin.sh). The unit tests need
# only the charts (seconds), so the controller (~12-18 min cold on 2 cores) is built only on
# --controller.
#
# Output: $GLOOHA_TESTBIN_CACHE/../kgateway/<version>-<key>/ (default ~/.cache/glooha-operator/kgateway/):
#   kgateway-<v>.tgz  kgateway-crds-<v>.tgz  kgateway-proxy-<v>.tgz  gateway-api-<gwv>-standard.yaml
#   kgateway (the controller, with --controller)
# Each version's charts and controller are built under locks of their own, into temp names renamed
# when complete. Prints each
# version's directory on stdout (the last line is the last version's); progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KGATEWAY_MODULE=github.com/kgateway-dev/kgateway/v2
GATEWAY_API_MODULE=sigs.k8s.io/gateway-api

controller=0
versions=()
for a in "$@"; do
  case $a in
    --controller) controller=1 ;;
    v*) versions+=("$a") ;;
    *) echo "build-kgateway: unknown argument \"$a\" (usage: build-kgateway.sh [--controller] [VERSION...])" >&2; exit 2 ;;
  esac
done
pinned=()
for d in "$here"/kgateway/v*/; do pinned+=("$(basename "$d")"); done
[ "${#versions[@]}" -gt 0 ] || versions=("${pinned[@]}")
for v in "${versions[@]}"; do
  [ -f "$here/kgateway/$v/go.mod" ] || { echo "build-kgateway: kgateway $v is not pinned (pinned: ${pinned[*]})" >&2; exit 2; }
done

command -v go >/dev/null || { echo "build-kgateway: Go is needed to fetch kgateway's module" >&2; exit 1; }
command -v flock >/dev/null || { echo "build-kgateway: flock (util-linux) is needed" >&2; exit 1; }
# Helm only (build-helm.sh), never the control plane: the charts lane packages these charts too.
helm_dir=$(bash "$here/build-helm.sh" | tail -1)
helm="$helm_dir/helm"
[ -x "$helm" ] || { echo "build-kgateway: no helm in $helm_dir" >&2; exit 1; }
cache_root=${GLOOHA_TESTBIN_CACHE:-"$HOME/.cache/glooha-operator/testbin"}
root="$(dirname "$cache_root")/kgateway"
mkdir -p "$root"

export CGO_ENABLED=0
commands() { grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$'; }
build_version() { # version
  local v=$1 mod="$here/kgateway/$1" key out kgw gwapi gwv tmp t0
  # What decides the charts and the controller: the wrapper module, Go, Helm and this script's commands
  # (not its comments, so rewording them rebuilds nothing).
  key=$( { cat "$mod/go.mod" "$mod/go.sum"; go version; "$helm" version --short; commands "$0"; } | sha256sum | cut -c1-16)
  out="$root/$v-$key"
  # The module directories, checked against the wrapper's go.sum by `go` itself.
  (cd "$mod" && go mod download "$KGATEWAY_MODULE" "$GATEWAY_API_MODULE")
  kgw=$(cd "$mod" && go list -m -f '{{.Dir}}' "$KGATEWAY_MODULE")
  read -r gwv gwapi < <(cd "$mod" && go list -m -f '{{.Version}} {{.Dir}}' "$GATEWAY_API_MODULE")
  [ -d "$kgw" ] && [ -d "$gwapi" ] || { echo "build-kgateway: cannot find kgateway $v's modules" >&2; exit 1; }

  # Charts and controller under locks of their own: the unit tests' charts never wait for a compile.
  exec 8>"$root/.$v.charts.lock"
  flock 8
  if [ -d "$out" ]; then
    echo "build-kgateway: kgateway $v charts cached in $out" >&2
  else
    t0=$(date +%s)
    tmp=$(mktemp -d "$root/.build-XXXXXX")
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
    done >"$tmp/gateway-api-$gwv-standard.yaml"
    mv "$tmp" "$out"
    echo "build-kgateway: kgateway $v charts and Gateway API $gwv CRDs in $out ($(( $(date +%s) - t0 ))s)" >&2
  fi

  flock -u 8
  if [ "$controller" = 1 ]; then
    exec 9>"$root/.$v.controller.lock"
    flock 9
    if [ -x "$out/kgateway" ]; then
      echo "build-kgateway: kgateway $v controller cached in $out" >&2
    else
      t0=$(date +%s)
      echo "build-kgateway: building kgateway $v's controller ($KGATEWAY_MODULE/cmd/kgateway)" >&2
      rm -f "$out/.kgateway.tmp"
      (cd "$mod" && go build -trimpath -gcflags all=-dwarf=false \
        -ldflags "-s -w -X $KGATEWAY_MODULE/pkg/version.Version=$v" \
        -o "$out/.kgateway.tmp" "$KGATEWAY_MODULE/cmd/kgateway")
      mv "$out/.kgateway.tmp" "$out/kgateway"
      echo "build-kgateway: kgateway $v controller built in $(( $(date +%s) - t0 ))s into $out" >&2
    fi
    flock -u 9
  fi
  echo "$out"
}

for v in "${versions[@]}"; do build_version "$v"; done
