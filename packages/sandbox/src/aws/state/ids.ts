/**
 * Deterministic identifiers. The nth id of a kind is always the same string, so a seeded run produces the same
 * instance ids, ARNs and keys every time and tests can be replayed. Counters are mixed through a bijective
 * 64-bit hash so ids look like AWS's (random-looking hex) while staying unique per kind.
 */
const MASK64 = (1n << 64n) - 1n;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** splitmix64's finaliser: a bijection on 64-bit integers. */
function mix64(input: bigint): bigint {
  let z = input & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** MurmurHash3's 32-bit finaliser. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** FNV-1a, 32-bit: spreads kind names so two kinds never share a sequence. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export class IdGenerator {
  private readonly counters = new Map<string, number>();
  private seqCounter = 0;
  private uuidCounter = 0;

  constructor(private readonly salt = 0) {}

  /** A strictly increasing number, used to order resources (creation order) and as paging cursors. */
  nextSeq(): number {
    return ++this.seqCounter;
  }

  /** 64 random-looking bits for the nth use of `kind`. */
  private bits(kind: string, stream = 0): bigint {
    const n = (this.counters.get(kind) ?? 0) + (stream === 0 ? 1 : 0);
    if (stream === 0) this.counters.set(kind, n);
    const kindBits = BigInt((hash32(kind) ^ this.salt ^ Math.imul(stream, 0x9e3779b1)) >>> 0);
    return mix64((kindBits << 32n) | BigInt(n >>> 0));
  }

  /** `prefix-0` + 16 hex digits, the 17-digit form EC2 uses today (`i-0a1b…`). */
  ec2Id(prefix: string): string {
    return `${prefix}-0${this.bits(prefix).toString(16).padStart(16, '0')}`;
  }

  /** An IAM unique id such as `AROA` + 17 base32 characters (roles), `AIPA` (profiles), `ANPA` (policies). */
  iamId(prefix: string, length = 17): string {
    return prefix + this.chars(prefix, length, BASE32);
  }

  /** A random-looking string from an alphabet, deterministic for (kind, nth call). */
  chars(kind: string, length: number, alphabet: string = BASE64): string {
    let out = '';
    let stream = 0;
    let value = this.bits(kind);
    const radix = BigInt(alphabet.length);
    while (out.length < length) {
      if (value < radix) value = this.bits(kind, ++stream);
      out += alphabet[Number(value % radix)];
      value /= radix;
    }
    return out;
  }

  /** Lower-case hex of the given length, e.g. for ELBv2 ARN ids and DNS name suffixes. */
  hex(kind: string, length: number): string {
    return this.chars(kind, length, '0123456789abcdef');
  }

  /**
   * A UUID-shaped id (request ids, ARNs). Called for every request, so it mixes 32-bit words instead of BigInts;
   * the counter in the last group keeps ids unique.
   */
  uuid(): string {
    const n = ++this.uuidCounter;
    const a = fmix32(n ^ this.salt);
    const b = fmix32(a ^ 0x9e3779b9);
    const hex = (v: number, len: number): string => v.toString(16).padStart(8, '0').slice(-len);
    return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-a${hex(fmix32(b), 3)}-${n.toString(16).padStart(12, '0')}`;
  }
}

/** Hex digits derived from a text, stable across runs (association ids and the like that have no counter). */
export function stableHex(text: string, digits: number): string {
  let out = '';
  let round = 0;
  while (out.length < digits) {
    out += mix64((BigInt(hash32(text)) << 32n) | BigInt(hash32(`${round++}:${text}`)))
      .toString(16)
      .padStart(16, '0');
  }
  return out.slice(0, digits);
}
