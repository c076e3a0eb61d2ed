/** IPv4 arithmetic for subnet address allocation and DNS-name derivation. */
export function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  return (((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!) >>> 0;
}

export function intToIp(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export interface CidrRange {
  readonly network: number;
  readonly prefix: number;
  /** Number of addresses in the block. */
  readonly size: number;
}

export function parseCidr(cidr: string): CidrRange {
  const [ip, bits] = cidr.split('/');
  const prefix = Number(bits);
  const size = 2 ** (32 - prefix);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { network: (ipToInt(ip!) & mask) >>> 0, prefix, size };
}

export function cidrContains(range: CidrRange, ip: string): boolean {
  const n = ipToInt(ip);
  return n >= range.network && n < range.network + range.size;
}

/** EC2's private DNS domain (and the default DHCP options' domain-name): `ec2.internal` in us-east-1. */
export function privateDnsDomain(region: string): string {
  return region === 'us-east-1' ? 'ec2.internal' : `${region}.compute.internal`;
}

/** EC2's private DNS name for an address: `ip-10-0-1-23.ec2.internal` in us-east-1, `…<region>.compute.internal` elsewhere. */
export function privateDnsNameFor(ip: string, region: string): string {
  return `ip-${ip.replace(/\./g, '-')}.${privateDnsDomain(region)}`;
}

/** A public address's DNS name: `ec2-3-4-5-6.compute-1.amazonaws.com` in us-east-1. */
export function publicDnsNameFor(ip: string, region: string): string {
  const host = `ec2-${ip.replace(/\./g, '-')}`;
  return region === 'us-east-1'
    ? `${host}.compute-1.amazonaws.com`
    : `${host}.${region}.compute.amazonaws.com`;
}

/** `use1` for us-east-1, `euw2` for eu-west-2, `apne1` for ap-northeast-1: the AZ-id prefix. */
export function regionShortName(region: string): string {
  const parts = region.split('-');
  const number = parts[parts.length - 1];
  const directions = parts
    .slice(1, -1)
    .map((word) =>
      word
        .replace('north', 'n')
        .replace('south', 's')
        .replace('east', 'e')
        .replace('west', 'w')
        .replace('central', 'c'),
    );
  return `${parts[0]}${directions.join('')}${number}`;
}

/** `us-east-1a` → `use1-az1`. */
export function zoneIdFor(zoneName: string, region: string): string {
  const letter = zoneName.slice(region.length);
  const index = letter.length === 1 ? letter.charCodeAt(0) - 96 : 1;
  return `${regionShortName(region)}-az${index}`;
}
