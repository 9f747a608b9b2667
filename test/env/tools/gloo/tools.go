//go:build tools

// Package tools pins Gloo's chart generator (a main package; build-testbin.sh builds it by path).
package tools

import _ "github.com/solo-io/gloo/install/helm/gloo"
