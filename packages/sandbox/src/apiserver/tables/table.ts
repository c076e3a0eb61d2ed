import type { KubeObject } from '../kube-object.js';

/** `metav1.TableColumnDefinition`. */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** Turns one object into the cells of a row; `now` is the server clock, for ages. */
export interface TablePrinter {
  readonly columns: readonly ColumnDefinition[];
  row(obj: KubeObject, now: number): unknown[];
}

/** What `rows[].object` carries: `includeObject=None|Metadata|Object` (Metadata is the default). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function column(
  name: string,
  type: ColumnDefinition['type'] = 'string',
  options: { priority?: number; format?: string; description?: string } = {},
): ColumnDefinition {
  return {
    name,
    type,
    format: options.format ?? '',
    description: options.description ?? '',
    priority: options.priority ?? 0,
  };
}

export const NAME_COLUMN = column('Name', 'string', {
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
});

export const AGE_COLUMN = column('Age', 'string', {
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
});

function rowObject(obj: KubeObject, include: IncludeObject, tableApiVersion: string): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: tableApiVersion, metadata: obj.metadata ?? {} };
}

/** The JSON of one row, for lists and for each watch event. */
export function rowJson(
  printer: TablePrinter,
  obj: KubeObject,
  now: number,
  include: IncludeObject,
  tableApiVersion: string,
): string {
  const object = rowObject(obj, include, tableApiVersion);
  return JSON.stringify(
    object === undefined ? { cells: printer.row(obj, now) } : { cells: printer.row(obj, now), object },
  );
}

/** A whole `meta.k8s.io` Table as JSON; rows are pre-serialised (see rowJson). */
export function tableJson(
  printer: TablePrinter,
  rows: readonly string[],
  tableApiVersion: string,
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  headers = true,
): string {
  // Without headers (a watch's later events) the definitions are nil, which Go writes as null.
  const columns = headers ? JSON.stringify(printer.columns) : 'null';
  return `{"kind":"Table","apiVersion":${JSON.stringify(tableApiVersion)},"metadata":${JSON.stringify(listMeta)},"columnDefinitions":${columns},"rows":[${rows.join(',')}]}`;
}
