import type { Random } from 'uproot';

/** A version-4 UUID drawn from `random`, so a seeded run names its processes the same way every time. */
export function uuidFrom(random: Random): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16));
  hex[12] = 4;
  hex[16] = 8 + ((hex[16] ?? 0) % 4);
  const s = hex.map((d) => d.toString(16)).join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** The lease identity a controller manager uses: `hostname + "_" + UUID`, new for every start. */
export function managerIdentity(hostname: string, random: Random): string {
  return `${hostname}_${uuidFrom(random)}`;
}
