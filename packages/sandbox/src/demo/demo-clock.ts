/**
 * The clock a demo runs on: virtual time with its driver (jumping from timer to timer, never during tracked
 * I/O: decision 0006), or real time sped up `timeScale` times.
 */
import { RealClock, type Clock } from 'uproot';
import { VirtualClock } from 'uproot/election/testing';

export interface DemoClock {
  readonly clock: Clock;
  /** Set in virtual time. */
  readonly virtual: VirtualClock | undefined;
  /** Stops the driver (virtual time) once the demo is done. */
  stop(): Promise<void>;
}

export function startDemoClock(options: {
  readonly virtualTime: boolean;
  readonly timeScale: number;
  readonly clock?: Clock;
}): DemoClock {
  const virtual = !options.clock && options.virtualTime ? new VirtualClock(Date.now()) : undefined;
  const clock = options.clock ?? virtual ?? new RealClock({ scale: options.timeScale });
  let driving = virtual !== undefined;
  const driver = virtual
    ? (async () => {
        while (driving) await virtual.advanceBy(250);
      })()
    : Promise.resolve();
  return {
    clock,
    virtual,
    stop: async () => {
      driving = false;
      await driver;
    },
  };
}
