// OpenStackRemediationTemplate: what a MachineHealthCheck's remediation template reference
// names. Cluster API copies spec.template (metadata + spec) into a new OpenStackRemediation.
import { customResourceDefinition, type CustomResourceDefinition } from './crd.js';
import { kindDecoder } from './field-validation.js';
import { TEMPLATE_KIND } from './group-version.js';
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

/** Schema of a whole OpenStackRemediationTemplate; the CRD and the codec derive from it. */
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

/** An OpenStackRemediationTemplate as decoded, spec defaults applied. */
export type OpenStackRemediationTemplate = s.TypeOf<typeof openStackRemediationTemplateNode>;
/**
 * io-ts codec of an OpenStackRemediationTemplate (defaults applied, unknown fields dropped as pruning does);
 * prefer decodeOpenStackRemediationTemplate, whose errors name each bad field.
 */
export const OpenStackRemediationTemplateCodec = openStackRemediationTemplateNode.codec;

/** The OpenStackRemediationTemplate CustomResourceDefinition, ready to apply. */
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

/**
 * Decodes (and defaults) an OpenStackRemediationTemplate, with an error that names each bad field.
 * Unknown fields are errors unless `fieldValidation: 'Ignore'` (objects from the apiserver).
 */
export const decodeOpenStackRemediationTemplate = kindDecoder(
  TEMPLATE_KIND,
  OpenStackRemediationTemplateCodec,
);
