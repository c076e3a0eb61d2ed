/**
 * The document `uproot preflight -o json` prints (schema `uproot.dev/preflight/v1`). docs/preflight.schema.json
 * is generated from `preflightReportSchema` (see preflightJsonSchema) and a test keeps it current.
 */
import { z } from 'zod';
import { checkResultSchema } from './check-result.js';

export const PREFLIGHT_SCHEMA_VERSION = 'uproot.dev/preflight/v1';

export const requestStatsSchema = z.object({
  total: z.number().int().nonnegative(),
  /** Requests by call, e.g. `list nodes`, `create subjectaccessreviews`, `ec2:DescribeInstances` (retries included). */
  byCall: z.record(z.string(), z.number().int().nonnegative()),
});
export type RequestStats = z.infer<typeof requestStatsSchema>;

export const preflightReportSchema = z.object({
  schemaVersion: z.literal(PREFLIGHT_SCHEMA_VERSION),
  target: z.object({
    context: z.string().optional(),
    server: z.string().optional(),
    distro: z.enum(['rke2', 'rke', 'kubeadm', 'k3s', 'unknown']),
    kubernetesVersion: z.string().optional(),
    targetVersion: z.string().optional(),
    region: z.string().optional(),
    nodes: z.number().int().nonnegative(),
    clusterDefinition: z.string().optional(),
  }),
  /** fail if any check failed, else warn if any warned, else pass. Skipped checks do not count. */
  outcome: z.enum(['pass', 'warn', 'fail']),
  summary: z.object({
    fail: z.number().int().nonnegative(),
    warn: z.number().int().nonnegative(),
    skip: z.number().int().nonnegative(),
    pass: z.number().int().nonnegative(),
  }),
  checks: z.array(checkResultSchema),
  stats: z.object({
    durationMs: z.number().nonnegative(),
    kubernetes: requestStatsSchema,
    aws: requestStatsSchema,
  }),
});
export type PreflightReport = z.infer<typeof preflightReportSchema>;

/** The JSON Schema of the report, as committed in docs/preflight.schema.json. */
export function preflightJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(preflightReportSchema, { target: 'draft-2020-12', io: 'output' }) as Record<
    string,
    unknown
  >;
  return {
    $id: 'https://uproot.dev/schemas/preflight/v1.json',
    title: 'uproot preflight report',
    ...schema,
  };
}
