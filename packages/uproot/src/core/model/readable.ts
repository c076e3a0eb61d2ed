/** A part of the snapshot that could be read, or why it could not (access denied, throttled, no credentials). */
export type Readable<T> =
  { readonly state: 'ok'; readonly value: T } | { readonly state: 'unavailable'; readonly reason: string };

export function ok<T>(value: T): Readable<T> {
  return { state: 'ok', value };
}

export function unavailable<T = never>(reason: string): Readable<T> {
  return { state: 'unavailable', reason };
}
