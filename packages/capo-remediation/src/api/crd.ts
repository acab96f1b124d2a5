// Builds an apiextensions.k8s.io/v1 CustomResourceDefinition from a kind's schema node.
import { GROUP, VERSION } from './group-version.js';
import type { JSONSchemaProps } from './schema/index.js';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

export interface KindDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly description: string;
  readonly schema: JSONSchemaProps;
  readonly statusSubresource: boolean;
  readonly printerColumns: readonly PrinterColumn[];
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
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
