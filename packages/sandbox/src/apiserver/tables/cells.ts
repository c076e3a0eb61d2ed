import { isJsonObject, type JsonObject } from '../kube-object.js';

/** Small readers that turn possibly-missing JSON into printable cells. */
export function obj(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

export function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** `k=v,k2=v2` in key order, `<none>` when empty (labels.FormatLabels). */
export function formatLabels(map: unknown): string {
  const m = obj(map);
  const keys = Object.keys(m).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${String(m[k])}`).join(',');
}

/** A metav1.LabelSelector written as a selector string (metav1.FormatLabelSelector). */
export function formatLabelSelector(selector: unknown): string {
  const s = obj(selector);
  const parts: string[] = [];
  const labels = obj(s.matchLabels);
  for (const k of Object.keys(labels).sort()) parts.push(`${k}=${String(labels[k])}`);
  for (const expr of arr(s.matchExpressions)) {
    const e = obj(expr);
    const values = arr(e.values).map(String).join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${str(e.key)} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${str(e.key)} notin (${values})`);
        break;
      case 'Exists':
        parts.push(str(e.key));
        break;
      case 'DoesNotExist':
        parts.push(`!${str(e.key)}`);
        break;
      default:
        break;
    }
  }
  return parts.length === 0 ? '<none>' : parts.join(',');
}

export function containersAndImages(podSpec: unknown): [string, string] {
  const containers = arr(obj(podSpec).containers).map(obj);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}
