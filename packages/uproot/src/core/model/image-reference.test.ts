import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UprootError } from '../../errors/index.js';
import {
  formatImageReference,
  imageName,
  imageTag,
  normalizeImageReference,
  parseImageReference,
  sameRepository,
  tryParseImageReference,
  withImageTag,
  type ImageReference,
} from './image-reference.js';

const F64 = 'f'.repeat(64);
const ok = (input: string): ImageReference => {
  const parsed = parseImageReference(input);
  if (!parsed.valid) throw new Error(`${input}: ${parsed.message}`);
  return parsed.reference;
};
const problem = (input: string): string | undefined => {
  const parsed = parseImageReference(input);
  return parsed.valid ? undefined : parsed.problem;
};

// Cases from distribution/reference reference_test.go TestReferenceParse (domain, name, tag, digest).
describe('parseImageReference: upstream TestReferenceParse cases', () => {
  const cases: [string, string | undefined, string, string | undefined, string | undefined][] = [
    ['test_com', undefined, 'test_com', undefined, undefined],
    ['test.com:tag', undefined, 'test.com', 'tag', undefined],
    // One component: the grammar has no domain there, so the number is a tag.
    ['test.com:5000', undefined, 'test.com', '5000', undefined],
    ['test.com/repo:tag', 'test.com', 'test.com/repo', 'tag', undefined],
    ['test:5000/repo', 'test:5000', 'test:5000/repo', undefined, undefined],
    ['test:5000/repo:tag', 'test:5000', 'test:5000/repo', 'tag', undefined],
    [`test:5000/repo@sha256:${F64}`, 'test:5000', 'test:5000/repo', undefined, `sha256:${F64}`],
    [`test:5000/repo:tag@sha256:${F64}`, 'test:5000', 'test:5000/repo', 'tag', `sha256:${F64}`],
    ['lowercase:Uppercase', undefined, 'lowercase', 'Uppercase', undefined],
    [
      'sub-dom1.foo.com/bar/baz/quux:some-long-tag',
      'sub-dom1.foo.com',
      'sub-dom1.foo.com/bar/baz/quux',
      'some-long-tag',
      undefined,
    ],
    [
      'b.gcr.io/test.example.com/my-app:test.example.com',
      'b.gcr.io',
      'b.gcr.io/test.example.com/my-app',
      'test.example.com',
      undefined,
    ],
    ['foo_bar.com:8080', undefined, 'foo_bar.com', '8080', undefined],
    ['foo/foo_bar.com:8080', 'foo', 'foo/foo_bar.com', '8080', undefined],
    ['192.168.1.1:5000/repo:5050', '192.168.1.1:5000', '192.168.1.1:5000/repo', '5050', undefined],
    ['[2001:db8::1]/repo', '[2001:db8::1]', '[2001:db8::1]/repo', undefined, undefined],
    [
      `[2001:db8::1]:5000/repo:tag@sha256:${F64}`,
      '[2001:db8::1]:5000',
      '[2001:db8::1]:5000/repo',
      'tag',
      `sha256:${F64}`,
    ],
    ['[::1]:5000/repo', '[::1]:5000', '[::1]:5000/repo', undefined, undefined],
    [`example.com/${'a'.repeat(255)}:tag`, 'example.com', `example.com/${'a'.repeat(255)}`, 'tag', undefined],
  ];
  it.each(cases)('%s', (input, domain, name, tag, digest) => {
    const ref = ok(input);
    expect({ domain: ref.domain, name: imageName(ref), tag: ref.tag, digest: ref.digest }).toEqual({
      domain,
      name,
      tag,
      digest,
    });
    expect(formatImageReference(ref)).toBe(input);
  });

  const errors: [string, string][] = [
    ['', 'empty'],
    [':justtag', 'invalid-format'],
    [`@sha256:${F64}`, 'invalid-format'],
    ['repo@sha256:ffffffffffffffffffffffffffffffffff', 'digest-invalid-length'],
    [`validname@invaliddigest:${F64}`, 'digest-unsupported'],
    ['Uppercase:tag', 'uppercase'],
    ['test:5000/Uppercase/lowercase:tag', 'uppercase'],
    [`domain/${'a'.repeat(256)}:tag`, 'name-too-long'],
    ['aa/asdf$$^/aa', 'invalid-format'],
    ['[2001:db8::1]', 'invalid-format'],
    ['[2001:db8::1]:5000', 'invalid-format'],
    ['[fe80::1%eth0]:5000/repo', 'invalid-format'],
    [`repo@sha256:${'F'.repeat(64)}`, 'digest-invalid-format'],
    ['repo:v1.26.15+rke2r1', 'invalid-format'],
  ];
  it.each(errors)('rejects %j (%s)', (input, expected) => {
    expect(problem(input)).toBe(expected);
    expect(tryParseImageReference(input)).toBeUndefined();
  });
});

