// Wrapper module: gopher-lua, the Lua interpreter Argo CD runs health checks in, to test
// deploy/argocd/health.lua (tools/build-tools.sh builds it).
module glooha-operator/tools/argo-health

go 1.26.0

require github.com/yuin/gopher-lua v1.1.2
