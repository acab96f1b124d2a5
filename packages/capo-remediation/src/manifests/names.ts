// Names shared by the manifests, so RBAC subjects, selectors and the Deployment agree.
export const NAMESPACE = 'noderepair-system';
export const NAME = 'capo-remediation-controller';
export const SERVICE_ACCOUNT = NAME;
export const IMAGE = 'ghcr.io/noderepair/capo-remediation:0.1.0';
export const METRICS_PORT = 8080;
export const PROBE_PORT = 8081;
export const LEADER_ELECTION_ID = 'capo-remediation.noderepair.dev';

export const commonLabels = {
  'app.kubernetes.io/name': 'capo-remediation',
  'app.kubernetes.io/part-of': 'noderepair',
} as const;

export const selectorLabels = {
  'app.kubernetes.io/name': 'capo-remediation',
  'app.kubernetes.io/component': 'controller',
} as const;
