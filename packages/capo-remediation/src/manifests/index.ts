// Kubernetes manifests for the controller, generated from TypeScript (config/).
export { renderManifests, installObjects, GENERATED_HEADER } from './render.js';
export type { GeneratedFile } from './render.js';
export { managerRules } from './rbac.js';
export type { PolicyRule } from './rbac.js';
export * as names from './names.js';
