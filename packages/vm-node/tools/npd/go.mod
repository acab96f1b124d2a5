module noderepair.dev/vm-node-tools/npd

go 1.24.7

require k8s.io/node-problem-detector v1.34.0
