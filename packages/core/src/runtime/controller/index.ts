export * from './reconciler.js';
export * from './predicates.js';
export * from './mappers.js';
export * from './controller.js';
