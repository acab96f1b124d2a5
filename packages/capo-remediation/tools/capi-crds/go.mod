// Pins the Cluster API release whose CRDs (config/crd/bases) the integration tests install.
// Nothing is built: `go mod download -json sigs.k8s.io/cluster-api` fetches the module
// (checked against go.sum) and the tests read the CRD YAML from the module cache.
module noderepair.dev/capo-remediation-tools/capi-crds

go 1.25.0

require sigs.k8s.io/cluster-api v1.14.2
