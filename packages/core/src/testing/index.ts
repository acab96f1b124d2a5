/**
 * Test doubles and builders for users' own tests (ManualClock, a Node builder). They are
 * kept out of the concept entry points so production code does not reach for them by accident.
 *
 * @packageDocumentation
 */
export { ManualClock, type ManualClockOptions } from '../runtime/clock.js';
export {
  buildNode,
  readyTexts,
  type NodeBuilderInput,
  type ReadyText,
} from '../health/builders.js';
