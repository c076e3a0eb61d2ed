/** IPv4 CIDR arithmetic for the node IPAM range allocator and the route controller (pure). */

export interface Ipv4Cidr {
  /** Network address as an unsigned 32-bit number. */
  readonly base: number;
  readonly prefix: number;
}

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

export function parseCidr(text: string): Ipv4Cidr | undefined {
  const m = CIDR.exec(text.trim());
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const ip = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  return { base: ip - (ip % size), prefix };
}

export function formatCidr(cidr: Ipv4Cidr): string {
  const b = cidr.base;
  return `${Math.floor(b / 2 ** 24) % 256}.${Math.floor(b / 2 ** 16) % 256}.${Math.floor(b / 2 ** 8) % 256}.${b % 256}/${cidr.prefix}`;
}

/** Whether `inner` lies entirely within `outer`. */
export function cidrContains(outer: Ipv4Cidr, inner: Ipv4Cidr): boolean {
  if (inner.prefix < outer.prefix) return false;
  const size = 2 ** (32 - outer.prefix);
  return inner.base >= outer.base && inner.base < outer.base + size;
}

/**
 * The range allocator's bitmap over `clusterCidr` in blocks of `/maskSize`: existing node CIDRs are marked
 * used first, then each `next()` hands out the lowest free block.
 */
export class PodCidrAllocator {
  private readonly used = new Set<number>();
  private readonly cluster: Ipv4Cidr;
  private readonly blockSize: number;
  private readonly blocks: number;

  constructor(
    clusterCidr: string,
    readonly maskSize: number,
  ) {
    const parsed = parseCidr(clusterCidr);
    if (!parsed) throw new RangeError(`invalid cluster CIDR ${JSON.stringify(clusterCidr)}`);
    if (maskSize < parsed.prefix || maskSize > 32) {
      throw new RangeError(`node CIDR mask size ${maskSize} does not fit in cluster CIDR ${clusterCidr}`);
    }
    this.cluster = parsed;
    this.blockSize = 2 ** (32 - maskSize);
    this.blocks = 2 ** (maskSize - parsed.prefix);
  }

  /** Marks a node's CIDR as taken; false when it is outside the cluster range or of another size. */
  occupy(cidr: string): boolean {
    const parsed = parseCidr(cidr);
    if (!parsed || parsed.prefix !== this.maskSize || !cidrContains(this.cluster, parsed)) return false;
    this.used.add((parsed.base - this.cluster.base) / this.blockSize);
    return true;
  }

  release(cidr: string): void {
    const parsed = parseCidr(cidr);
    if (parsed) this.used.delete((parsed.base - this.cluster.base) / this.blockSize);
  }

  /** The lowest free block, marked used; undefined when the range is exhausted. */
  next(): string | undefined {
    for (let i = 0; i < this.blocks; i++) {
      if (this.used.has(i)) continue;
      this.used.add(i);
      return formatCidr({ base: this.cluster.base + i * this.blockSize, prefix: this.maskSize });
    }
    return undefined;
  }
}
