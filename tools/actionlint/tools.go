//go:build tools

// Package tools pins actionlint, the linter CI runs on .github/workflows.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
