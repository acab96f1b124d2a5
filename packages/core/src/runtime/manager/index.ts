export * from './metrics.js';
export * from './probes.js';
export * from './logging.js';
export * from './manager.js';