describe('the images uproot meets', () => {
  // Moved from core/ccm/ccm.test.ts with the parser; its digest was `sha256:abc`, which the grammar refuses
  // (go-digest: a sha256 digest is 64 hex digits), so it is a real-length one here.
  it('reads and replaces tags, with registry ports and digests', () => {
    expect(imageTag('registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11')).toBe('v1.26.11');
    expect(imageTag('registry.local:5000/ccm')).toBeUndefined();
    expect(imageTag(`r.io/ccm:v1.27.7@sha256:${F64}`)).toBe('v1.27.7');
    expect(imageTag('r.io/ccm:v1.27.7@sha256:abc')).toBeUndefined();
    expect(withImageTag('registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11', 'v1.26.14')).toBe(
      'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.14',
    );
    expect(withImageTag('registry.local:5000/ccm', 'v1.26.14')).toBe('registry.local:5000/ccm:v1.26.14');
  });

  // Moved from engine/gates/kubernetes-version.test.ts (its imageTagOf is this imageTag now), digest as above.
  it('reads the tag after the last colon of the name, not a registry port, and ignores digests', () => {
    expect(imageTag('registry.k8s.io/kube-apiserver:v1.28.15')).toBe('v1.28.15');
    expect(imageTag('localhost:5000/kube-apiserver')).toBeUndefined();
    expect(imageTag(`localhost:5000/kube-apiserver:v1.28.15@sha256:${F64}`)).toBe('v1.28.15');
  });

  it('reads registry.k8s.io, RKE2 and RKE control-plane images', () => {
    expect(imageTag('registry.k8s.io/kube-apiserver:v1.27.16')).toBe('v1.27.16');
    expect(imageTag('index.docker.io/rancher/hardened-kubernetes:v1.27.16-rke2r1-build20240717')).toBe(
      'v1.27.16-rke2r1-build20240717',
    );
    expect(imageTag('rancher/hyperkube:v1.27.16-rancher1')).toBe('v1.27.16-rancher1');
    expect(imageTag('registry.k8s.io/provider-aws/cloud-controller-manager')).toBeUndefined();
    expect(imageTag(`registry.k8s.io/kube-apiserver@sha256:${F64}`)).toBeUndefined();
  });

  it('never takes a private registry port for a tag', () => {
    expect(imageTag('registry.internal:5000/kube-apiserver')).toBeUndefined();
    expect(imageTag('registry.internal:5000/kube-apiserver:v1.27.16')).toBe('v1.27.16');
  });

  it('replaces the tag, keeps the port, drops the digest that would pin the old image', () => {
    expect(withImageTag('registry.internal:5000/ccm', 'v1.27.9')).toBe('registry.internal:5000/ccm:v1.27.9');
    expect(withImageTag(`registry.internal:5000/ccm:v1.26.1@sha256:${F64}`, 'v1.27.9')).toBe(
      'registry.internal:5000/ccm:v1.27.9',
    );
  });

  it('refuses to tag what is no reference, or with what is no tag', () => {
    expect(() => withImageTag('Registry/CCM:v1', 'v2')).toThrow(UprootError);
    expect(() => withImageTag('registry.k8s.io/ccm', 'v1.27.9+rke2r1')).toThrow(/no image tag/);
  });

  it('normalises Docker Hub names as normalize.go does', () => {
    const norm = (s: string): string => formatImageReference(normalizeImageReference(ok(s)));
    expect(norm('ubuntu')).toBe('docker.io/library/ubuntu');
    expect(norm('rancher/hyperkube:v1')).toBe('docker.io/rancher/hyperkube:v1');
    expect(norm('index.docker.io/rancher/rke2-cloud-provider:v1')).toBe(
      'docker.io/rancher/rke2-cloud-provider:v1',
    );
    expect(norm('docker.io/nginx')).toBe('docker.io/library/nginx');
    expect(norm('localhost/foo')).toBe('localhost/foo');
    expect(norm('host:5000/foo')).toBe('host:5000/foo');
    expect(
      sameRepository('rancher/rke2-cloud-provider:v1', 'index.docker.io/rancher/rke2-cloud-provider'),
    ).toBe(true);
    expect(sameRepository('rancher/rke2-cloud-provider', 'rancher/rke2-runtime')).toBe(false);
  });
});

