//go:build tools

// Package tools pins Helm 4, the tests' default `helm` (chart tests, Gloo's chart, coexistence tests).
package tools

import _ "helm.sh/helm/v4/cmd/helm"
