// @noderepair/capi-e2e: the real Cluster API core manager against an envtest control plane,
// with the infrastructure (CAPO kinds) and bootstrap providers played minimally by the harness.
export { startCapiEnvironment, conditionOf } from './environment.js';
export type { CapiEnvironment, CapiEnvironmentOptions, MachineView } from './environment.js';
export { ensureCapiAssets, capiCacheDir, CAPI_VERSION, CAPO_VERSION } from './assets.js';
export type { CapiAssets, Progress } from './assets.js';
export { CapiManager } from './manager.js';
export type { CapiManagerOptions } from './manager.js';
export { InfraProvider } from './infra-provider.js';
export type { InfraProviderOptions } from './infra-provider.js';
export { generateWebhookCerts } from './certs.js';
export type { WebhookCerts } from './certs.js';
export { webhookConfigurations, withContractLabel, withConversionWebhook } from './webhooks.js';
export type { WebhookEndpoint, WebhookConfiguration } from './webhooks.js';
export * from './objects.js';
