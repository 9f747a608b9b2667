#!/usr/bin/env bash
# Prepares another commit of this repository as an operator root for the benches' side-by-side runs
# (`--operator-root`): the commit's files (git archive, no worktree), its own lockfile's dependencies
# (npm ci) and its build (dist/). Cached per commit under ~/.cache/glooha-operator/bench-roots/ (outside the checkout, which
# `eslint .` reads whole); prints the directory.
#
#   bash bench/baseline.sh 65db2c6      → ~/.cache/glooha-operator/bench-roots/65db2c6…/  (client-node 1.4, before issue 26)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ref=${1:?usage: bash bench/baseline.sh COMMIT}
sha=$(git -C "$repo" rev-parse --verify "$ref^{commit}")
dir="${GLOOHA_BENCH_ROOTS:-$HOME/.cache/glooha-operator/bench-roots}/$sha"
if [ ! -f "$dir/.ready" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  git -C "$repo" archive "$sha" | tar -x -C "$dir"
  echo "baseline: npm ci and build $sha in $dir" >&2
  # The commit's own scripts may refuse this Node (an engines check); its dependencies are what matters.
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts >&2 && npm run build >&2)
  touch "$dir/.ready"
fi
echo "$dir"
