// The controller Deployment and its metrics Service. Two replicas with leader election, so a
// node failure (the very thing we repair) does not stop repairs; hardened pod security.
import {
  commonLabels,
  IMAGE,
  LEADER_ELECTION_ID,
  METRICS_PORT,
  NAME,
  NAMESPACE,
  PROBE_PORT,
  SERVICE_ACCOUNT,
  selectorLabels,
} from './names.js';

export function namespace() {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: NAMESPACE,
      labels: { ...commonLabels, 'pod-security.kubernetes.io/enforce': 'restricted' },
    },
  };
}

export function deployment() {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME, namespace: NAMESPACE, labels: { ...commonLabels, ...selectorLabels } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { ...selectorLabels } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
      template: {
        metadata: { labels: { ...commonLabels, ...selectorLabels } },
        spec: {
          serviceAccountName: SERVICE_ACCOUNT,
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          // Keep the replicas on different nodes: the node we must repair may be our own.
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    topologyKey: 'kubernetes.io/hostname',
                    labelSelector: { matchLabels: { ...selectorLabels } },
                  },
                },
              ],
            },
          },
          tolerations: [
            {
              key: 'node-role.kubernetes.io/control-plane',
              operator: 'Exists',
              effect: 'NoSchedule',
            },
          ],
          containers: [
            {
              name: 'manager',
              image: IMAGE,
              imagePullPolicy: 'IfNotPresent',
              args: [
                '--leader-elect',
                `--leader-election-id=${LEADER_ELECTION_ID}`,
                `--metrics-bind-address=:${METRICS_PORT}`,
                `--health-probe-bind-address=:${PROBE_PORT}`,
              ],
              env: [
                {
                  name: 'POD_NAMESPACE',
                  valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
                },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'NODE_OPTIONS', value: '--max-old-space-size=192' },
              ],
              ports: [
                { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
                { name: 'probes', containerPort: PROBE_PORT, protocol: 'TCP' },
              ],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'probes' },
                initialDelaySeconds: 10,
                periodSeconds: 20,
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'probes' },
                initialDelaySeconds: 5,
                periodSeconds: 10,
              },
              resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '16Mi' } }],
        },
      },
    },
  };
}

export function metricsService() {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: `${NAME}-metrics`,
      namespace: NAMESPACE,
      labels: { ...commonLabels, ...selectorLabels },
    },
    spec: {
      selector: { ...selectorLabels },
      ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }],
    },
  };
}
