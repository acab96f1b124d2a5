// RBAC, least privilege: exactly the verbs the controller's reconcile uses.
import { GROUP } from '../api/group-version.js';
import { commonLabels, NAME, NAMESPACE, SERVICE_ACCOUNT } from './names.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const R = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
});

export const managerRules: PolicyRule[] = [
  // Our kinds: watch them, add/remove the finalizer, write status.
  R([GROUP], ['openstackremediations'], ['get', 'list', 'watch', 'update', 'patch']),
  R([GROUP], ['openstackremediations/status'], ['get', 'update', 'patch']),
  R([GROUP], ['openstackremediations/finalizers'], ['update']),
  R([GROUP], ['openstackremediationtemplates'], ['get', 'list', 'watch']),
  // The owner Machine (v1beta1 and v1beta2): read it; on give-up set OwnerRemediated=False in status.
  R(['cluster.x-k8s.io'], ['machines'], ['get', 'list', 'watch']),
  R(['cluster.x-k8s.io'], ['machines/status'], ['get', 'patch']),
  // The Machine's infrastructureRef: server uuid (providerID / instanceID) and identityRef.
  R(['infrastructure.cluster.x-k8s.io'], ['openstackmachines'], ['get', 'list', 'watch']),
  // The identityRef Secret (clouds.yaml, cacert). Only get: we never list every Secret.
  R([''], ['secrets'], ['get']),
  // Drain: cordon (patch spec.unschedulable), out-of-service taint, readiness of the Node.
  R([''], ['nodes'], ['get', 'list', 'watch', 'patch']),
  // Pods: list those on the Node; the drain evicts (never deletes: capo does not set
  // disableEviction), so no delete.
  R([''], ['pods'], ['list']),
  R([''], ['pods/eviction'], ['create']),
  R([''], ['events'], ['create', 'patch']),
  R(['events.k8s.io'], ['events'], ['create', 'patch']),
];

export function managerClusterRole() {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `${NAME}-manager`, labels: { ...commonLabels } },
    rules: managerRules,
  };
}

export function managerClusterRoleBinding() {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${NAME}-manager`, labels: { ...commonLabels } },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: `${NAME}-manager`,
    },
    subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNT, namespace: NAMESPACE }],
  };
}

/** Leader election needs Leases only in our own namespace. */
export function leaderElectionRole() {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: {
      name: `${NAME}-leader-election`,
      namespace: NAMESPACE,
      labels: { ...commonLabels },
    },
    rules: [
      R(
        ['coordination.k8s.io'],
        ['leases'],
        ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      ),
      R([''], ['events'], ['create', 'patch']),
    ],
  };
}

export function leaderElectionRoleBinding() {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: `${NAME}-leader-election`,
      namespace: NAMESPACE,
      labels: { ...commonLabels },
    },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: `${NAME}-leader-election`,
    },
    subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNT, namespace: NAMESPACE }],
  };
}

/**
 * Aggregated into Cluster API's manager role: its MachineHealthCheck controller reads our
 * template and creates / deletes our remediation objects (cluster-api.md, contract item 11).
 */
export function capiAggregatedClusterRole() {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: `${NAME}-capi-aggregated`,
      labels: { ...commonLabels, 'cluster.x-k8s.io/aggregate-to-manager': 'true' },
    },
    rules: [
      R(
        [GROUP],
        ['openstackremediations', 'openstackremediationtemplates'],
        ['get', 'list', 'watch', 'create', 'delete', 'patch', 'update'],
      ),
    ],
  };
}

export function serviceAccount() {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: SERVICE_ACCOUNT, namespace: NAMESPACE, labels: { ...commonLabels } },
  };
}
