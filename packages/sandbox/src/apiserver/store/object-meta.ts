import type { Random } from 'uproot';

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` + 5 characters from the upstream alphabet (no vowels, so no words). */
export function generatedName(prefix: string, random: Random): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[Math.floor(random() * SUFFIX_ALPHABET.length)];
  return `${prefix.slice(0, 58)}${suffix}`;
}

/** A version 4 UUID drawn from the injected random source, so seeded runs repeat. */
export function randomUid(random: Random): string {
  const hex: string[] = [];
  for (let i = 0; i < 32; i++) hex.push(Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Math.floor(random() * 4) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Hands out ClusterIPs from 10.43.0.0/16 and NodePorts from 30000-32767 (RKE2's service range). */
export class ServiceAllocator {
  private nextIp = 10;
  private nextPort = 30000;
  private readonly usedIps = new Set<string>();
  private readonly usedPorts = new Set<number>();

  clusterIp(): string {
    for (;;) {
      const n = this.nextIp++;
      const ip = `10.43.${(n >> 8) & 0xff}.${n & 0xff}`;
      if ((n & 0xff) !== 0 && (n & 0xff) !== 255 && !this.usedIps.has(ip)) {
        this.usedIps.add(ip);
        return ip;
      }
    }
  }

  nodePort(): number {
    for (;;) {
      const p = this.nextPort++;
      if (this.nextPort > 32767) this.nextPort = 30000;
      if (!this.usedPorts.has(p)) {
        this.usedPorts.add(p);
        return p;
      }
    }
  }

  reserve(ip: unknown): void {
    if (typeof ip === 'string') this.usedIps.add(ip);
  }
}
