//go:build tools

// Package tools pins Helm for the chart tests.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
