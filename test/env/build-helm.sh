#!/usr/bin/env bash
# Builds Helm 4 (`helm`, the default) and Helm 3 (`helm3/helm`) and packages Gloo's Helm chart, from the
# pinned Go wrapper modules test/env/tools/{helm,helm3,gloo}, once per machine. This is all the charts
# lane needs (with kgateway's charts, which build-kgateway.sh packages with this Helm): no Kubernetes,
# etcd or kwok, which build-testbin.sh builds for the lanes that run a control plane.
#
# Gloo's chart (charts/gloo-<version>.tgz) is built the way Gloo's release builds it (`make
# package-chart`): its own generator (install/helm/gloo/generate.go) turns values-template.yaml and
# Chart-template.yaml into values.yaml and Chart.yaml through Gloo's Go structs, then `helm package`.
# Nothing of it is committed: it comes from the github.com/solo-io/gloo module at the pinned version.
#
# Output: $GLOOHA_TESTBIN_CACHE/../helm/<key>/ (default ~/.cache/glooha-operator/helm/):
#   helm  helm3/helm  charts/gloo-<v>.tgz  charts/gloo-<v>-values.txt
# <key> hashes what decides those files: the three wrapper modules, the Go version and this script's
# commands (its comments are left out, so rewording them rebuilds nothing). Built under a lock into a
# temp dir renamed at the end, so an interrupted build never leaves a half-filled cache behind.
#
# Prints the directory on stdout (last line); progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
cache_root=${GLOOHA_TESTBIN_CACHE:-"$HOME/.cache/glooha-operator/testbin"}
root="$(dirname "$cache_root")/helm"

command -v go >/dev/null || { echo "build-helm: Go is needed to build Helm and Gloo's chart (or set HELM, TEST_ASSET_HELM3 and GLOO_CHART)" >&2; exit 1; }
command -v flock >/dev/null || { echo "build-helm: flock (util-linux) is needed" >&2; exit 1; }

commands() { grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$'; }
key=$( { go version; cat "$tools"/{helm,helm3,gloo}/go.{mod,sum}; commands "$0"; } | sha256sum | cut -c1-16)
out="$root/$key"
gloo_version=$(sed -n 's/^require github.com\/solo-io\/gloo \(v[0-9.]*\)$/\1/p' "$tools/gloo/go.mod")
[ -n "$gloo_version" ] || { echo "build-helm: cannot read the Gloo version from tools/gloo/go.mod" >&2; exit 1; }
bins=(helm helm3/helm "charts/gloo-${gloo_version#v}.tgz" "charts/gloo-${gloo_version#v}-values.txt")

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
complete=1
for b in "${bins[@]}"; do [ -f "$out/$b" ] || complete=0; done
if [ "$complete" = 1 ]; then
  echo "build-helm: cached in $out" >&2
  echo "$out"
  exit 0
fi

tmp=$(mktemp -d "$root/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CGO_ENABLED=0
gcflags="all=-dwarf=false"
start=$(date +%s)
build() { # module-dir ldflags package output
  local t0; t0=$(date +%s)
  echo "build-helm: building $4 ($3)" >&2
  (cd "$tools/$1" && go build -trimpath -gcflags "$gcflags" -ldflags "$2" -o "$tmp/$4" "$3")
  echo "build-helm: $4 built in $(( $(date +%s) - t0 ))s" >&2
}

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
[[ "$client_go" =~ ^v0\.([0-9]+)\. ]] || { echo "build-helm: cannot read client-go's version in tools/helm3" >&2; exit 1; }
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
  || { echo "build-helm: Gloo's chart generator failed" >&2; exit 1; }
"$tmp/helm" package --destination "$tmp/charts" "$src/install/helm/gloo" >&2
# The values reference the generator writes (the chart's own docs/content/reference/values.txt).
cp "$src/docs/content/reference/values.txt" "$tmp/charts/gloo-${gloo_version#v}-values.txt"
rm -rf "$src" "$tmp/gloo-helm-generate"

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "build-helm: Helm 4, Helm 3 and Gloo's chart built in $(( $(date +%s) - start ))s into $out" >&2
echo "$out"
