/** The API group of this package's kinds. */
export const GROUP = 'remediation.noderepair.dev';
/** The one served version of {@link GROUP}. */
export const VERSION = 'v1alpha1';
/** `<group>/<version>`, the apiVersion of this package's objects. */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The remediation kind: one object per Machine being remediated, created by Cluster API's MHC. */
export const REMEDIATION_KIND = 'OpenStackRemediation';
/** The template kind a MachineHealthCheck's remediationTemplate points at. */
export const TEMPLATE_KIND = 'OpenStackRemediationTemplate';
