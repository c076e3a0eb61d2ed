import { httpClockSample } from '../adapters/clock/http-clock.js';
import { FollowedClock } from '../clock/index.js';
import { AccessError, InputError } from '../errors/index.js';

/**
 * The variable that makes uproot run on a twin's clock instead of this machine's: the URL of a clock endpoint
 * (`uproot sandbox up --time-scale X` prints it; the crash campaign sets it). Decision 0034.
 */
export const CLOCK_URL_VARIABLE = 'UPROOT_CLOCK_URL';

const UNREACHABLE_HINT = `start the sandbox it belongs to again (\`uproot sandbox up\`), or \`unset ${CLOCK_URL_VARIABLE}\` to run on this machine's clock`;

/**
 * The clock a command runs on when `UPROOT_CLOCK_URL` is set: the endpoint's time, followed. Undefined when
 * the variable is unset or empty. A value that is not an http(s) URL, or an endpoint that does not answer,
 * is the user's to fix (exit 2), before anything is read or written.
 */
export async function clockFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Promise<FollowedClock | undefined> {
  const value = env[CLOCK_URL_VARIABLE]?.trim();
  if (!value) return undefined;
  const url = clockUrl(value);
  try {
    return await FollowedClock.follow(httpClockSample(url), {
      lost: (cause) =>
        new AccessError('UP-CLOCK-UNREACHABLE', `the clock at ${url.href} stopped answering`, {
          location: { field: CLOCK_URL_VARIABLE, value: url.href },
          hint: UNREACHABLE_HINT,
          cause,
        }),
    });
  } catch (cause) {
    throw new AccessError('UP-CLOCK-UNREACHABLE', `the clock at ${url.href} does not answer`, {
      location: { field: CLOCK_URL_VARIABLE, value: url.href },
      hint: UNREACHABLE_HINT,
      cause,
    });
  }
}

function clockUrl(value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return url;
  throw new InputError('UP-CLOCK-URL', `${CLOCK_URL_VARIABLE} is not an http(s) URL: "${value}"`, {
    location: { field: CLOCK_URL_VARIABLE, value },
    hint: `set it to the clock URL \`uproot sandbox up\` printed (http://127.0.0.1:PORT/v1/clock), or \`unset ${CLOCK_URL_VARIABLE}\``,
  });
}
