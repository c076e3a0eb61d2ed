/** Flag values parsed the way Go's standard library parses them, with its error messages. */
import { FlagValueError } from '../errors.js';

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** time.ParseDuration, in milliseconds. Throws with Go's message (`time: invalid duration "x"`). */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new FlagValueError(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s !== '') {
    const number = /^(\d*)(\.(\d*))?/.exec(s)!;
    if (number[0] === '' || number[0] === '.') throw new FlagValueError(`time: invalid duration ${quoted}`);
    s = s.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') throw new FlagValueError(`time: missing unit in duration ${quoted}`);
    const factor = UNITS[unit];
    if (factor === undefined)
      throw new FlagValueError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    s = s.slice(unit.length);
    total += Number(number[0]) * factor;
  }
  return sign * total;
}

/** strconv.ParseBool. */
export function parseGoBool(text: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new FlagValueError(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}
