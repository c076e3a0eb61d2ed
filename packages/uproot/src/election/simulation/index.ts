export { SkewedClock } from './skewed-clock.js';
export { PausableClock } from './pausable-clock.js';
export { gatedLeaseLock } from './gated-lease-lock.js';
