//go:build tools

// Package tools pins kwok for the test control plane.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
