import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
/**
 * Which Node.js release lines are maintained, for the one-line notice uproot prints on an end-of-life line
 * (docs/decisions/0010-node-lines-and-single-executable.md). Dates from the Node.js release schedule,
 * nodejs/Release schedule.json (commit e4bf922, July 2026): `lts` is when a line became LTS, `end` its end
 * of life.
 */
const SCHEDULE: Readonly<Record<number, { readonly lts?: string; readonly end: string }>> = {
  18: { lts: '2022-10-25', end: '2025-04-30' },
  19: { end: '2023-06-01' },
  20: { lts: '2023-10-24', end: '2026-04-30' },
  21: { end: '2024-06-01' },
  22: { lts: '2024-10-29', end: '2027-04-30' },
  23: { end: '2025-06-01' },
  24: { lts: '2025-10-28', end: '2028-04-30' },
  25: { end: '2026-06-01' },
  26: { lts: '2026-10-28', end: '2029-04-30' },
  27: { end: '2030-04-30' },
};

/** The LTS lines still maintained on `today` (Active or Maintenance LTS), oldest first. */
export function maintainedLines(today: Date): number[] {
  const day = today.toISOString().slice(0, 10);
  return Object.entries(SCHEDULE)
    .filter(([, s]) => s.lts !== undefined && s.lts <= day && day < s.end)
    .map(([major]) => Number(major));
}

/**
 * The notice for a Node.js `version` (as `process.version`) that is past its end of life on `today`, in one
 * line; undefined on a maintained line or one newer than the table (a release uproot has not heard of yet
 * is not end of life).
 */
export function endOfLifeNotice(version: string, today: Date): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (!Number.isInteger(major)) return undefined;
  const newest = Math.max(...Object.keys(SCHEDULE).map(Number));
  if (major > newest) return undefined;
  const end = SCHEDULE[major]?.end;
  const day = today.toISOString().slice(0, 10);
  if (end !== undefined && day < end) return undefined;
  const lines = maintainedLines(today);
  const use =
    lines.length > 1 ? `${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}` : String(lines[0] ?? '');
  return (
    `uproot: Node.js ${version} ${end ? `reached end of life on ${end}` : 'is past its end of life'} and gets no ` +
    `security fixes; uproot still runs on it, but use Node.js ${use} (or the kubectl-uproot binary)`
  );
}

/**
 * The notice at most once per day and user: the day it was last shown is kept in a small file under the
 * user's cache folder ($XDG_CACHE_HOME/uproot, else ~/.cache/uproot). Any I/O failure (a read-only home, no
 * HOME) shows the notice rather than failing the command. Returns the line to print, or undefined.
 */
export function dailyEndOfLifeNotice(
  version: string,
  today: Date,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const notice = endOfLifeNotice(version, today);
  if (notice === undefined) return undefined;
  const day = today.toISOString().slice(0, 10);
  try {
    const home = env.HOME || homedir();
    const file = join(env.XDG_CACHE_HOME || join(home, '.cache'), 'uproot', 'node-notice-shown');
    let last: string | undefined;
    try {
      last = readFileSync(file, 'utf8').trim();
    } catch {
      last = undefined;
    }
    if (last === day) return undefined;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${day}\n`);
  } catch {
    // Not writable: shown every time, as before; never a reason to fail.
  }
  return notice;
}
