/**
 * The command table, in the order `uproot --help` lists them. Each command module exports a registrar that
 * is imported only when its command runs, so `uproot --version` starts without the toolkit, the AWS SDK or
 * the sandbox (its own package, @uproot/sandbox, loaded by src/cli/sandbox-commands.ts). Add yours here (one entry; program.test.ts checks name, description and options against
 * what the module registers).
 */
import { registerCommands } from '../program.js';
import type { SandboxCommands } from '../sandbox-commands.js';

/** The sandbox package's commands, loaded (with their loader) only when `demo` or `sandbox` runs. */
const sandbox = async (): Promise<SandboxCommands> =>
  (await import('../sandbox-commands.js')).loadSandboxCommands();

registerCommands(
  {
    name: 'preflight',
    description:
      'Audit the cluster and its AWS account (read-only) for everything the migration needs, and how to fix it',
    options: true,
    load: async () => (await import('./preflight.js')).registerPreflightCommand,
  },
  {
    name: 'plan',
    description:
      'Plan the migration of a cluster definition (RKE2, RKE, kubeadm) to the aws-cloud-controller-manager, offline',
    options: true,
    load: async () => (await import('./plan.js')).registerPlanCommand,
  },
  {
    name: 'migrate',
    description:
      'Carry out the migration plan step by step behind verification gates, journaled and resumable',
    options: true,
    load: async () => (await import('./migrate.js')).registerMigrateCommand,
  },
  {
    name: 'verify',
    description:
      'Prove the migration\u2019s end state (providerIDs, taints, CCM, KCM flags, load balancers, leases)',
    options: true,
    load: async () => (await import('./verify.js')).registerVerifyCommand,
  },
  {
    name: 'status',
    description: 'Show the migration journal, the current step, lease holders and the ownership timeline',
    options: true,
    load: async () => (await import('./status.js')).registerStatusCommand,
  },
  {
    name: 'rollback',
    description: 'Undo the journaled migration, last step first, back to the in-tree cloud provider',
    options: true,
    load: async () => (await import('./rollback.js')).registerRollbackCommand,
  },
  {
    name: 'report',
    description:
      'Render the migration journal as a report: steps, timings, gate results and the ownership timeline',
    options: true,
    load: async () => (await import('./report.js')).registerReportCommand,
  },
  {
    name: 'snapshot',
    description:
      'Record the cluster and its AWS account (read-only, no secrets) as a scenario file the sandbox replays as a twin',
    options: true,
    load: async () => (await import('./snapshot.js')).registerSnapshotCommand,
  },
  {
    name: 'fleet',
    description:
      'Preflight, plan and migrate every downstream cluster of a Rancher, as Jobs in its local cluster if you like (docs/fleet.md)',
    options: false,
    load: async () => (await import('./fleet.js')).registerFleetCommands,
  },
  {
    name: 'demo',
    description:
      'Migrate an embedded twin of a Rancher RKE2 (or RKE) cluster on AWS end to end: preflight, migrate, verify, report',
    options: true,
    load: async () => (await sandbox()).registerDemoCommand,
  },
  {
    name: 'sandbox',
    description:
      'Run twins of RKE2, RKE and kubeadm clusters on AWS to rehearse a migration (docs/sandbox.md)',
    options: false,
    load: async () => (await sandbox()).registerSandboxCommands,
  },
  {
    name: 'leader-migration',
    description: 'Validate and render LeaderMigrationConfiguration files (controllermanager.config.k8s.io)',
    options: false,
    load: async () => (await import('./leader-migration.js')).registerLeaderMigrationCommands,
  },
);
