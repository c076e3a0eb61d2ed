import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeLeaderMigrationConfiguration } from './decode.js';
import { checkLeaderMigrationConfiguration } from './check.js';
import { UprootError } from '../../errors/index.js';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';

const head = (v: string): string =>
  `apiVersion: controllermanager.config.k8s.io/${v}\nkind: LeaderMigrationConfiguration\n`;
const v131 = parseKubernetesVersion('1.31');

function decodeError(text: string): UprootError {
  try {
    decodeLeaderMigrationConfiguration(text, { file: 'lm.yaml' });
  } catch (e) {
    if (UprootError.is(e)) return e;
    throw e;
  }
  throw new Error('expected a decode error');
}

// Test vectors A.1–A.12 of the leader-migration reference §5.
describe('decode (reference vectors A)', () => {
  it('#1 empty file is an error', () => {
    expect(decodeError('').message).toBe("Object 'Kind' is missing in ''");
  });

  it('#2 a KubeletConfiguration is the wrong type', () => {
    const e = decodeError('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n');
    expect(e.message).toMatch(
      /no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io\/v1beta1"/,
    );
    expect(e.exitCode).toBe(2);
  });

  it('#3 basic v1alpha1', () => {
    const d = decodeLeaderMigrationConfiguration(
      `${head('v1alpha1')}leaderName: migration-120-to-121\nresourceLock: leases\ncontrollerLeaders: []\n`,
    );
    expect(d.config).toEqual({
      leaderName: 'migration-120-to-121',
      resourceLock: 'leases',
      controllerLeaders: [],
    });
    expect(d.issues).toEqual([]);
  });

  it('#4 endpoints decodes and passes validation', () => {
    const r = checkLeaderMigrationConfiguration(
      `${head('v1alpha1')}leaderName: x\nresourceLock: endpoints\ncontrollerLeaders: []\n`,
      {
        kubernetesVersion: parseKubernetesVersion('1.23'),
      },
    );
    expect(r.config.resourceLock).toBe('endpoints');
    expect(r.valid).toBe(true);
  });

  it('#5 an unknown field is a strict decoding error from 1.32, ignored before', () => {
    const text = `${head('v1alpha1')}leaderName: x\nresourceLock: endpoints\ncontrollerLeaders: []\nfoo: bar\n`;
    const strict = checkLeaderMigrationConfiguration(text, {
      kubernetesVersion: parseKubernetesVersion('1.32'),
    });
    expect(strict.valid).toBe(false);
    expect(strict.errors[0]).toMatchObject({
      code: 'strict-unknown-field',
      message: 'strict decoding error: unknown field "foo"',
      line: 6,
    });
    const lax = checkLeaderMigrationConfiguration(text, { kubernetesVersion: v131 });
    expect(lax.valid).toBe(true);
    expect(lax.warnings.map((w) => w.code)).toContain('strict-unknown-field');
  });

  it('#6 a duplicate field is a strict decoding error', () => {
    const r = checkLeaderMigrationConfiguration(
      `${head('v1beta1')}leaderName: x\nresourceLock: leases\nresourceLock: leases\n`,
    );
    expect(r.errors).toEqual([
      expect.objectContaining({ code: 'strict-duplicate-field', field: 'resourceLock', line: 5 }),
    ]);
  });

  it('#7 leaders keep their order', () => {
    const d = decodeLeaderMigrationConfiguration(
      `${head('v1alpha1')}leaderName: x\nresourceLock: leases\ncontrollerLeaders:\n- name: route-controller\n  component: kube-controller-manager\n- name: service-controller\n  component: kube-controller-manager\n`,
    );
    expect(d.config.controllerLeaders.map((l) => l.name)).toEqual(['route-controller', 'service-controller']);
  });

  it('#8 empty leaderName is Required', () => {
    const r = checkLeaderMigrationConfiguration(`${head('v1')}leaderName: ""\n`);
    expect(r.errors.map((e) => e.message)).toEqual([
      'leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration',
    ]);
  });

  it('#9 an invalid resourceLock', () => {
    const r = checkLeaderMigrationConfiguration(`${head('v1beta1')}leaderName: x\nresourceLock: invalid\n`);
    expect(r.errors.map((e) => e.message)).toEqual([
      `resourceLock: Invalid value: "invalid": resource Lock must be one of 'leases' or 'endpoints'`,
    ]);
    expect(r.errors[0]).toMatchObject({ line: 4, column: 15 });
  });

  it('#10 an empty controllerLeaders list is valid', () => {
    expect(
      checkLeaderMigrationConfiguration(
        `${head('v1beta1')}leaderName: test\nresourceLock: leases\ncontrollerLeaders: []\n`,
      ).valid,
    ).toBe(true);
  });

  it('#11 an empty component is Required, with the detail text up to 1.33', () => {
    const text = `${head('v1')}leaderName: x\ncontrollerLeaders:\n- name: x\n  component: ""\n`;
    expect(
      checkLeaderMigrationConfiguration(text, { kubernetesVersion: parseKubernetesVersion('1.33') }).errors[0]
        ?.message,
    ).toBe('controllerLeaders[0].component: Required value: component must be set');
    expect(
      checkLeaderMigrationConfiguration(text, { kubernetesVersion: parseKubernetesVersion('1.34') }).errors[0]
        ?.message,
    ).toBe('controllerLeaders[0].component: Required value');
  });

  it('#12 an unquoted * is a YAML error with a hint to quote it', () => {
    const e = decodeError(`${head('v1')}leaderName: x\ncontrollerLeaders:\n- name: route\n  component: *\n`);
    expect(e.code).toBe('UP-LM-YAML');
    expect(e.location).toMatchObject({ file: 'lm.yaml', line: 6 });
    expect(e.hint).toMatch(/component: "\*"/);
  });
});

