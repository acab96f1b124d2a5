export * from './lease-decision.js';
export * from './leader-elector.js';
export * from './identity.js';
