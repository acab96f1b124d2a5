// @noderepair/core public API: one folder per concept, each with its own index.
export * from './kube/index.js';
export * from './codec/index.js';
export * from './runtime/index.js';
export * from './health/index.js';
export * from './mhc/index.js';
export * from './drain/index.js';
export * from './provider/index.js';
export * from './autorepair/index.js';