describe('decode (reference vectors B, file side)', () => {
  it('#15 a v1 file has resourceLock leases', () => {
    expect(decodeLeaderMigrationConfiguration(`${head('v1')}leaderName: x\n`).config.resourceLock).toBe(
      'leases',
    );
  });

  it('a v1 file with resourceLock is rejected from 1.32 (unknown field)', () => {
    const r = checkLeaderMigrationConfiguration(`${head('v1')}leaderName: x\nresourceLock: leases\n`);
    expect(r.errors[0]).toMatchObject({
      code: 'strict-unknown-field',
      hint: expect.stringMatching(/v1 has no resourceLock/),
    });
  });

  it('#16/#17 four entries kept as given', () => {
    const text = `${head('v1')}leaderName: cloud-provider-extraction-migration\ncontrollerLeaders:\n${[
      ['route-controller', 'cloud-controller-manager'],
      ['service-controller', 'cloud-controller-manager'],
      ['cloud-node-lifecycle-controller', 'cloud-controller-manager'],
      ['node-ipam-controller', 'kube-controller-manager'],
    ]
      .map(([n, c]) => `- name: ${n}\n  component: ${c}\n`)
      .join('')}`;
    const d = decodeLeaderMigrationConfiguration(text);
    expect(d.config.controllerLeaders).toHaveLength(4);
    expect(d.config.controllerLeaders[3]).toEqual({
      name: 'node-ipam-controller',
      component: 'kube-controller-manager',
    });
  });

  it('reads JSON as well as YAML', () => {
    const d = decodeLeaderMigrationConfiguration(
      JSON.stringify({
        apiVersion: 'controllermanager.config.k8s.io/v1',
        kind: 'LeaderMigrationConfiguration',
        leaderName: 'x',
        controllerLeaders: [{ name: 'route', component: '*' }],
      }),
    );
    expect(d.config.controllerLeaders).toEqual([{ name: 'route', component: '*' }]);
  });

  it('a non-string field is a located type error', () => {
    const e = decodeError(`${head('v1')}leaderName: 42\n`);
    expect(e.code).toBe('UP-LM-TYPE');
    expect(e.location).toMatchObject({ field: 'leaderName', line: 3 });
  });
});

describe('decode never crashes', () => {
  const valid = `${head('v1')}leaderName: cloud-provider-extraction-migration\ncontrollerLeaders:\n- name: route\n  component: "*"\n- name: service\n  component: kube-controller-manager\n`;

  it('on arbitrary text: either a report or a located UprootError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        try {
          checkLeaderMigrationConfiguration(text, { file: 'f.yaml' });
        } catch (e) {
          expect(UprootError.is(e)).toBe(true);
          expect((e as UprootError).location?.file).toBe('f.yaml');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('on mutations of a valid file (deletions, insertions, truncation)', () => {
    fc.assert(
      fc.property(fc.nat(valid.length), fc.nat(20), fc.string({ maxLength: 8 }), (at, del, insert) => {
        const text = valid.slice(0, at) + insert + valid.slice(at + del);
        try {
          const r = checkLeaderMigrationConfiguration(text, { file: 'f.yaml' });
          for (const issue of [...r.errors, ...r.warnings]) expect(issue.message.length).toBeGreaterThan(0);
        } catch (e) {
          expect(UprootError.is(e)).toBe(true);
          expect((e as UprootError).location?.file).toBe('f.yaml');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
