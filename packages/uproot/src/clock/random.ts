/** A source of uniform numbers in [0, 1). Injected wherever jitter or chance matters, so runs can be replayed. */
export type Random = () => number;

/** Mulberry32: small, fast, good enough for jitter and simulations; the same seed gives the same sequence. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const systemRandom: Random = Math.random;
