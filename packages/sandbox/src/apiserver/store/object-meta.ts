import type { Random } from 'uproot';
import type { NameRule } from '../registry/resource-type.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The upstream validation message for a bad `metadata.name`, or undefined when it is fine. */
export function nameProblem(name: string, rule: NameRule): string | undefined {
  switch (rule) {
    case 'dns-subdomain':
      if (name.length > 253) return 'must be no more than 253 characters';
      if (!DNS_SUBDOMAIN.test(name)) {
        return `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
      }
      return undefined;
    case 'dns-label':
      if (name.length > 63) return 'must be no more than 63 characters';
      if (!DNS_LABEL.test(name)) {
        return `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
      }
      return undefined;
    case 'path-segment':
      if (name === '.' || name === '..') return `may not be '${name}'`;
      if (name.includes('/')) return "may not contain '/'";
      if (name.includes('%')) return "may not contain '%'";
      return undefined;
  }
}

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
