/**
 * A map that forgets its least recently used entries once it holds more than `capacity`: keys can come
 * from clients (any user a SubjectAccessReview names, any object name), so a cache keyed by them must stay
 * bounded. Two generations instead of exact LRU: when the current one fills up it becomes the old one and
 * the previous old one is dropped, so every operation stays O(1) (evicting one entry at a time from the
 * front of a Map is not: its iterator walks the holes deletions leave).
 */
export class BoundedCache<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();
  private readonly generation: number;

  constructor(capacity: number) {
    this.generation = Math.max(1, Math.ceil(capacity / 2));
  }

  /** Entries held (at most the capacity). */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  get(key: K): V | undefined {
    const hit = this.current.get(key);
    if (hit !== undefined) return hit;
    const old = this.previous.get(key);
    // Used again: carry it into the current generation so it outlives the next turnover.
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (!this.current.has(key) && this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  clear(): void {
    this.current.clear();
    this.previous.clear();
  }
}
