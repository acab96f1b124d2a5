/**
 * The controller runtime: informers and their stores, the rate-limited work queue, controllers and
 * reconcilers, leader election, the Manager that runs them, plus metrics, probes, logging and the
 * Clock and backoff every loop waits with. The test double ManualClock is in
 * `@noderepair/core/testing`.
 *
 * @packageDocumentation
 */
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
