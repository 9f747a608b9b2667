#!/usr/bin/env bash
# actionlint on .github/workflows (built from its pinned Go module by tools/build-tools.sh, cached per
# machine). With shellcheck on PATH (Debian's package; .ci/run installs it), actionlint also checks the
# shell in every `run:` step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=$(bash tools/build-tools.sh actionlint | tail -n 1)
command -v shellcheck >/dev/null || echo "lint-workflows: shellcheck not found, run: steps are not checked" >&2
"$bin/actionlint" -no-color
echo "actionlint $("$bin/actionlint" -version | head -n 1): .github/workflows clean"
