import { InputError } from '../../errors/index.js';

/**
 * Container image references, the one parser for both packages: the grammar of distribution/reference
 * (github.com/distribution/reference regexp.go; Parse in reference.go), which containerd, Docker and the
 * kubelet use. A name is an optional domain (host or `[IPv6]`, optional `:port`) and `/`-separated lowercase
 * path components; then an optional `:tag` (`[\w][\w.-]{0,127}`) and an optional `@algorithm:hex` digest.
 * A colon after the last `/` is a tag, one before it a registry port: `host:5000/repo` has no tag.
 */

/** A reference as written: `[domain/]path[:tag][@digest]`. */
export interface ImageReference {
  /**
   * The first path component when the grammar reads it as a domain (Parse's Domain(): `registry.k8s.io`,
   * `host:5000`, `[::1]:5000`, and also `rancher` in `rancher/hyperkube`); undefined for a one-component name.
   * Which registry a name lives on is normalizeImageReference's answer.
   */
  readonly domain: string | undefined;
  /** The repository path after the domain (`kube-apiserver`, `provider-aws/cloud-controller-manager`). */
  readonly path: string;
  /** The tag (`v1.27.16`, `v1.27.16-rke2r1-build20240717`); undefined without one (the runtime pulls `latest`). */
  readonly tag: string | undefined;
  /** `algorithm:hex` (`sha256:…`), kept as written. */
  readonly digest: string | undefined;
}

/** Why a string is no reference: distribution/reference's errors (reference.go) and go-digest's (digest.go). */
export type ImageReferenceProblem =
  | 'empty' // ErrNameEmpty
  | 'invalid-format' // ErrReferenceInvalidFormat
  | 'uppercase' // ErrNameContainsUppercase
  | 'name-too-long' // ErrNameTooLong
  | 'digest-invalid-length' // digest.ErrDigestInvalidLength
  | 'digest-invalid-format' // digest.ErrDigestInvalidFormat
  | 'digest-unsupported'; // digest.ErrDigestUnsupported

/** A parse: the reference, or why the string is none (upstream's error as a `problem`, and its message). */
export type ImageReferenceParse =
  | { readonly valid: true; readonly reference: ImageReference }
  | { readonly valid: false; readonly problem: ImageReferenceProblem; readonly message: string };

