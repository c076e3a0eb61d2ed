import type { ServerResponse } from 'node:http';
import type { StoreEvent, WatchEventType } from '../store/event-log.js';
import { eventTypeFor, renderingKey, type WatchRequest } from './watch-request.js';

/**
 * Past this much unsent data a watcher is too slow: its stream is ended (cleanly, as the API server
 * terminates slow watchers), and the client resumes from the last resourceVersion it received.
 */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

function joined(lines: readonly Buffer[]): Buffer | undefined {
  if (lines.length <= 1) return lines[0];
  return Buffer.concat(lines);
}

const CRLF = Buffer.from('\r\n');

/**
 * A turn's lines shared by a group's streams, framed once as an HTTP/1.1 chunk (`<hex size>\r\n<data>\r\n`,
 * what Node's chunked encoding writes for each `res.write`).
 */
export class Frame {
  readonly chunk: Buffer;

  constructor(readonly body: Buffer) {
    this.chunk = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, CRLF]);
  }
}

/** One watch stream. */
export class Watcher {
  /**
   * Lines queued for this stream alone this turn (its replay, a bookmark), or undefined while it takes the
   * group's shared batch. A new stream starts on its own: its replay already covers the turn so far.
   */
  own: Buffer[] | undefined = [];
  closed = false;
  /** A Table stream whose first event (the one with column definitions) is still to be sent. */
  needsHeaders = false;
  private readonly stop = new AbortController();

  constructor(
    readonly request: WatchRequest,
    readonly res: ServerResponse,
  ) {}

  /** Aborted when the stream ends (stops its timeout and bookmarks). */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /**
   * Queues `data` on the socket without waiting for it to drain. 'slow' when the client has fallen too
   * far behind, 'gone' when the connection is already closed.
   */
  send(data: Buffer | Frame): 'ok' | 'slow' | 'gone' {
    if (this.res.destroyed) return 'gone';
    const socket = this.res.socket;
    if (data instanceof Frame && socket && !socket.destroyed) {
      // The group framed this turn's chunk once; writing it to the socket skips per-stream chunk framing.
      socket.write(data.chunk);
      return socket.writableLength > MAX_BUFFERED_BYTES ? 'slow' : 'ok';
    }
    this.res.write(data instanceof Frame ? data.body : data);
    return this.res.writableLength > MAX_BUFFERED_BYTES ? 'slow' : 'ok';
  }

  end(clean: boolean): void {
    this.closed = true;
    this.stop.abort();
    if (clean) this.res.end();
    else this.res.destroy();
  }
}

/**
 * The streams with the same selection and encoding. Each event is matched and encoded once for the group,
 * and each turn's lines are joined into one Buffer that every stream in the group is sent: one write per
 * stream per turn, whatever the number of events.
 */
export class WatchGroup {
  readonly watchers = new Set<Watcher>();
  readonly renderKey: string;
  /** Lines for every stream in the group since the last flush. */
  private turn: Buffer[] = [];
  /** The turn's first line as a stream's first event renders it (Tables: with column definitions). */
  private turnFirst: (() => Buffer) | undefined;
  /** Streams with lines of their own this turn. */
  private readonly solo = new Set<Watcher>();

  constructor(
    readonly key: string,
    /** The first stream's request: the selection and encoding every member shares. */
    readonly request: WatchRequest,
    private readonly onEmpty: (group: WatchGroup) => void,
  ) {
    this.renderKey = renderingKey(request);
  }

  get pending(): boolean {
    return this.turn.length > 0 || this.solo.size > 0;
  }

  typeFor(e: StoreEvent): WatchEventType | undefined {
    return eventTypeFor(this.request, e);
  }

  /** Adds a new stream whose first lines are `replay` (already with headers when it is a Table). */
  join(w: Watcher, replay: Buffer[]): void {
    w.own = replay;
    w.needsHeaders = this.request.rendering.kind === 'table' && replay.length === 0;
    this.watchers.add(w);
    this.solo.add(w);
  }

  /** A line every stream in the group gets; `first` renders it as a stream's first event. */
  push(line: Buffer, first?: () => Buffer): void {
    if (this.turn.length === 0) this.turnFirst = first;
    this.turn.push(line);
    for (const w of this.solo) w.own?.push(this.firstFor(w, line, first));
  }

  private firstFor(w: Watcher, line: Buffer, first: (() => Buffer) | undefined): Buffer {
    if (!w.needsHeaders || !first) return line;
    w.needsHeaders = false;
    return first();
  }

  /** A turn's lines as `w` is to get them. */
  private turnFor(w: Watcher, turn = this.turn, first = this.turnFirst): Buffer[] {
    if (!w.needsHeaders || turn.length === 0) return turn;
    return [this.firstFor(w, turn[0]!, first), ...turn.slice(1)];
  }

  /** A line for one stream only, after whatever the group has queued for it this turn. */
  pushOwn(w: Watcher, line: Buffer): void {
    if (w.closed) return;
    if (!w.own) {
      w.own = [...this.turnFor(w)];
      this.solo.add(w);
    }
    w.own.push(line);
  }

  /** Writes this turn's lines to every stream, closing those that are gone or too slow. */
  flush(): void {
    const body = joined(this.turn);
    const shared = body && this.watchers.size > 1 ? new Frame(body) : body;
    const { turn, turnFirst } = this;
    this.turn = [];
    this.turnFirst = undefined;
    this.solo.clear();
    for (const w of [...this.watchers]) {
      const data = w.own
        ? joined(w.own)
        : w.needsHeaders && turn.length > 0
          ? joined(this.turnFor(w, turn, turnFirst))
          : shared;
      w.own = undefined;
      if (!data) continue;
      const sent = w.send(data);
      if (sent !== 'ok') this.close(w, sent === 'slow');
    }
  }

  /** Ends one stream; a clean end first sends what was queued for it. */
  close(w: Watcher, clean: boolean): void {
    if (w.closed || !this.watchers.has(w)) return;
    const rest = joined(w.own ?? this.turnFor(w));
    this.watchers.delete(w);
    this.solo.delete(w);
    w.own = undefined;
    if (clean && rest && !w.res.destroyed) w.res.write(rest);
    w.end(clean);
    if (this.watchers.size === 0) this.onEmpty(this);
  }
}
