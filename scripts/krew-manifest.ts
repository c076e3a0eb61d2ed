/**
 * The release's krew manifest: archives each single executable in dist/bin (krew installs from .tar.gz) and
 * fills plugins/uproot.yaml with the version, each archive's URI and sha256, into dist/bin/uproot.yaml.
 *
 *   npm run build:binary -- --arch all
 *   npx tsx scripts/krew-manifest.ts --base-url https://github.com/<owner>/uproot/releases/download/v0.1.0 \
 *     [--homepage https://github.com/<owner>/uproot]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { VERSION } from '../packages/uproot/src/version.js';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'dist/bin');
const ARCHES = [
  { arch: 'x64', key: 'LINUX_X64' },
  { arch: 'arm64', key: 'LINUX_ARM64' },
] as const;

/** Replaces every `{{NAME}}` of the template; throws on one it has no value for. */
function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`plugins/uproot.yaml: no value for {{${name}}}`);
    return value;
  });
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function main(): void {
  const baseUrl = flag('base-url')?.replace(/\/$/, '');
  if (!baseUrl) throw new Error('usage: krew-manifest.ts --base-url <URL the archives are published under>');
  const values: Record<string, string> = {
    VERSION: `v${VERSION}`,
    HOMEPAGE: flag('homepage') ?? baseUrl.replace(/\/releases\/download\/.*$/, ''),
  };
  for (const { arch, key } of ARCHES) {
    const name = `kubectl-uproot-linux-${arch}`;
    if (!existsSync(join(BIN, name)))
      throw new Error(`dist/bin/${name} is missing: npm run build:binary -- --arch all`);
    const archive = `${name}.tar.gz`;
    // Reproducible: fixed owner, mode and time, so the same binary gives the same sha256.
    const tar = [
      '-I',
      'gzip -n',
      '-cf',
      archive,
      '--owner=0',
      '--group=0',
      '--mode=0755',
      '--mtime=@0',
      name,
    ];
    execFileSync('tar', tar, { cwd: BIN });
    values[`URI_${key}`] = `${baseUrl}/${archive}`;
    values[`SHA256_${key}`] = createHash('sha256')
      .update(readFileSync(join(BIN, archive)))
      .digest('hex');
  }
  const manifest = fillTemplate(readFileSync(join(ROOT, 'plugins/uproot.yaml'), 'utf8'), values);
  const doc = parse(manifest) as { metadata: { name: string }; spec: { platforms: { sha256: string }[] } };
  if (doc.metadata.name !== 'uproot' || doc.spec.platforms.some((p) => !/^[0-9a-f]{64}$/.test(p.sha256))) {
    throw new Error('the filled manifest is not a krew Plugin with a sha256 per platform');
  }
  writeFileSync(join(BIN, 'uproot.yaml'), manifest);
  console.log(`dist/bin/uproot.yaml: ${values.VERSION}, ${ARCHES.map((a) => `linux-${a.arch}`).join(', ')}`);
}

main();
