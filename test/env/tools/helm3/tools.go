//go:build tools

// Package tools pins Helm 3, installed as `helm3` for the coexistence tests.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
