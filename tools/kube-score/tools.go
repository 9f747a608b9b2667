//go:build tools

// Package tools pins kube-score, the manifest linter CI runs on deploy/install.yaml and the chart's renders.
package tools

import _ "github.com/zegl/kube-score/cmd/kube-score"
