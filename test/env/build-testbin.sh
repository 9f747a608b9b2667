#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# etcd, kwok), Helm 4 (`helm`, the default) and Helm 3 (`helm3/helm`), and Gloo's Helm chart from the
# pinned Go wrapper modules under test/env/tools, once per machine.
#
# Gloo's chart (charts/gloo-<version>.tgz) is built the way Gloo's release builds it (`make
# package-chart`): its own generator (install/helm/gloo/generate.go) turns values-template.yaml and
# Chart-template.yaml into values.yaml and Chart.yaml through Gloo's Go structs, then `helm package`.
# Nothing of it is committed: it comes from the github.com/solo-io/gloo module at the pinned version.
#
# The binaries land in $GLOOHA_TESTBIN_CACHE/<key>/ (default ~/.cache/glooha-operator/testbin), where
# <key> is a hash of the wrapper modules and the Go version: a version bump builds a new directory,
# an unchanged checkout reuses the old one. The directory is filled in a temp dir and renamed at the
# end, so an interrupted build never leaves a half-filled cache behind.
#
# Prints the binary directory on stdout (last line); progress goes to stderr.
# With KUBEBUILDER_ASSETS set, nothing is built: those binaries are used (see test/env/binaries.ts).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
cache_root=${GLOOHA_TESTBIN_CACHE:-"$HOME/.cache/glooha-operator/testbin"}

command -v go >/dev/null || { echo "build-testbin: Go is needed to build the test control plane (or set KUBEBUILDER_ASSETS)" >&2; exit 1; }

key=$( { go version; cat "$tools"/*/go.mod "$tools"/*/go.sum "$0"; } | sha256sum | cut -c1-16)
out="$cache_root/$key"
gloo_version=$(sed -n 's/^require github.com\/solo-io\/gloo \(v[0-9.]*\)$/\1/p' "$tools/gloo/go.mod")
[ -n "$gloo_version" ] || { echo "build-testbin: cannot read the Gloo version from tools/gloo/go.mod" >&2; exit 1; }
# Helm 3 is installed as helm3/helm: Helm names its field manager after its own file name, so both
# majors write as "helm", like a user's.
bins=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok helm helm3/helm "charts/gloo-${gloo_version#v}.tgz")

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

mkdir -p "$cache_root"
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

# Helm: the version ldflags of each version's own Makefile, as a tagged release build sets them (tag,
# no "unreleased" metadata, clean tree, and the tag's commit if the module proxy records one — it does
# not for Helm, so GitCommit stays empty), so `helm version` reports the real version.
# Helm 4 reads the Kubernetes version it assumes offline (`helm template`) from client-go in its build
# info; Helm 3 takes it from ldflags (its Makefile: client-go v0.X.Y → Kubernetes v1.X), without which
# it assumes v1.20 and charts' kubeVersion checks fail.
module_version() { sed -n "s|^require $2 \\(v[0-9.]*\\)\$|\\1|p" "$tools/$1/go.mod"; }
module_commit() { # module-dir module@version -> the tag's commit when the proxy's .info records it
  local info; info=$(cd "$tools/$1" && go mod download -json "$2" | sed -n 's/^[[:space:]]*"Info": "\(.*\)",$/\1/p')
  sed -n 's/.*"Hash": *"\([0-9a-f]*\)".*/\1/p' "$info" 2>/dev/null | head -1
}
helm_ldflags() { # module-dir major version
  local pkg="helm.sh/helm/v$2/internal/version"
  printf '%s' "-s -w -X $pkg.version=$3 -X $pkg.metadata= -X $pkg.gitCommit=$(module_commit "$1" "helm.sh/helm/v$2@$3") -X $pkg.gitTreeState=clean"
}
helm4_version=$(module_version helm helm.sh/helm/v4)
build helm "$(helm_ldflags helm 4 "$helm4_version")" helm.sh/helm/v4/cmd/helm helm
helm3_version=$(module_version helm3 helm.sh/helm/v3)
client_go=$(cd "$tools/helm3" && go list -m -f '{{.Version}}' k8s.io/client-go)
[[ "$client_go" =~ ^v0\.([0-9]+)\. ]] || { echo "build-testbin: cannot read client-go's version in tools/helm3" >&2; exit 1; }
k8s_minor=${BASH_REMATCH[1]}
helm3_ldflags="$(helm_ldflags helm3 3 "$helm3_version")"
for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  helm3_ldflags+=" -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$k8s_minor"
done
mkdir -p "$tmp/helm3"
build helm3 "$helm3_ldflags" helm.sh/helm/v3/cmd/helm helm3/helm

# Gloo's chart, as `make package-chart` in Gloo's repository: generate.go (run from the repository
# root, with the release's --version without the "v" and --generate-helm-docs), then `helm package`.
build gloo "-s -w" github.com/solo-io/gloo/install/helm/gloo gloo-helm-generate
gloo_dir=$(cd "$tools/gloo" && go list -m -f '{{.Dir}}' github.com/solo-io/gloo)
src="$tmp/gloo-src"
mkdir -p "$src/install/helm" "$src/docs/content/reference" "$tmp/charts"
cp -R "$gloo_dir/install/helm/gloo" "$src/install/helm/"
chmod -R u+w "$src"
(cd "$src" && "$tmp/gloo-helm-generate" --version "${gloo_version#v}" --generate-helm-docs) >/dev/null 2>&1 \
  || { echo "build-testbin: Gloo's chart generator failed" >&2; exit 1; }
"$tmp/helm" package --destination "$tmp/charts" "$src/install/helm/gloo" >&2
# The values reference the generator writes (the chart's own docs/content/reference/values.txt).
cp "$src/docs/content/reference/values.txt" "$tmp/charts/gloo-${gloo_version#v}-values.txt"
rm -rf "$src" "$tmp/gloo-helm-generate"
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
