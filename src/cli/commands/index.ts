/**
 * The command table, in the order `uproot --help` lists them. Each command module exports a registrar; add
 * yours here (one import, one entry).
 */
import { registerCommands } from '../program.js';
import { registerDemoCommand } from './demo.js';
import { registerFleetCommands } from './fleet.js';
import { registerLeaderMigrationCommands } from './leader-migration.js';
import { registerMigrateCommand } from './migrate.js';
import { registerPlanCommand } from './plan.js';
import { registerPreflightCommand } from './preflight.js';
import { registerReportCommand } from './report.js';
import { registerRollbackCommand } from './rollback.js';
import { registerSandboxCommands } from './sandbox.js';
import { registerStatusCommand } from './status.js';
import { registerVerifyCommand } from './verify.js';

registerCommands(
  registerPreflightCommand,
  registerPlanCommand,
  registerMigrateCommand,
  registerVerifyCommand,
  registerStatusCommand,
  registerRollbackCommand,
  registerReportCommand,
  registerFleetCommands,
  registerDemoCommand,
  registerSandboxCommands,
  registerLeaderMigrationCommands,
);
