import { stringify } from 'yaml';
import type { IncludeObject } from '../tables/table.js';
import { ApiStatusError } from '../status/api-status-error.js';
import type { MediaRange } from './negotiation.js';

/** How the object part of a GET/list/watch answer is rendered. */
export type Rendering =
  | { readonly kind: 'object' }
  | { readonly kind: 'table'; readonly apiVersion: string; readonly include: IncludeObject }
  | { readonly kind: 'metadata'; readonly apiVersion: string };

/** The negotiated response: its serialisation and what is serialised. */
export interface Output {
  readonly format: 'json' | 'yaml';
  readonly rendering: Rendering;
  /** Indented JSON (`?pretty=true`, or a curl/Wget/browser User-Agent). */
  readonly pretty: boolean;
}

/** What the twin serialises (it serves no protobuf; CBOR is off by default upstream). */
const SERVED = ['application/json', 'application/yaml'];
const STREAMED = ['application/json;stream=watch'];

/**
 * apiserver handlers/negotiation NegotiateOutputMediaType(Stream): the client's first acceptable media range
 * wins (`as=Table` for kubectl get, `as=PartialObjectMetadata[List]` for metadata clients, YAML, else
 * JSON); none acceptable is 406 NotAcceptable. Watches have no YAML stream serializer, so a watch whose
 * first acceptable range is YAML is 406 too.
 */
export function negotiateOutput(
  accept: readonly MediaRange[],
  includeObject: string | null,
  pretty: boolean,
  stream: boolean,
): Output {
  for (const m of accept) {
    const format = mediaFormat(m.type);
    if (!format) continue;
    const as = m.params.as;
    if (as === undefined) {
      if (format === 'yaml' && stream) throw notAcceptable(STREAMED);
      return { format, rendering: { kind: 'object' }, pretty };
    }
    if (
      format !== 'json' ||
      m.params.g !== 'meta.k8s.io' ||
      (m.params.v !== 'v1' && m.params.v !== 'v1beta1')
    )
      continue;
    const apiVersion = `meta.k8s.io/${m.params.v}`;
    if (as === 'Table') {
      const include: IncludeObject =
        includeObject === 'None' || includeObject === 'Object' ? includeObject : 'Metadata';
      return { format, rendering: { kind: 'table', apiVersion, include }, pretty };
    }
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
      return { format, rendering: { kind: 'metadata', apiVersion }, pretty };
  }
  throw notAcceptable(stream ? STREAMED : SERVED);
}

function mediaFormat(type: string): Output['format'] | undefined {
  if (type === 'application/json' || type === '*/*' || type === 'application/*') return 'json';
  return type === 'application/yaml' ? 'yaml' : undefined;
}

/** apiserver handlers/negotiation/errors.go errNotAcceptable. */
export function notAcceptable(accepted: readonly string[]): ApiStatusError {
  return new ApiStatusError({
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
    reason: 'NotAcceptable',
    code: 406,
  });
}

/** The body and Content-Type of a JSON answer in the negotiated format. */
export function serialise(output: Output, json: string): { body: string; contentType: string } {
  if (output.format === 'yaml') {
    // sigs.k8s.io/yaml JSONToYAML: keys sorted, as Go's yaml.v2 writes maps.
    return { body: stringify(JSON.parse(json), { sortMapEntries: true }), contentType: 'application/yaml' };
  }
  if (output.pretty)
    return { body: `${JSON.stringify(JSON.parse(json), null, 2)}\n`, contentType: 'application/json' };
  return { body: json, contentType: 'application/json' };
}
