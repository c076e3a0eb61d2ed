import { describe, expect, it } from 'vitest';
import { VirtualClock, seededRandom } from 'uproot';
import { createLedger } from 'uproot/core';
import { startSimulatedManager } from './simulated-manager.js';

/** Start-up failures happen before any connection, so nothing listens on these endpoints. */
function start(
  component: 'kube-controller-manager' | 'cloud-controller-manager',
  args: string[],
  version: string,
  files: Record<string, string> = {},
) {
  const ledger = createLedger();
  const manager = startSimulatedManager({
    component,
    nodeName: 'ip-10-0-0-10.ec2.internal',
    args,
    kubernetesVersion: version,
    kube: { server: 'http://127.0.0.1:9', token: 'unused' },
    aws: {
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
    },
    clock: new VirtualClock(0),
    random: seededRandom(1),
    ledger,
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`open ${path}: no such file or directory`);
      return text;
    },
  });
  return { manager, ledger };
}

describe('simulated manager start-up', () => {
  it('names itself hostname_UUID from the injected random', () => {
    const a = start(
      'cloud-controller-manager',
      ['--cloud-provider=aws', '--leader-elect=maybe'],
      '1.27',
    ).manager;
    const b = start(
      'cloud-controller-manager',
      ['--cloud-provider=aws', '--leader-elect=maybe'],
      '1.27',
    ).manager;
    expect(a.identity).toMatch(
      /^ip-10-0-0-10\.ec2\.internal_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(b.identity).toBe(a.identity);
  });

  it.each([
    [
      'a bad flag value',
      'cloud-controller-manager',
      ['--cloud-provider=aws', '--leader-elect=maybe'],
      '1.27',
      'invalid argument "maybe" for "--leader-elect" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    [
      'leader migration on 1.21 without the feature gate',
      'kube-controller-manager',
      [
        '--cloud-provider=aws',
        '--enable-leader-migration',
        '--leader-migration-config=/etc/leadermigration.conf',
      ],
      '1.21',
      'Leader Migration is not enabled through feature gate',
    ],
    [
      'a CCM without a cloud provider',
      'cloud-controller-manager',
      [],
      '1.27',
      '--cloud-provider cannot be empty',
    ],
    [
      'the in-tree provider on a 1.27 KCM without leader election (removed from the tree)',
      'kube-controller-manager',
      ['--cloud-provider=aws', '--leader-elect=false'],
      '1.27',
      'cloud provider could not be initialized: unknown cloud provider "aws"',
    ],
    [
      'a missing leader-migration configuration file',
      'kube-controller-manager',
      [
        '--cloud-provider=aws',
        '--enable-leader-migration',
        '--leader-migration-config=/etc/leadermigration.conf',
      ],
      '1.26',
      'unable to read leader migration configuration from "/etc/leadermigration.conf": open /etc/leadermigration.conf: no such file or directory',
    ],
  ] as const)('exits 1 at start on %s', async (_what, component, args, version, reason) => {
    const { manager, ledger } = start(component, [...args], version);
    expect(await manager.exited).toEqual({ code: 1, reason });
    expect(manager.running).toBe(false);
    expect(manager.logs).toContain(reason);
    expect(ledger.entries).toEqual([]);
  });

  it('exits 1 on an invalid configuration file with the options layer\u2019s message', async () => {
    const file = [
      'kind: LeaderMigrationConfiguration',
      'apiVersion: controllermanager.config.k8s.io/v1',
      'leaderName: ""',
      'controllerLeaders:',
      '  - name: route',
      '    component: ""',
    ].join('\n');
    const { manager } = start(
      'kube-controller-manager',
      [
        '--cloud-provider=aws',
        '--enable-leader-migration',
        '--leader-migration-config=/etc/leadermigration.conf',
      ],
      '1.26',
      { '/etc/leadermigration.conf': file },
    );
    expect(await manager.exited).toEqual({
      code: 1,
      reason:
        'failed to parse leader migration configuration: [leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration controllerLeaders[0].component: Required value: component must be set]',
    });
  });

  it('holds virtual time still while it reads its files (a slow disk does not lengthen a restart)', async () => {
    const clock = new VirtualClock(0);
    const manager = startSimulatedManager({
      component: 'kube-controller-manager',
      nodeName: 'n',
      args: ['--cloud-provider=aws', '--enable-leader-migration', '--leader-migration-config=/etc/lm.conf'],
      kubernetesVersion: '1.26',
      kube: { server: 'http://127.0.0.1:9', token: 't' },
      aws: { endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'A', secretAccessKey: 'x' } },
      clock,
      random: seededRandom(3),
      ledger: createLedger(),
      // A real 30 ms read (an untracked one let a driver race ahead by seconds under load: the demo's gaps).
      readFile: () => new Promise((resolve) => setTimeout(() => resolve('kind: Nonsense'), 30)),
    });
    let exited = false;
    void manager.exited.then(() => (exited = true));
    while (!exited) await clock.advanceBy(250);
    expect((await manager.exited).code).toBe(1);
    // One driver step: the first advance waited for the read to finish instead of firing through it.
    expect(clock.now()).toBe(250);
  });

  it('does not read the configuration file when migration is off (upstream ApplyTo)', async () => {
    const read: string[] = [];
    const manager = startSimulatedManager({
      component: 'cloud-controller-manager',
      nodeName: 'n',
      args: [
        '--cloud-provider=aws',
        '--leader-migration-config=/etc/leadermigration.conf',
        '--leader-elect=nope',
      ],
      kubernetesVersion: '1.27',
      kube: { server: 'http://127.0.0.1:9', token: 't' },
      aws: { endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'A', secretAccessKey: 'x' } },
      clock: new VirtualClock(0),
      random: seededRandom(2),
      ledger: createLedger(),
      readFile: (p) => {
        read.push(p);
        return '';
      },
    });
    await manager.exited;
    expect(read).toEqual([]);
  });
});
