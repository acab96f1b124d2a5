export const GROUP = 'remediation.noderepair.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const REMEDIATION_KIND = 'OpenStackRemediation';
export const TEMPLATE_KIND = 'OpenStackRemediationTemplate';
