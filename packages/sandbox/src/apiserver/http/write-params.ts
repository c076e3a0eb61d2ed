import type { PatchType } from '../patch/apply-patch.js';
import type { FieldValidation } from '../schema/field-validation.js';
import { invalid } from '../status/api-status-error.js';
import { goQuote, queryOptionalBool } from './query-params.js';

/**
 * Create/Update/Patch/DeleteOptions from the query, validated as apimachinery
 * pkg/apis/meta/v1/validation/validation.go Validate{Create,Update,Patch,Delete}Options: problems are a 422
 * on `<Kind>Options.meta.k8s.io ""`.
 */
export interface WriteParams {
  readonly dryRun: boolean;
  /** As given ('' when absent; the manager then defaults to the User-Agent's product). */
  readonly fieldManager: string;
  readonly fieldValidation: FieldValidation;
  readonly force: boolean;
}

type Problem = { field: string; message: string; type: string };

/** ValidateDryRun: only `All`; a bad list is shown as JSON (field.NotSupported of a []string). */
function dryRunProblems(values: readonly string[]): Problem[] {
  if (values.every((v) => v === 'All')) return [];
  return [
    {
      field: 'dryRun',
      message: `Unsupported value: ${JSON.stringify(values)}: supported values: "All"`,
      type: 'FieldValueNotSupported',
    },
  ];
}

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
function fieldManagerProblems(manager: string): Problem[] {
  const out: Problem[] = [];
  if (Buffer.byteLength(manager) > 128) {
    out.push({
      field: 'fieldManager',
      message: 'Too long: may not be more than 128 bytes',
      type: 'FieldValueTooLong',
    });
  }
  let at = 0;
  for (const ch of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const code = ch.codePointAt(0)!;
      const u = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      out.push({
        field: 'fieldManager',
        message: `Invalid value: ${goQuote(manager)}: invalid character ${u} (at position ${at})`,
        type: 'FieldValueInvalid',
      });
    }
    at += Buffer.byteLength(ch);
  }
  return out;
}

const VALIDATIONS = ['', 'Ignore', 'Strict', 'Warn'];

export function writeParams(
  query: URLSearchParams,
  kind: 'Create' | 'Update' | 'Patch',
  patchType?: PatchType,
): WriteParams {
  const dryRun = query.getAll('dryRun');
  const fieldManager = query.get('fieldManager') ?? '';
  const fieldValidation = query.get('fieldValidation') ?? '';
  const force = queryOptionalBool(query, 'force');
  const problems: Problem[] = [];
  if (kind === 'Patch') {
    if (patchType === 'apply' && fieldManager === '') {
      problems.push({
        field: 'fieldManager',
        message: 'Required value: is required for apply patch',
        type: 'FieldValueRequired',
      });
    } else if (patchType !== 'apply' && force !== undefined) {
      problems.push({
        field: 'force',
        message: 'Forbidden: may not be specified for non-apply patch',
        type: 'FieldValueForbidden',
      });
    }
  }
  problems.push(...fieldManagerProblems(fieldManager), ...dryRunProblems(dryRun));
  if (!VALIDATIONS.includes(fieldValidation)) {
    problems.push({
      field: 'fieldValidation',
      message: `Unsupported value: ${goQuote(fieldValidation)}: supported values: ${VALIDATIONS.map(goQuote).join(', ')}`,
      type: 'FieldValueNotSupported',
    });
  }
  if (problems.length > 0) throw invalid(`${kind}Options`, 'meta.k8s.io', '', problems);
  return {
    dryRun: dryRun.length > 0,
    fieldManager,
    fieldValidation: (fieldValidation || 'Warn') as FieldValidation,
    force: force ?? false,
  };
}

/** DeleteOptions' dryRun, from the query and the body together (ValidateDeleteOptions). */
export function deleteDryRun(query: URLSearchParams, body: readonly string[] | undefined): boolean {
  const values = [...query.getAll('dryRun'), ...(body ?? [])];
  const problems = dryRunProblems(values);
  if (problems.length > 0) throw invalid('DeleteOptions', 'meta.k8s.io', '', problems);
  return values.length > 0;
}

/** managerOrUserAgent (apiserver handlers/rest.go): the User-Agent's product, printable, at most 128 bytes. */
export function managerOrUserAgent(manager: string, userAgent: string | undefined): string {
  if (manager) return manager;
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out;
}
