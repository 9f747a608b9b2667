#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# etcd, kwok and kwok's stages) from the pinned Go wrapper modules under test/env/tools/{kubernetes,
# etcd,kwok}, once per machine. Helm and Gloo's chart are build-helm.sh's (the charts lane needs them
# without a control plane); kgateway's charts and controller are build-kgateway.sh's, Gloo's controller
# build-gloo.sh's.
#
# The binaries land in $GLOOHA_TESTBIN_CACHE/<key>/ (default ~/.cache/glooha-operator/testbin), where
# <key> hashes what decides them: the three wrapper modules, the Go version and this script's commands
# (its comments are left out, so rewording them rebuilds nothing). A version bump builds a new
# directory, an unchanged checkout reuses the old one. The directory is filled in a temp dir and
# renamed at the end, under a lock, so an interrupted build never leaves a half-filled cache behind
# and two runs started side by side build once.
#
# Prints the binary directory on stdout (last line); progress goes to stderr.
# With KUBEBUILDER_ASSETS set, nothing is built: those binaries are used (see test/env/binaries.ts).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
cache_root=${GLOOHA_TESTBIN_CACHE:-"$HOME/.cache/glooha-operator/testbin"}

command -v go >/dev/null || { echo "build-testbin: Go is needed to build the test control plane (or set KUBEBUILDER_ASSETS)" >&2; exit 1; }
command -v flock >/dev/null || { echo "build-testbin: flock (util-linux) is needed" >&2; exit 1; }

commands() { grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$'; }
key=$( { go version; cat "$tools"/{kubernetes,etcd,kwok}/go.{mod,sum}; commands "$0"; } | sha256sum | cut -c1-16)
out="$cache_root/$key"
bins=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwok-stages/pod-ready.yaml)

mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
flock 9
complete=1
for b in "${bins[@]}"; do [ -f "$out/$b" ] || complete=0; done
if [ "$complete" = 1 ]; then
  echo "build-testbin: cached in $out" >&2
  echo "$out"
  exit 0
fi

kube_version=$(sed -n 's/^require k8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$tools/kubernetes/go.mod")
[[ "$kube_version" =~ ^v([0-9]+)\.([0-9]+)\. ]] || { echo "build-testbin: cannot read the Kubernetes version from tools/kubernetes/go.mod" >&2; exit 1; }
# What /version reports; without these the binaries call themselves v0.0.0-master.
vpkg=k8s.io/component-base/version
kube_ldflags="-s -w -X $vpkg.gitVersion=$kube_version -X $vpkg.gitMajor=${BASH_REMATCH[1]} -X $vpkg.gitMinor=${BASH_REMATCH[2]} -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"

tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
# No DWARF from the compiler: `-ldflags -w` drops it at link time anyway, but only `-dwarf=false`
# keeps the compiler from generating it for every package. Measured on a 2-core machine, Helm 3 with an
# empty build cache: 189-191 s with it, 158 s without (-17%); the binaries run the same.
gcflags="all=-dwarf=false"
start=$(date +%s)
build() { # module-dir ldflags package output
  local t0; t0=$(date +%s)
  echo "build-testbin: building $4 ($3)" >&2
  (cd "$tools/$1" && go build -trimpath -gcflags "$gcflags" -ldflags "$2" -o "$tmp/$4" "$3")
  echo "build-testbin: $4 built in $(( $(date +%s) - t0 ))s" >&2
}
# Kubernetes' four commands in one `go build` (-o into a directory): one action graph, so the packages
# they share compile once with both cores busy, and the four links overlap instead of each waiting for
# the last packages of the one before.
t0=$(date +%s)
echo "build-testbin: building kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (k8s.io/kubernetes/cmd/...)" >&2
(cd "$tools/kubernetes" && go build -trimpath -gcflags "$gcflags" -ldflags "$kube_ldflags" -o "$tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
echo "build-testbin: Kubernetes' binaries built in $(( $(date +%s) - t0 ))s" >&2
build etcd "-s -w" go.etcd.io/etcd/server/v3 etcd
build kwok "-s -w" sigs.k8s.io/kwok/cmd/kwok kwok

# kwok's stages live in its module (kustomize/stage); copy the ones the control plane uses.
kwok_dir=$(cd "$tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
mkdir -p "$tmp/kwok-stages"
cp "$kwok_dir"/kustomize/stage/node/fast/node-initialize.yaml \
   "$kwok_dir"/kustomize/stage/node/heartbeat/node-heartbeat.yaml \
   "$kwok_dir"/kustomize/stage/pod/fast/pod-ready.yaml \
   "$kwok_dir"/kustomize/stage/pod/fast/pod-complete.yaml \
   "$kwok_dir"/kustomize/stage/pod/fast/pod-delete.yaml "$tmp/kwok-stages/"
chmod u+w "$tmp"/kwok-stages/*.yaml

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "build-testbin: control plane built in $(( $(date +%s) - start ))s into $out" >&2
echo "$out"
