export * from './store.js';
export * from './list-watcher.js';
export * from './transform.js';
export * from './reflector.js';
export * from './informer.js';
