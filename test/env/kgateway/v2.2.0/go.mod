// Wrapper module: pins kgateway v2.2.0, whose ./cmd/kgateway the integration tests run as the real
// controller (test/env/build-kgateway.sh builds it).
module glooha-operator/test/env/kgateway/v2.2.0

go 1.26.0

require github.com/kgateway-dev/kgateway/v2 v2.2.0
