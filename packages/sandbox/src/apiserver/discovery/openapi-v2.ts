import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';

/**
 * `/openapi/v2`, which kubectl 1.27 and 1.28 fetch before `apply` (their factory's Validator calls
 * OpenAPISchema first and fails on a 404: kubectl pkg/cmd/util/factory_client_access.go), in protobuf
 * (client-go discovery OpenAPISchema asks for `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and
 * proto-unmarshals the answer into gnostic's openapi_v2.Document) or JSON. Like `/openapi/v3` it is minimal:
 * a PATCH operation per resource with the x-kubernetes-group-version-kind extension and the fieldValidation
 * query parameter (what cli-runtime's QueryParamVerifier looks for) and no definitions, so kubectl builds
 * strategic merge patches from its compiled-in types. Field numbers: google/gnostic-models
 * openapiv2/OpenAPIv2.proto.
 */

/**
 * The media type clients ask for (client-go's openAPIV2mimePb) and the one kube-openapi answers with (its
 * handler maps the deprecated `@` spelling, which Go's mime parser rejects in a Content-Type, to the dotted one).
 */
export const OPENAPI_V2_PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface PatchPath {
  readonly path: string;
  readonly gvk: { readonly group: string; readonly version: string; readonly kind: string };
}

function patchPaths(types: readonly ResourceType[]): PatchPath[] {
  const out: PatchPath[] = [];
  for (const rt of types) {
    if (rt.virtual) continue;
    const base = rt.group ? `/apis/${apiVersionOf(rt)}` : `/api/${rt.version}`;
    const collection = rt.namespaced
      ? `${base}/namespaces/{namespace}/${rt.resource}`
      : `${base}/${rt.resource}`;
    out.push({ path: `${collection}/{name}`, gvk: { group: rt.group, version: rt.version, kind: rt.kind } });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** The Swagger 2.0 document as JSON. */
export function openApiV2Json(types: readonly ResourceType[], gitVersion: string): string {
  const paths: Record<string, unknown> = {};
  for (const p of patchPaths(types)) {
    paths[p.path] = {
      patch: {
        consumes: ['application/json-patch+json', 'application/merge-patch+json'],
        produces: ['application/json'],
        parameters: [{ uniqueItems: true, type: 'string', name: 'fieldValidation', in: 'query' }],
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': p.gvk,
      },
    };
  }
  return JSON.stringify({ swagger: '2.0', info: { title: 'Kubernetes', version: gitVersion }, paths });
}

// A small protobuf writer: proto3 fields, wire types 0 (varint) and 2 (length-delimited).
function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = n;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

function bytesField(field: number, value: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(value.length), value]);
}

function stringField(field: number, value: string): Buffer {
  return bytesField(field, Buffer.from(value, 'utf8'));
}

function boolField(field: number, value: boolean): Buffer {
  return value ? Buffer.concat([varint(field << 3), varint(1)]) : Buffer.alloc(0);
}

/** The GVK extension as kube-openapi writes it: a NamedAny whose Any carries the YAML of the value. */
function gvkExtension(gvk: PatchPath['gvk']): Buffer {
  const yaml = `group: ${JSON.stringify(gvk.group)}\nkind: ${gvk.kind}\nversion: ${gvk.version}\n`;
  return Buffer.concat([
    stringField(1, 'x-kubernetes-group-version-kind'),
    bytesField(2, stringField(2, yaml)),
  ]);
}

function fieldValidationParameter(): Buffer {
  const query = Buffer.concat([
    stringField(2, 'query'),
    stringField(4, 'fieldValidation'),
    stringField(6, 'string'),
    boolField(20, true),
  ]);
  const nonBody = bytesField(3, query); // NonBodyParameter.query_parameter_sub_schema
  const parameter = bytesField(2, nonBody); // Parameter.non_body_parameter
  return bytesField(1, parameter); // ParametersItem.parameter
}

/** gnostic openapi_v2.Document in protobuf. */
export function openApiV2Protobuf(types: readonly ResourceType[], gitVersion: string): Buffer {
  const parameter = fieldValidationParameter();
  const namedPaths = patchPaths(types).map((p) => {
    const operation = Buffer.concat([
      bytesField(8, parameter), // Operation.parameters
      bytesField(13, gvkExtension(p.gvk)), // Operation.vendor_extension
    ]);
    const pathItem = bytesField(8, operation); // PathItem.patch
    return bytesField(2, Buffer.concat([stringField(1, p.path), bytesField(2, pathItem)])); // Paths.path
  });
  return Buffer.concat([
    stringField(1, '2.0'), // Document.swagger
    bytesField(2, Buffer.concat([stringField(1, 'Kubernetes'), stringField(2, gitVersion)])), // Document.info
    bytesField(8, Buffer.concat(namedPaths)), // Document.paths
  ]);
}
