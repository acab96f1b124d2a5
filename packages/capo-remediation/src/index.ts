/**
 * The OpenStackRemediation controller and its CRDs: the names an installer, or a manager embedding
 * the controller, needs first. The rest lives under one subpath per concept: `/api` (the
 * remediation.noderepair.dev types, codecs, schema nodes and CRDs), `/openstack` (from a Machine
 * to its OpenStack server, cloud and action), `/controller` (controller, reconciler, ladder) and
 * `/testing` (what Cluster API's MachineHealthCheck does, for tests). The Keystone + Nova client
 * and the Nova machine provider are `@noderepair/openstack`.
 *
 * @packageDocumentation
 */
export {
  addRemediationController,
  type RemediationControllerOptions,
  type RemediationController,
} from './controller/index.js';
export { crds, type OpenStackRemediation, type OpenStackRemediationTemplate } from './api/index.js';
