#!/usr/bin/env bash
# Builds the Go tools CI runs from the pinned wrapper modules under tools/, once per machine: the linters
# (actionlint, kube-score, promtool) and the health-semantics judges (kstatus: sigs.k8s.io/cli-utils'
# verdict; argo-health: Argo CD's Lua interpreter running deploy/argocd/health.lua). Separate from
# test/env/build-testbin.sh (the test control plane): a linter bump
# never rebuilds Kubernetes, and the control plane never waits for the linters.
#
#   bash tools/build-tools.sh [TOOL...]     (default: all of them)
#
# Callers name the tools they need, so a test that needs kstatus never waits for promtool (the largest,
# which .ci/run builds in the background). The binaries land in $GLOOHA_TOOLS_CACHE/<key>/ (default
# ~/.cache/glooha-operator/tools), where <key> is a hash of the wrapper modules, this script and the Go
# version. Each tool is built under its own lock (two runs asking for it build it once) into a temp
# file that is renamed when complete, so an interrupted build never leaves a half-written binary.
#
# Prints the binary directory on stdout (last line); progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${GLOOHA_TOOLS_CACHE:-"$HOME/.cache/glooha-operator/tools"}
all=(actionlint kube-score kstatus argo-health promtool)
wanted=("$@")
[ "${#wanted[@]}" -gt 0 ] || wanted=("${all[@]}")
for t in "${wanted[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "build-tools: unknown tool \"$t\" (known: ${all[*]})" >&2; exit 2; }
done

command -v go >/dev/null || { echo "build-tools: Go is needed to build the linters" >&2; exit 1; }
command -v flock >/dev/null || { echo "build-tools: flock (util-linux) is needed" >&2; exit 1; }

key=$( { go version; cat "$here"/*/go.mod "$here"/*/go.sum "$0"; } | sha256sum | cut -c1-16)
out="$cache_root/$key"
mkdir -p "$out"

version() { sed -n "s|^require $1 \(v[0-9.]*\)$|\1|p" "$here/$2/go.mod"; }
# Each tool prints the version it was built from (`actionlint -version`, `kube-score version`,
# `promtool --version`).
al=$(version github.com/rhysd/actionlint actionlint)
ks=$(version github.com/zegl/kube-score kube-score)
pt=$(version github.com/prometheus/prometheus promtool)
if [ -z "$al" ] || [ -z "$ks" ] || [ -z "$pt" ]; then
  echo "build-tools: cannot read the pinned versions from tools/*/go.mod" >&2
  exit 1
fi

export CGO_ENABLED=0
# -gcflags all=-dwarf=false: the compiler skips the DWARF that `-ldflags -w` drops anyway (about -17% of
# a cold build; see test/env/build-testbin.sh).
build() { # module-dir package output version-ldflags [build-tags]
  (
    flock 9
    [ -x "$out/$3" ] && exit 0 # built by another run while this one waited for the lock
    t0=$(date +%s)
    echo "build-tools: building $3 ($2${5:+, tags $5})" >&2
    rm -f "$out/.$3.tmp"
    (cd "$here/$1" && go build -trimpath -tags "${5:-}" -gcflags all=-dwarf=false -ldflags "-s -w $4" -o "$out/.$3.tmp" "$2")
    mv "$out/.$3.tmp" "$out/$3"
    echo "build-tools: $3 built in $(( $(date +%s) - t0 ))s into $out" >&2
  ) 9>"$out/.$3.lock"
}

for t in "${wanted[@]}"; do
  if [ -x "$out/$t" ]; then
    echo "build-tools: $t cached in $out" >&2
    continue
  fi
  case $t in
    actionlint) build actionlint github.com/rhysd/actionlint/cmd/actionlint actionlint "-X github.com/rhysd/actionlint.version=$al" ;;
    kube-score) build kube-score github.com/zegl/kube-score/cmd/kube-score kube-score "-X main.version=${ks#v}" ;;
    kstatus) build kstatus . kstatus "" ;;
    argo-health) build argo-health . argo-health "" ;;
    # promtool is the largest: Prometheus registers every service discovery (the AWS, Azure, GCE,
    # Consul, ... SDKs) through its plugins package. `remove_all_sd` is Prometheus' own build tag for
    # leaving the optional ones out (its README, "Service discovery plugins"); rule checks and rule
    # unit tests use none of them. promtool still imports the Kubernetes SD itself (1126 -> 884
    # non-standard packages; see docs/observability.md).
    promtool) build promtool github.com/prometheus/prometheus/cmd/promtool promtool "-X github.com/prometheus/common/version.Version=${pt#v}" remove_all_sd ;;
  esac
done
echo "$out"
