export * from './finalizers.js';
export * from './owner-references.js';
export * from './server-side-apply.js';
export * from './event-recorder.js';
