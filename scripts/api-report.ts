/**
 * The API reports of every public entry of the uproot package (packages/uproot/package.json `exports`): API Extractor takes one entry
 * per run, so this runs it once per entry with api-extractor.json and the entry's own report file in etc/.
 *
 *   npx tsx scripts/api-report.ts           fails when a report is out of date (npm run api:check)
 *   npx tsx scripts/api-report.ts --local   rewrites the reports (npm run api:update), to review in the diff
 *
 * Needs a build (packages/uproot/dist/*.d.ts).
 */
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = resolve(new URL('../packages/uproot', import.meta.url).pathname);

/** Entry (as in package.json `exports`) → its declaration file and report name. */
export const API_ENTRIES = [
  { entry: '.', dts: 'dist/index.d.ts', report: 'uproot' },
  { entry: './core', dts: 'dist/core/index.d.ts', report: 'uproot-core' },
  { entry: './election', dts: 'dist/election/index.d.ts', report: 'uproot-election' },
  { entry: './election/testing', dts: 'dist/election/testing.d.ts', report: 'uproot-election-testing' },
  { entry: './cli', dts: 'dist/cli/index.d.ts', report: 'uproot-cli' },
] as const;

function run(local: boolean): number {
  const configFile = join(ROOT, 'api-extractor.json');
  const base = ExtractorConfig.loadFile(configFile);
  let failed = 0;
  for (const { entry, dts, report } of API_ENTRIES) {
    const config = ExtractorConfig.prepare({
      configObject: {
        ...base,
        mainEntryPointFilePath: join(ROOT, dts),
        apiReport: { ...base.apiReport!, enabled: true, reportFileName: report },
      },
      configObjectFullPath: configFile,
      packageJsonFullPath: join(ROOT, 'package.json'),
    });
    const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false });
    const state = result.succeeded ? 'ok' : 'failed';
    console.log(
      `${entry}: packages/uproot/etc/${report}.api.md ${result.apiReportChanged ? '(changed) ' : ''}${state}`,
    );
    if (!result.succeeded) failed++;
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = run(process.argv.includes('--local'));
