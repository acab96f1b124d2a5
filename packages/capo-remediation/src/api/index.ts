/**
 * The remediation.noderepair.dev/v1alpha1 API. Each kind has one definition from which both the
 * CRD's OpenAPI schema and the io-ts codec are derived, so what the API server accepts and what the
 * controller decodes cannot drift apart.
 *
 * @packageDocumentation
 */
export { GROUP, VERSION, API_VERSION, REMEDIATION_KIND, TEMPLATE_KIND } from './group-version.js';
export { s } from './schema/index.js';
export type {
  Node,
  TypeOf,
  Field,
  Rule,
  ObjectType,
  JSONSchemaProps,
  ValidationRule,
} from './schema/index.js';
export { conditionNode, conditionsNode } from './condition.js';
export type { Condition } from './condition.js';
export {
  STEP_TYPES,
  DEFAULT_STEPS,
  stepNode,
  drainNodeSchema,
  remediationSpecNode,
} from './remediation-spec.js';
export type { StepType, Step, RemediationDrainOptions, RemediationSpec } from './remediation-spec.js';
export {
  PHASES,
  ATTEMPT_RESULTS,
  MAX_HISTORY,
  attemptNode,
  remediationStatusNode,
} from './remediation-status.js';
export type { Phase, AttemptResult, Attempt, RemediationStatus } from './remediation-status.js';
export type { RemediationObjectMeta } from './object-meta.js';
export { customResourceDefinition } from './crd.js';
export type { CustomResourceDefinition, KindDefinition, PrinterColumn } from './crd.js';
export {
  openStackRemediationNode,
  OpenStackRemediationCodec,
  openStackRemediationCRD,
  decodeOpenStackRemediation,
} from './openstack-remediation.js';
export type { OpenStackRemediation } from './openstack-remediation.js';
export {
  openStackRemediationTemplateNode,
  OpenStackRemediationTemplateCodec,
  openStackRemediationTemplateCRD,
  decodeOpenStackRemediationTemplate,
} from './openstack-remediation-template.js';
export type { OpenStackRemediationTemplate } from './openstack-remediation-template.js';
export type { DecodeOptions, FieldValidation } from './field-validation.js';

import { openStackRemediationCRD } from './openstack-remediation.js';
import { openStackRemediationTemplateCRD } from './openstack-remediation-template.js';

/** Both CRDs, in install order. */
export function crds() {
  return [openStackRemediationTemplateCRD(), openStackRemediationCRD()];
}
export { exampleRemediation, exampleRemediationTemplate } from './examples.js';
export { violations } from './schema/index.js';
export type { Violation } from './schema/index.js';