// regexp.go, term by term. JavaScript's \w is Go's (ASCII [0-9A-Za-z_]); [[:xdigit:]] is [0-9A-Fa-f].
const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN_NAME_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_NAME_COMPONENT}(?:\\.${DOMAIN_NAME_COMPONENT})*`;
const IPV6_ADDRESS = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN_AND_PORT = `(?:${DOMAIN_NAME}|${IPV6_ADDRESS})(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;

/** referencePat: name, tag and digest captured. */
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
/** anchoredNamePat: the domain (when the first component reads as one) and the remote name. */
const ANCHORED_NAME = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const ANCHORED_TAG = new RegExp(`^${TAG}$`);

/** RepositoryNameTotalLengthMax (reference.go): the path, domain excluded. */
const REPOSITORY_NAME_MAX = 255;

/**
 * The algorithms go-digest defines (algorithm.go: sha256, sha384, sha512; containerd links all three), with
 * the hex length each takes; encoded digests are lowercase hex (anchoredEncodedRegexp `^[a-f0-9]{n}$`).
 */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

const MESSAGES: Readonly<Record<ImageReferenceProblem, string>> = {
  empty: 'repository name must have at least one component',
  'invalid-format': 'invalid reference format',
  uppercase: 'repository name must be lowercase',
  'name-too-long': `repository name must not be more than ${REPOSITORY_NAME_MAX} characters`,
  'digest-invalid-length': 'invalid checksum digest length',
  'digest-invalid-format': 'invalid checksum digest format',
  'digest-unsupported': 'unsupported digest algorithm',
};

function invalid(problem: ImageReferenceProblem): ImageReferenceParse {
  return { valid: false, problem, message: MESSAGES[problem] };
}

/** go-digest's Digest.Validate for a digest the grammar already accepted. */
function digestProblem(digest: string): ImageReferenceProblem | undefined {
  const colon = digest.indexOf(':');
  const length = DIGEST_HEX_LENGTH[digest.slice(0, colon)];
  const hex = digest.slice(colon + 1);
  if (length === undefined) return 'digest-unsupported';
  if (hex.length !== length) return 'digest-invalid-length';
  return /^[a-f0-9]+$/.test(hex) ? undefined : 'digest-invalid-format';
}

/** distribution/reference's Parse (reference.go): the reference as written, or why it is none. */
export function parseImageReference(input: string): ImageReferenceParse {
  if (input === '') return invalid('empty');
  const match = REFERENCE.exec(input);
  if (!match) {
    const lower = input.toLowerCase();
    return invalid(lower !== input && REFERENCE.test(lower) ? 'uppercase' : 'invalid-format');
  }
  const [, name = '', tag, digest] = match;
  const named = ANCHORED_NAME.exec(name);
  const domain = named?.[1];
  const path = named?.[2] ?? name;
  if (path.length > REPOSITORY_NAME_MAX) return invalid('name-too-long');
  const bad = digest === undefined ? undefined : digestProblem(digest);
  if (bad) return invalid(bad);
  return { valid: true, reference: { domain, path, tag, digest } };
}

/** The reference, or undefined when `input` is none. */
export function tryParseImageReference(input: string): ImageReference | undefined {
  const parsed = parseImageReference(input);
  return parsed.valid ? parsed.reference : undefined;
}

/** The reference as a string (reference.go String()): `[domain/]path[:tag][@digest]`. */
export function formatImageReference(reference: ImageReference): string {
  return (
    imageName(reference) +
    (reference.tag === undefined ? '' : `:${reference.tag}`) +
    (reference.digest === undefined ? '' : `@${reference.digest}`)
  );
}

/** The repository name, domain included, without tag or digest (Name()). */
export function imageName(reference: ImageReference): string {
  return reference.domain === undefined ? reference.path : `${reference.domain}/${reference.path}`;
}

/** The tag of an image reference (`host:5000/repo:tag@sha256:…` → `tag`); undefined without one or when invalid. */
export function imageTag(image: string): string | undefined {
  return tryParseImageReference(image)?.tag;
}

/**
 * The reference with `tag` in place of its tag. A digest is dropped: it pins the old image, and the runtime
 * pulls by digest when a reference carries one.
 */
export function withTag(reference: ImageReference, tag: string): ImageReference {
  if (!ANCHORED_TAG.test(tag)) {
    throw new InputError('UP-IMAGE-REFERENCE', `"${tag}" is no image tag`, {
      location: { field: 'tag', value: tag },
      hint: 'a tag is up to 128 letters, digits, underscores, periods and dashes, not starting with . or -',
    });
  }
  return { domain: reference.domain, path: reference.path, tag, digest: undefined };
}

/** The image reference `image` with `tag` instead of whatever tag (and digest) it had. */
export function withImageTag(image: string, tag: string): string {
  const parsed = parseImageReference(image);
  if (!parsed.valid) {
    throw new InputError('UP-IMAGE-REFERENCE', `"${image}" is no image reference: ${parsed.message}`, {
      location: { field: 'image', value: image },
      hint: 'an image reference is [registry[:port]/]repository[:tag][@algorithm:hex], the repository lowercase',
    });
  }
  return formatImageReference(withTag(parsed.reference, tag));
}

// normalize.go: Docker Hub's names.
const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';

/**
 * The reference with the registry it is pulled from made explicit, as ParseNormalizedNamed's splitDockerDomain
 * (normalize.go) reads the name: a first component is a domain when it is `localhost`, contains `.` or `:`,
 * or is not lowercase; otherwise the name is Docker Hub's (`docker.io`), and a one-component Hub name is an
 * official image under `library/`. `index.docker.io` is `docker.io`.
 */
export function normalizeImageReference(reference: ImageReference): ImageReference {
  const name = imageName(reference);
  const slash = name.indexOf('/');
  const first = slash < 0 ? undefined : name.slice(0, slash);
  const isDomain =
    first !== undefined && (first === 'localhost' || /[.:]/.test(first) || first.toLowerCase() !== first);
  let domain = isDomain ? first : DEFAULT_DOMAIN;
  let path = isDomain ? name.slice(slash + 1) : name;
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !path.includes('/')) path = `${OFFICIAL_REPO_PREFIX}${path}`;
  return { domain, path, tag: reference.tag, digest: reference.digest };
}

/** Whether two references name the same repository once normalised (`rancher/x:1` and `docker.io/rancher/x`). */
export function sameRepository(a: string, b: string): boolean {
  const [ra, rb] = [tryParseImageReference(a), tryParseImageReference(b)];
  if (!ra || !rb) return false;
  return imageName(normalizeImageReference(ra)) === imageName(normalizeImageReference(rb));
}
