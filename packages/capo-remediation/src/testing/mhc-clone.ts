// What Cluster API's MachineHealthCheck does with an external remediation template, done
// here for tests (cluster-api.md, "External remediation contract"): the new object is the
// template's spec.template (metadata + spec); apiVersion = the template's; kind = the
// template kind minus "Template"; name and namespace = the Machine's; exactly one owner
// reference, the Machine, without controller or blockOwnerDeletion; the cluster-name label
// and the cloned-from annotations added. Only tests and demos should create remediation
// objects this way: in a cluster, Cluster API does it.

/** The parts of a remediation template (e.g. an OpenStackRemediationTemplate) that cloning reads. */
export interface TemplateLike {
  /** The template's apiVersion; the clone gets the same. */
  readonly apiVersion: string;
  /** The template's kind; it must end in `Template`, which the clone's kind drops. */
  readonly kind: string;
  /** The template's name (recorded in the cloned-from annotation). */
  readonly metadata: { readonly name?: string; readonly namespace?: string };
  /** spec.template: the labels, annotations and spec the clone starts from. */
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

/** The parts of a Cluster API Machine that cloning reads. */
export interface MachineLike {
  /** The Machine's apiVersion, used in the clone's owner reference. */
  readonly apiVersion: string;
  /** Name, namespace and uid; the uid is required (read the Machine from the API server first). */
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid?: string };
  /** spec.clusterName, copied to the clone's cluster-name label. */
  readonly spec: { readonly clusterName: string };
}

/** Label naming the Cluster, which Cluster API sets on the remediation it creates. */
export const LABEL_CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
/** Annotation naming the template the remediation was cloned from. */
export const ANNOTATION_CLONED_FROM_NAME = 'cluster.x-k8s.io/cloned-from-name';
/** Annotation with the template's `<kind>.<group>`. */
export const ANNOTATION_CLONED_FROM_GROUPKIND = 'cluster.x-k8s.io/cloned-from-groupkind';

/**
 * FOR TESTS AND DEMOS: the remediation object Cluster API's MachineHealthCheck would create
 * from a template for a Machine (in a cluster, Cluster API does this). Throws when the kind
 * does not end in `Template` or the Machine has no uid.
 */
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
