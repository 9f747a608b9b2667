#!/usr/bin/env bash
# Builds Gloo's controller, the `gloo` binary (./projects/gloo/cmd of github.com/solo-io/gloo), once per
# machine, at the version test/env/tools/gloo/go.mod pins (the same version whose chart build-testbin.sh
# packages, so the chart's `gloo` Deployment and the process the tests run are one release). Nothing of
# it is committed.
#
#   bash test/env/build-gloo.sh
#
# Built the way Gloo's Makefile builds it (target `gloo`: CGO_ENABLED=0, `-X .../pkg/version.Version`),
# plus -trimpath, `-s -w` and no DWARF from the compiler (see build-testbin.sh). It is built with Gloo's
# module as the main module, in the module cache's own (read-only) directory: Gloo's go.mod carries
# replace directives (k8s.io libraries at v0.35.2, go-control-plane/envoy, ...) that only the main
# module's go.mod applies, so building it as a dependency of a wrapper module would compile a different
# program. The pins are still ours: `go mod download` in test/env/tools/gloo checks Gloo's module
# against that wrapper's go.sum, and Gloo's own go.sum pins everything it builds from (-mod=readonly).
#
# The compile runs at the lowest CPU priority, in an autogroup of its own (a shared 2-core machine
# stays usable); it takes ~10-25 min cold, seconds when the Go build cache is warm.
#
# Output: $GLOOHA_TESTBIN_CACHE/../gloo/<version>-<key>/gloo (default ~/.cache/glooha-operator/gloo/),
# built under a lock into a temp name renamed when complete. Prints the directory on stdout (last
# line); progress, including the compile time, goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wrapper="$here/tools/gloo"
GLOO_MODULE=github.com/solo-io/gloo
[ "$#" = 0 ] || { echo "build-gloo: takes no arguments (the version is test/env/tools/gloo/go.mod's)" >&2; exit 2; }

command -v go >/dev/null || { echo "build-gloo: Go is needed to build Gloo's controller" >&2; exit 1; }
command -v flock >/dev/null || { echo "build-gloo: flock (util-linux) is needed" >&2; exit 1; }
v=$(sed -n 's/^require github.com\/solo-io\/gloo \(v[0-9.]*\)$/\1/p' "$wrapper/go.mod")
[ -n "$v" ] || { echo "build-gloo: cannot read the Gloo version from tools/gloo/go.mod" >&2; exit 1; }
cache_root=${GLOOHA_TESTBIN_CACHE:-"$HOME/.cache/glooha-operator/testbin"}
root="$(dirname "$cache_root")/gloo"
mkdir -p "$root"

key=$( { cat "$0" "$wrapper/go.mod" "$wrapper/go.sum"; go version; } | sha256sum | cut -c1-16)
out="$root/$v-$key"
exec 9>"$root/.$v.lock"
flock 9
if [ -x "$out/gloo" ]; then
  echo "build-gloo: Gloo $v controller cached in $out" >&2
  echo "$out"
  exit 0
fi

(cd "$wrapper" && go mod download "$GLOO_MODULE")
src=$(cd "$wrapper" && go list -m -f '{{.Dir}}' "$GLOO_MODULE")
[ -f "$src/go.mod" ] || { echo "build-gloo: cannot find Gloo $v's module" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/.gloo.tmp"
t0=$(date +%s)
echo "build-gloo: building Gloo $v's controller ($GLOO_MODULE/projects/gloo/cmd)" >&2
# shellcheck disable=SC2016 # expanded by the inner bash
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=readonly bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null || true; exec nice -n 19 "$@"' _ \
  go build -trimpath -gcflags all=-dwarf=false \
  -ldflags "-s -w -X $GLOO_MODULE/pkg/version.Version=${v#v}" \
  -o "$out/.gloo.tmp" ./projects/gloo/cmd)
mv "$out/.gloo.tmp" "$out/gloo"
echo "build-gloo: Gloo $v controller built in $(( $(date +%s) - t0 ))s into $out" >&2
echo "$out"
