// @noderepair/core/testing: test doubles and builders for users' own tests, kept out of the
// concept entry points so production code does not reach for them by accident.
export { ManualClock, type ManualClockOptions } from '../runtime/clock.js';
export {
  buildNode,
  readyTexts,
  type NodeBuilderInput,
  type ReadyText,
} from '../health/builders.js';
