export { type Clock, abortReason } from './clock.js';
export { RealClock } from './real-clock.js';
export { VirtualClock } from './virtual-clock.js';
export { type Random, seededRandom, systemRandom } from './random.js';
export {
  type ClockSample,
  FollowedClock,
  type FollowedClockOptions,
  type PollTimer,
} from './followed-clock.js';
