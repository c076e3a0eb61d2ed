import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  bitString,
  booleanTrue,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  set,
  time,
  tlv,
  utf8String,
} from './der.js';

/** PEM-encoded material for an https listener and the CA clients should trust. */
export interface ServingCertificate {
  readonly caCertificate: string;
  readonly certificate: string;
  readonly privateKey: string;
}

const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

function name(cn: string): Buffer {
  return sequence(
    set(sequence(oid(ORGANIZATION), utf8String('uproot sandbox'))),
    set(sequence(oid(COMMON_NAME), utf8String(cn))),
  );
}

function extension(id: string, value: Buffer, critical = false): Buffer {
  return sequence(oid(id), ...(critical ? [booleanTrue()] : []), octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (ip.includes(':')) {
    const [head = '', tail = ''] = ip.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
    return Buffer.from(groups.flatMap((g) => [(parseInt(g, 16) >> 8) & 0xff, parseInt(g, 16) & 0xff]));
  }
  return Buffer.from(ip.split('.').map(Number));
}

function subjectAltName(dnsNames: readonly string[], ips: readonly string[]): Buffer {
  return sequence(
    ...dnsNames.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))),
    ...ips.map((ip) => tlv(0x87, ipBytes(ip))),
  );
}

function keyId(publicKey: KeyObject): Buffer {
  return createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
}

function certificate(options: {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerKeyId: Buffer;
  now: number;
  validDays: number;
  extensions: Buffer[];
}): Buffer {
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(Buffer.concat([Buffer.from([0x01]), randomBytes(15)])),
    ECDSA_SHA256,
    name(options.issuer),
    sequence(time(options.now - 3_600_000), time(options.now + options.validDays * 86_400_000)),
    name(options.subject),
    options.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        ...options.extensions,
        extension('2.5.29.14', octetString(keyId(options.publicKey))),
        extension('2.5.29.35', sequence(tlv(0x80, options.issuerKeyId))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, options.signingKey);
  return sequence(tbs, ECDSA_SHA256, bitString(signature));
}

function pem(label: string, der: Buffer): string {
  const b64 = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/**
 * A throwaway CA and a serving certificate it signed (ECDSA P-256), valid for `localhost`, `127.0.0.1` and
 * `::1`. kubectl only sends credentials to https servers, so the sandbox serves TLS and hands clients this
 * CA: verification stays on. `now` is wall-clock milliseconds (certificates are checked against real time).
 */
export function createServingCertificate(now: number, validDays = 365): ServingCertificate {
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caId = keyId(ca.publicKey);
  const caCert = certificate({
    subject: 'uproot-sandbox-ca',
    issuer: 'uproot-sandbox-ca',
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    issuerKeyId: caId,
    now,
    validDays,
    extensions: [
      extension('2.5.29.19', sequence(booleanTrue()), true),
      // keyUsage: digitalSignature, keyCertSign, cRLSign
      extension('2.5.29.15', bitString(Buffer.from([0x86]), 1), true),
    ],
  });
  const leafCert = certificate({
    subject: 'kube-apiserver',
    issuer: 'uproot-sandbox-ca',
    publicKey: leaf.publicKey,
    signingKey: ca.privateKey,
    issuerKeyId: caId,
    now,
    validDays,
    extensions: [
      extension('2.5.29.19', sequence(), true),
      // keyUsage: digitalSignature, keyEncipherment
      extension('2.5.29.15', bitString(Buffer.from([0xa0]), 5), true),
      extension('2.5.29.37', sequence(oid('1.3.6.1.5.5.7.3.1'))),
      extension(
        '2.5.29.17',
        subjectAltName(['localhost', 'kubernetes', 'kubernetes.default'], ['127.0.0.1', '::1']),
      ),
    ],
  });
  return {
    caCertificate: pem('CERTIFICATE', caCert),
    certificate: pem('CERTIFICATE', leafCert),
    privateKey: leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