// Generators from regexp.go's terms.
const alnum = fc.stringMatching(/^[a-z0-9]{1,4}$/);
const separator = fc.constantFrom('.', '_', '__', '-', '--');
const pathComponent = fc
  .tuple(alnum, fc.array(fc.tuple(separator, alnum), { maxLength: 2 }))
  .map(([head, rest]) => head + rest.map(([s, a]) => s + a).join(''));
const path = fc.array(pathComponent, { minLength: 1, maxLength: 3 }).map((c) => c.join('/'));
const domainComponent = fc.stringMatching(/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,4}[a-zA-Z0-9])?$/);
const port = fc.integer({ min: 1, max: 65535 }).map(String);
/** A domain the grammar always reads as one: dotted, or with a port, or IPv6. */
const domain = fc.oneof(
  fc
    .tuple(fc.array(domainComponent, { minLength: 2, maxLength: 3 }), fc.option(port, { nil: undefined }))
    .map(([c, p]) => c.join('.') + (p ? `:${p}` : '')),
  fc.tuple(domainComponent, port).map(([c, p]) => `${c}:${p}`),
  // An IPv6 address has a colon (which is also what makes normalize.go read `[…]` as a domain).
  fc
    .tuple(fc.stringMatching(/^[a-f0-9]{0,4}:[a-f0-9:]{0,6}$/), fc.option(port, { nil: undefined }))
    .map(([a, p]) => `[${a}]${p ? `:${p}` : ''}`),
);
const tag = fc.stringMatching(/^\w[\w.-]{0,20}$/);
const digest = fc.stringMatching(/^[a-f0-9]{64}$/).map((h) => `sha256:${h}`);
const reference: fc.Arbitrary<ImageReference> = fc.record({
  domain,
  path,
  tag: fc.option(tag, { nil: undefined }),
  digest: fc.option(digest, { nil: undefined }),
});

describe('parseImageReference: properties over the grammar', () => {
  it('round trips: parse(format(r)) is r, format(parse(s)) is s', () => {
    fc.assert(
      fc.property(reference, (r) => {
        const s = formatImageReference(r);
        expect(ok(s)).toEqual(r);
        expect(formatImageReference(ok(s))).toBe(s);
      }),
    );
  });

  it('never takes a registry port for a tag', () => {
    fc.assert(
      fc.property(domainComponent, port, path, fc.option(tag, { nil: undefined }), (host, p, repo, t) => {
        const ref = ok(`${host}:${p}/${repo}${t === undefined ? '' : `:${t}`}`);
        expect(ref.domain).toBe(`${host}:${p}`);
        expect(ref.tag).toBe(t);
      }),
    );
  });

  it('keeps digests, with or without a tag', () => {
    fc.assert(
      fc.property(reference, digest, (r, d) => {
        const ref = ok(formatImageReference({ ...r, digest: d }));
        expect(ref.digest).toBe(d);
        expect(ref.tag).toBe(r.tag);
      }),
    );
  });

  it('replaces the tag and nothing else of the name', () => {
    fc.assert(
      fc.property(reference, tag, (r, t) => {
        const tagged = ok(withImageTag(formatImageReference(r), t));
        expect(tagged).toEqual({ domain: r.domain, path: r.path, tag: t, digest: undefined });
      }),
    );
  });

  it('normalises once: a normalised reference is its own normal form, with the same tag and digest', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          reference,
          reference.map((r) => ({ ...r, domain: undefined })),
        ),
        (r) => {
          const parsed = ok(formatImageReference(r));
          const once = normalizeImageReference(parsed);
          expect(normalizeImageReference(ok(formatImageReference(once)))).toEqual(once);
          expect([once.tag, once.digest]).toEqual([r.tag, r.digest]);
        },
      ),
    );
  });
});
