//go:build tools

// Package tools pins kgateway's controller for the integration tests; `go build` it by path.
package tools

import _ "github.com/kgateway-dev/kgateway/v2/cmd/kgateway"
