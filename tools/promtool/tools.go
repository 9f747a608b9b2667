//go:build tools

// Package tools pins promtool, which CI runs on the chart's PrometheusRule (`promtool check rules`,
// `promtool test rules`).
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
