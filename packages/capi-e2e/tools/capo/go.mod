// Pins the Cluster API Provider OpenStack module whose CRDs (config/crd/bases) the
// @noderepair/capi-e2e harness installs. Only the CRDs are used: CAPO's manager is not built.
module noderepair.dev/capi-e2e-tools/capo

go 1.25.0

require sigs.k8s.io/cluster-api-provider-openstack v0.13.0
