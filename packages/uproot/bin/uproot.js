#!/usr/bin/env node
// `uproot` and `kubectl-uproot` as npm links them: the built CLI (dist/, which `npm run build` writes and
// `npm ci` runs through `prepare`). A file of its own so the link exists at install time, before the build;
// npm links a workspace's bin only when its target is there (docs/decisions/0019-sandbox-workspace-package.md).
import '../dist/cli/main.js';
