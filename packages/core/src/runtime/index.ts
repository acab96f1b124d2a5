// @noderepair/core runtime: the controller runtime (informers, queue, controllers, leader
// election, manager) and reconcile helpers.
// ManualClock (the test double) is @noderepair/core/testing.
export { systemClock, sleep, withTimeout, type Clock, type CancelTimer } from './clock.js';
export * from './backoff.js';
export * from './deadline.js';
export * from './queue/index.js';
export * from './logger.js';
export * from './reflector/index.js';
export * from './controller/index.js';
export * from './conditions/index.js';
export * from './helpers/index.js';
export * from './leader/index.js';
export * from './manager/index.js';
