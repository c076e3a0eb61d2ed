import { isJsonObject, type KubeObject } from '../kube-object.js';
import { evaluateJsonPath } from './jsonpath.js';
import { column, NAME_COLUMN, type ColumnDefinition, type TablePrinter } from './table.js';

/** A CRD version's `additionalPrinterColumns` entry. */
export interface PrinterColumnSpec {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
}

const DEFAULT_COLUMNS: readonly PrinterColumnSpec[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const COLUMN_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'date']);

function cell(values: unknown[], type: string): unknown {
  if (values.length === 0) return null;
  if (values.length > 1)
    return values.map((v) => (isJsonObject(v) || Array.isArray(v) ? JSON.stringify(v) : String(v))).join(',');
  const v = values[0];
  if (v === null || v === undefined) return null;
  if (isJsonObject(v) || Array.isArray(v)) return JSON.stringify(v);
  if (type === 'integer' && typeof v === 'number') return Math.trunc(v);
  return v;
}

/**
 * A printer for a custom resource: Name plus the CRD's columns (or the API server's default Age column when
 * the CRD declares none), evaluated with the JSONPath subset.
 */
export function customResourcePrinter(specs: readonly PrinterColumnSpec[] | undefined): TablePrinter {
  const used = specs && specs.length > 0 ? specs : DEFAULT_COLUMNS;
  const columns: ColumnDefinition[] = [
    NAME_COLUMN,
    ...used.map((s) =>
      column(s.name, (COLUMN_TYPES.has(s.type) ? s.type : 'string') as ColumnDefinition['type'], {
        priority: s.priority ?? 0,
        format: s.format ?? '',
        description: s.description ?? '',
      }),
    ),
  ];
  return {
    columns,
    row(obj: KubeObject) {
      return [
        obj.metadata?.name ?? '',
        ...used.map((s) => {
          try {
            return cell(evaluateJsonPath(s.jsonPath, obj), s.type);
          } catch {
            return null;
          }
        }),
      ];
    },
  };
}
