// Builds an apiextensions.k8s.io/v1 CustomResourceDefinition from a kind's schema node.
import { GROUP, VERSION } from './group-version.js';
import type { JSONSchemaProps } from './schema/index.js';

/** A column `kubectl get` shows for the kind (additionalPrinterColumns). */
export interface PrinterColumn {
  /** Column header. */
  readonly name: string;
  /** How the value is formatted; `date` shows as an age. */
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** JSONPath of the value in the object, e.g. `.status.phase`. */
  readonly jsonPath: string;
  /** Shown by `kubectl explain`-like tools. */
  readonly description?: string;
  /** 0 (default) shows always; higher only with `-o wide`. */
  readonly priority?: number;
}

/** What {@link customResourceDefinition} builds a CRD of (in this package's group and version). */
export interface KindDefinition {
  /** The kind, e.g. `OpenStackRemediation`. */
  readonly kind: string;
  /** The resource name, lowercase plural; the CRD is named `<plural>.<group>`. */
  readonly plural: string;
  /** The lowercase singular name. */
  readonly singular: string;
  /** Short names for kubectl, e.g. `osr`. */
  readonly shortNames: readonly string[];
  /** The kind's description at the schema root. */
  readonly description: string;
  /** The OpenAPI v3 schema of the whole object. */
  readonly schema: JSONSchemaProps;
  /** Serve status as a separate subresource (status writes then go to /status only). */
  readonly statusSubresource: boolean;
  /** Columns for `kubectl get`. */
  readonly printerColumns: readonly PrinterColumn[];
}

/** An apiextensions.k8s.io/v1 CustomResourceDefinition as this package generates it (one version). */
export interface CustomResourceDefinition {
  /** Always `apiextensions.k8s.io/v1`. */
  apiVersion: 'apiextensions.k8s.io/v1';
  /** Always `CustomResourceDefinition`. */
  kind: 'CustomResourceDefinition';
  /** The CRD's name and Cluster API's contract labels. */
  metadata: { name: string; labels: Record<string, string> };
  /** Group, names, scope and the one served version with its schema. */
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: 'Namespaced';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: JSONSchemaProps };
      subresources?: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
    }>;
  };
}

/**
 * Builds the CRD of one kind in this package's group and version, labelled as serving Cluster
 * API's v1beta1 and v1beta2 contracts and listed in the `cluster-api` category.
 */
export function customResourceDefinition(d: KindDefinition): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${d.plural}.${GROUP}`,
      // Cluster API's contract labels: which of our versions serve its v1beta1 / v1beta2 contracts.
      labels: { 'cluster.x-k8s.io/v1beta1': VERSION, 'cluster.x-k8s.io/v1beta2': VERSION },
    },
    spec: {
      group: GROUP,
      names: {
        kind: d.kind,
        listKind: `${d.kind}List`,
        plural: d.plural,
        singular: d.singular,
        shortNames: [...d.shortNames],
        categories: ['cluster-api'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { description: d.description, ...d.schema } },
          ...(d.statusSubresource ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: [...d.printerColumns],
        },
      ],
    },
  };
}
