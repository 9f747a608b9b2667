#!/usr/bin/env bash
# Builds the Go tools CI runs from the pinned wrapper modules under tools/, once per machine: the linters
# (actionlint, kube-score, promtool) and the health-semantics judges (kstatus: sigs.k8s.io/cli-utils'
# verdict; argo-health: Argo CD's Lua interpreter running deploy/argocd/health.lua). Separate from
# test/env/build-testbin.sh (the test control plane): a linter bump
# never rebuilds Kubernetes, and the control plane never waits for the linters.
#
# The binaries land in $GLOOHA_TOOLS_CACHE/<key>/ (default ~/.cache/glooha-operator/tools), where <key>
# is a hash of the wrapper modules, this script and the Go version. The directory is filled in a temp
# dir and renamed at the end, so an interrupted build never leaves a half-filled cache behind.
#
# Prints the binary directory on stdout (last line); progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${GLOOHA_TOOLS_CACHE:-"$HOME/.cache/glooha-operator/tools"}

command -v go >/dev/null || { echo "build-tools: Go is needed to build the linters" >&2; exit 1; }

key=$( { go version; cat "$here"/*/go.mod "$here"/*/go.sum "$0"; } | sha256sum | cut -c1-16)
out="$cache_root/$key"
bins=(actionlint kube-score kstatus argo-health promtool)

complete=1
for b in "${bins[@]}"; do [ -x "$out/$b" ] || complete=0; done
if [ "$complete" = 1 ]; then
  echo "build-tools: cached in $out" >&2
  echo "$out"
  exit 0
fi

mkdir -p "$cache_root"
tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
start=$(date +%s)
build() { # module-dir package output version-ldflags
  local t0; t0=$(date +%s)
  echo "build-tools: building $3 ($2)" >&2
  (cd "$here/$1" && go build -trimpath -ldflags "-s -w $4" -o "$tmp/$3" "$2")
  echo "build-tools: $3 built in $(( $(date +%s) - t0 ))s" >&2
}
version() { sed -n "s|^require $1 \(v[0-9.]*\)$|\1|p" "$here/$2/go.mod"; }
# Each tool prints the version it was built from (`actionlint -version`, `kube-score version`,
# `promtool --version`).
al=$(version github.com/rhysd/actionlint actionlint)
ks=$(version github.com/zegl/kube-score kube-score)
pt=$(version github.com/prometheus/prometheus promtool)
[ -n "$al" ] && [ -n "$ks" ] && [ -n "$pt" ] || { echo "build-tools: cannot read the pinned versions from tools/*/go.mod" >&2; exit 1; }
build actionlint github.com/rhysd/actionlint/cmd/actionlint actionlint "-X github.com/rhysd/actionlint.version=$al"
build kube-score github.com/zegl/kube-score/cmd/kube-score kube-score "-X main.version=${ks#v}"
build kstatus . kstatus ""
build argo-health . argo-health ""
# promtool is the largest (Prometheus' module graph: service discovery SDKs and all); see
# docs/observability.md for its measured cold build time.
build promtool github.com/prometheus/prometheus/cmd/promtool promtool "-X github.com/prometheus/common/version.Version=${pt#v}"

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "build-tools: tools built in $(( $(date +%s) - start ))s into $out" >&2
echo "$out"
