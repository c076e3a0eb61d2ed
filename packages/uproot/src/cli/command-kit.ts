/**
 * What the commands that run a migration print: the progress lines for engine events, the wait pulses and
 * the journal's summary. No migration logic here; the flags are in command-options.ts.
 */
import { describeGate, type EngineEvent, type Journal } from '../toolkit/documents.js';

const seconds = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 6_000) / 10}m` : `${Math.round(ms / 100) / 10}s`;
export const indent = (text: string, pad = '      '): string =>
  text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');

/** One progress line (or a few) per engine event, for a person watching stderr. */
export function renderEvent(event: EngineEvent): string {
  switch (event.type) {
    case 'step-started':
      return `\n→ ${event.step}: ${event.title}${event.resumed ? ' (resumed)' : ''}\n`;
    case 'change-done':
      return `  ✓ ${event.description}${event.outcome === 'unchanged' ? ' (already done)' : ''}${event.detail ? ` — ${event.detail}` : ''}\n`;
    case 'gate-started':
      return `  … ${describeGate(event.gate)}${event.timeoutMs !== undefined ? ` (up to ${seconds(event.timeoutMs)})` : ''}\n`;
    case 'gate-waiting':
      return `      waiting: ${event.reason}\n`;
    case 'gate-pulse':
      return ''; // shown by progressPrinter: a live line, or a timestamped "still waiting" line
    case 'gate-finished':
      return event.result.type === 'passed'
        ? `  ✓ ${describeGate(event.gate)}${event.result.after >= 1000 ? ` after ${seconds(event.result.after)}` : ''}${event.result.detail ? ` — ${event.result.detail}` : ''}\n`
        : `  ✗ ${describeGate(event.gate)}: ${event.result.type === 'failed' ? event.result.reason : `timed out; last: ${event.result.last}`}\n      fix: ${event.result.fix}\n`;
    case 'step-verified':
      return `  ✓ ${event.step} verified\n`;
    case 'step-failed':
      return `  ✗ ${event.step} stopped: ${event.reason}\n${event.fix ? `      fix: ${event.fix}\n` : ''}`;
    case 'manual-action':
      return `  ! ${event.step} needs a person:\n${indent(event.instructions)}\n`;
    case 'undo-started':
      return `\n← undo ${event.step}: ${event.title}\n`;
    case 'undo-done':
      return `  ✓ ${event.description} — ${event.detail}\n`;
    case 'step-rolled-back':
      return `  ✓ ${event.step} rolled back\n`;
    case 'note':
      return `note: ${event.message}\n`;
  }
}

/**
 * A pulse line is printed without a terminal when the last progress line is at least this old (run clock).
 * The gate runner looks at least every 15 s ±10% (DEFAULT_GATE_BACKOFF), so a line comes within 30 s.
 */
export const PULSE_QUIET_MS = 13_000;

/** `1m05s` of `10m`: a gate's elapsed time against its limit. */
export function waitedText(elapsedMs: number, timeoutMs: number | undefined): string {
  return `${clockText(elapsedMs)}${timeoutMs !== undefined ? ` of ${clockText(timeoutMs)}` : ''}`;
}

function clockText(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  return m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

export interface ProgressOptions {
  /** The run's clock: timestamps and the pulse's quiet time are its time (virtual in tests). */
  readonly now: () => number;
  /** `-o json|yaml`: one JSON object per event on stderr, each with its time `at`. */
  readonly structured: boolean;
  /** A terminal: the latest wait is a live line rewritten in place. */
  readonly live: boolean;
}

/**
 * The progress display of a run on stderr (stdout keeps the result). Text at a terminal: renderEvent's lines
 * and, while a gate waits, one live line (gate, elapsed of limit, latest condition) rewritten in place.
 * Text without a terminal: renderEvent's lines, and a timestamped "still waiting" line whenever nothing was
 * printed for PULSE_QUIET_MS. Structured: every event as a JSON line with `at`, pulses at the same pace.
 */
export function progressPrinter(
  write: (text: string) => void,
  options: ProgressOptions,
): { readonly onEvent: (event: EngineEvent) => void; readonly end: () => void } {
  let lastLine = options.now();
  let liveShown = false;
  const clearLive = (): void => {
    if (liveShown) write('\r\x1b[2K');
    liveShown = false;
  };
  const onEvent = (event: EngineEvent): void => {
    const now = options.now();
    const isPulse = event.type === 'gate-pulse';
    if (options.structured) {
      if (isPulse && now - lastLine < PULSE_QUIET_MS) return;
      lastLine = now;
      write(`${JSON.stringify({ at: new Date(now).toISOString(), ...event })}\n`);
      return;
    }
    const waiting = event.type === 'gate-pulse' || event.type === 'gate-waiting' ? event : undefined;
    if (options.live) {
      clearLive();
      write(renderEvent(event));
      if (waiting) {
        const line = `  … ${describeGate(waiting.gate)}: ${waitedText(waiting.elapsedMs ?? 0, waiting.timeoutMs)} — ${waiting.reason}`;
        write(line.length > 160 ? `${line.slice(0, 157)}...` : line);
        liveShown = true;
      }
      return;
    }
    if (isPulse) {
      if (now - lastLine < PULSE_QUIET_MS) return;
      write(
        `      ${new Date(now).toISOString()} still waiting (${waitedText(event.elapsedMs, event.timeoutMs)}): ${event.reason}\n`,
      );
    } else {
      write(renderEvent(event));
    }
    lastLine = now;
  };
  return { onEvent, end: clearLive };
}

export function journalSummary(journal: Journal): unknown {
  return {
    cluster: journal.cluster,
    location: journal.location,
    revision: journal.revision,
    steps: journal.steps.map((s) => ({ id: s.id, state: s.state })),
  };
}
