/**
 * The command table. Each command module exports a registrar; add yours here (one import, one entry).
 */
import { registerCommands } from '../program.js';
import { registerLeaderMigrationCommands } from './leader-migration.js';

registerCommands(registerLeaderMigrationCommands);
