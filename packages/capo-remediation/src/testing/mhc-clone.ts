// What Cluster API's MachineHealthCheck does with an external remediation template, done
// here for tests (cluster-api.md, "External remediation contract"): the new object is the
// template's spec.template (metadata + spec); apiVersion = the template's; kind = the
// template kind minus "Template"; name and namespace = the Machine's; exactly one owner
// reference, the Machine, without controller or blockOwnerDeletion; the cluster-name label
// and the cloned-from annotations added. Only tests and demos should create remediation
// objects this way: in a cluster, Cluster API does it.

export interface TemplateLike {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string };
  readonly spec: {
    readonly template: {
      readonly metadata?: {
        readonly labels?: Record<string, string>;
        readonly annotations?: Record<string, string>;
      };
      readonly spec?: unknown;
    };
  };
}

export interface MachineLike {
  readonly apiVersion: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid?: string };
  readonly spec: { readonly clusterName: string };
}

export const LABEL_CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
export const ANNOTATION_CLONED_FROM_NAME = 'cluster.x-k8s.io/cloned-from-name';
export const ANNOTATION_CLONED_FROM_GROUPKIND = 'cluster.x-k8s.io/cloned-from-groupkind';

export function remediationFromTemplate(template: TemplateLike, machine: MachineLike) {
  if (!template.kind.endsWith('Template'))
    throw new Error(`template kind ${template.kind} does not end in "Template"`);
  if (!machine.metadata.uid)
    throw new Error(
      `Machine ${machine.metadata.name} has no uid (read it from the apiserver first)`,
    );
  const group = template.apiVersion.includes('/') ? template.apiVersion.split('/')[0] : '';
  const tm = template.spec.template.metadata ?? {};
  return {
    apiVersion: template.apiVersion,
    kind: template.kind.slice(0, -'Template'.length),
    metadata: {
      name: machine.metadata.name,
      namespace: machine.metadata.namespace ?? 'default',
      labels: { ...tm.labels, [LABEL_CLUSTER_NAME]: machine.spec.clusterName },
      annotations: {
        ...tm.annotations,
        [ANNOTATION_CLONED_FROM_NAME]: template.metadata.name ?? '',
        [ANNOTATION_CLONED_FROM_GROUPKIND]: `${template.kind}.${group}`,
      },
      ownerReferences: [
        {
          apiVersion: machine.apiVersion,
          kind: 'Machine',
          name: machine.metadata.name,
          uid: machine.metadata.uid,
        },
      ],
    },
    spec: structuredClone(template.spec.template.spec ?? {}),
  };
}
