// OpenStackRemediation: created by Cluster API's MachineHealthCheck from the template, named
// after the unhealthy Machine; our controller drives it.
import { customResourceDefinition, type CustomResourceDefinition } from './crd.js';
import { kindDecoder } from './field-validation.js';
import { REMEDIATION_KIND } from './group-version.js';
import { topLevelMetadata, typeMetaFields } from './object-meta.js';
import { remediationSpecNode } from './remediation-spec.js';
import { remediationStatusNode } from './remediation-status.js';
import { s } from './schema/index.js';

/** Schema of a whole OpenStackRemediation; the CRD and the codec derive from it. */
export const openStackRemediationNode = s.object({
  ...typeMetaFields,
  metadata: topLevelMetadata(),
  spec: s.defaultedToEmpty(remediationSpecNode),
  status: s.optional(remediationStatusNode),
});

/** An OpenStackRemediation as decoded, spec defaults applied. */
export type OpenStackRemediation = s.TypeOf<typeof openStackRemediationNode>;
/**
 * io-ts codec of an OpenStackRemediation (defaults applied, unknown fields dropped as pruning does);
 * prefer decodeOpenStackRemediation, whose errors name each bad field.
 */
export const OpenStackRemediationCodec = openStackRemediationNode.codec;

/** The OpenStackRemediation CustomResourceDefinition, ready to apply. */
export function openStackRemediationCRD(): CustomResourceDefinition {
  return customResourceDefinition({
    kind: REMEDIATION_KIND,
    plural: 'openstackremediations',
    singular: 'openstackremediation',
    shortNames: ['osr'],
    description:
      'OpenStackRemediation repairs the OpenStack server behind an unhealthy Cluster API Machine: drain, then an escalation ladder of Nova reboots (and rebuilds); when the ladder is exhausted the Machine is handed back to Cluster API for replacement. Created by a MachineHealthCheck from an OpenStackRemediationTemplate.',
    schema: openStackRemediationNode.openAPI(),
    statusSubresource: true,
    printerColumns: [
      {
        name: 'Phase',
        type: 'string',
        jsonPath: '.status.phase',
        description: 'Remediation phase',
      },
      {
        name: 'Step',
        type: 'integer',
        jsonPath: '.status.currentStep',
        description: 'Index of the current step',
      },
      {
        name: 'Retries',
        type: 'integer',
        jsonPath: '.status.retryCount',
        description: 'Retries of the current step',
      },
      {
        name: 'Last Remediated',
        type: 'date',
        jsonPath: '.status.lastRemediated',
        description: 'When the last action was sent',
      },
      {
        name: 'Server',
        type: 'string',
        jsonPath: '.status.serverID',
        priority: 1,
        description: 'Nova server uuid',
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  });
}

/**
 * Decodes (and defaults) an OpenStackRemediation, with an error that names each bad field.
 * Unknown fields are errors unless `fieldValidation: 'Ignore'` (objects from the apiserver).
 */
export const decodeOpenStackRemediation = kindDecoder(REMEDIATION_KIND, OpenStackRemediationCodec);
