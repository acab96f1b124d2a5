// OpenStackRemediationTemplate: what a MachineHealthCheck's remediation template reference
// names. Cluster API copies spec.template (metadata + spec) into a new OpenStackRemediation.
import * as E from 'fp-ts/lib/Either.js';
import { formatErrors } from '@noderepair/core';
import { customResourceDefinition, type CustomResourceDefinition } from './crd.js';
import { API_VERSION, TEMPLATE_KIND } from './group-version.js';
import { templateMetadataNode, topLevelMetadata, typeMetaFields } from './object-meta.js';
import { remediationSpecNode } from './remediation-spec.js';
import { s } from './schema/index.js';

export const remediationTemplateResourceNode = s.object(
  {
    metadata: s.optional(templateMetadataNode),
    spec: s.defaultedToEmpty(remediationSpecNode),
  },
  { description: 'The OpenStackRemediation to create: its metadata and spec.' },
);

export const openStackRemediationTemplateNode = s.object({
  ...typeMetaFields,
  metadata: topLevelMetadata(),
  spec: s.required(
    s.object(
      { template: s.required(remediationTemplateResourceNode) },
      { description: 'OpenStackRemediationTemplateSpec.' },
    ),
  ),
});

export type OpenStackRemediationTemplate = s.TypeOf<typeof openStackRemediationTemplateNode>;
export const OpenStackRemediationTemplateCodec = openStackRemediationTemplateNode.codec;

export function openStackRemediationTemplateCRD(): CustomResourceDefinition {
  return customResourceDefinition({
    kind: TEMPLATE_KIND,
    plural: 'openstackremediationtemplates',
    singular: 'openstackremediationtemplate',
    shortNames: ['osrt'],
    description:
      'OpenStackRemediationTemplate is referenced by a Cluster API MachineHealthCheck (spec.remediation.templateRef in v1beta2, spec.remediationTemplate in v1beta1); for each unhealthy Machine Cluster API creates an OpenStackRemediation from spec.template.',
    schema: openStackRemediationTemplateNode.openAPI(),
    statusSubresource: false,
    printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
  });
}

export function decodeOpenStackRemediationTemplate(
  u: unknown,
): E.Either<string, OpenStackRemediationTemplate> {
  const r = OpenStackRemediationTemplateCodec.decode(u);
  return E.isLeft(r)
    ? E.left(
        `invalid ${API_VERSION} ${TEMPLATE_KIND}: ${formatErrors(r.left, 'object').join('; ')}`,
      )
    : E.right(r.right);
}
