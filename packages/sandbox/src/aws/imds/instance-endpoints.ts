import type http from 'node:http';
import net from 'node:net';
import { UprootError } from 'uproot';

/**
 * Each instance's metadata service at the root of its own endpoint, as every EC2 instance sees
 * 169.254.169.254: instance n gets loopback address 127.1.x.y (n = 254·x + y − 1) on one port shared by
 * the whole emulator, so `AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.1.0.3:PORT/` works with clients that
 * build the request path themselves and drop any path in the endpoint (the SDK credential chain's
 * `fromInstanceMetadata`, aws-sdk v2's MetadataService, the AWS CLI). Every address is loopback: 127.0.0.0/8
 * is all loopback on Linux and needs no setup. Where only 127.0.0.1 is configured (macOS), each instance
 * gets a port of its own on 127.0.0.1 instead.
 *
 * The listeners are plain TCP servers handing their connections to one HTTP server, so thousands of them
 * cost a file descriptor each and little memory; they are opened when an instance's endpoint is first
 * asked for.
 */
export interface InstanceEndpoint {
  readonly instanceId: string;
  readonly host: string;
  readonly port: number;
  /** `http://127.1.0.3:PORT/`. */
  readonly url: string;
}

const ALIAS_BASE = '127.1';
const MAX_ALIASES = 256 * 254;

function aliasAddress(slot: number): string {
  return `${ALIAS_BASE}.${Math.floor(slot / 254)}.${(slot % 254) + 1}`;
}

function listenOn(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

const errnoOf = (error: unknown): string | undefined => (error as { code?: string }).code;

export class InstanceEndpoints {
  private readonly byInstance = new Map<string, Promise<InstanceEndpoint>>();
  /** `address:port` of a listener → the instance it serves. */
  private readonly byLocal = new Map<string, string>();
  private readonly servers: net.Server[] = [];
  /** Open connections (the HTTP server never listens itself, so it does not track them). */
  private readonly sockets = new Set<net.Socket>();
  private nextSlot = 0;
  /** The shared port, fixed by the first listener (port 0 on the first alias), and whether aliases work. */
  private mode: Promise<{ aliases: boolean; port: number }> | undefined;
  private closed = false;

  constructor(private readonly http: http.Server) {}

  /** The instance a connection accepted on `localAddress:localPort` belongs to. */
  instanceAt(localAddress: string | undefined, localPort: number | undefined): string | undefined {
    return this.byLocal.get(`${localAddress ?? ''}:${localPort ?? 0}`);
  }

  /** The instance's endpoint, opening it on first use. */
  open(instanceId: string): Promise<InstanceEndpoint> {
    let endpoint = this.byInstance.get(instanceId);
    if (!endpoint) {
      endpoint = this.openNew(instanceId);
      this.byInstance.set(instanceId, endpoint);
      endpoint.catch(() => this.byInstance.delete(instanceId));
    }
    return endpoint;
  }

  /** Endpoints opened so far (instance id → URL). */
  async opened(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [id, endpoint] of this.byInstance) {
      try {
        out.set(id, (await endpoint).url);
      } catch {
        // reported to whoever opened it
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  private async openNew(instanceId: string): Promise<InstanceEndpoint> {
    const slot = this.nextSlot++;
    if (slot >= MAX_ALIASES)
      throw limitError(`more than ${MAX_ALIASES} instance metadata endpoints`, instanceId);
    if (slot === 0 || !this.mode) this.mode ??= this.firstListener(instanceId);
    const mode = await this.mode;
    if (slot === 0)
      return this.endpointFor(instanceId, mode.aliases ? aliasAddress(0) : '127.0.0.1', mode.port);
    const host = mode.aliases ? aliasAddress(slot) : '127.0.0.1';
    const port = await this.listen(instanceId, host, mode.aliases ? mode.port : 0);
    return this.endpointFor(instanceId, host, port);
  }

  private async firstListener(instanceId: string): Promise<{ aliases: boolean; port: number }> {
    try {
      return { aliases: true, port: await this.listen(instanceId, aliasAddress(0), 0) };
    } catch (error) {
      if (errnoOf(error) !== 'EADDRNOTAVAIL') throw error;
      return { aliases: false, port: await this.listen(instanceId, '127.0.0.1', 0) };
    }
  }

  private endpointFor(instanceId: string, host: string, port: number): InstanceEndpoint {
    return { instanceId, host, port, url: `http://${host}:${port}/` };
  }

  private async listen(instanceId: string, host: string, port: number): Promise<number> {
    if (this.closed) throw limitError('the emulator is closed', instanceId);
    const server = net.createServer({ noDelay: true }, (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      this.http.emit('connection', socket);
    });
    try {
      const bound = await listenOn(server, port, host);
      this.servers.push(server);
      this.byLocal.set(`${host}:${bound}`, instanceId);
      return bound;
    } catch (error) {
      server.close();
      const code = errnoOf(error);
      if (code === 'EMFILE' || code === 'ENFILE')
        throw limitError(`no file descriptor is left for another listener (${code})`, instanceId, error);
      if (code === 'EADDRINUSE')
        throw new UprootError(
          'UP-AWS-IMDS-ENDPOINT',
          `cannot open instance ${instanceId}'s metadata endpoint: ${host}:${port} is taken by another process`,
          {
            source: 'environment',
            location: { field: 'instanceId', value: instanceId },
            hint: `find the process listening on ${host}:${port} (ss -ltnp) and stop it, or restart the sandbox for a new port`,
            cause: error,
          },
        );
      throw error;
    }
  }
}

function limitError(why: string, instanceId: string, cause?: unknown): UprootError {
  return new UprootError(
    'UP-AWS-IMDS-ENDPOINT',
    `cannot open instance ${instanceId}'s metadata endpoint: ${why}`,
    {
      source: 'environment',
      location: { field: 'instanceId', value: instanceId },
      hint: 'each instance needs one file descriptor for its metadata endpoint: raise the limit (`ulimit -n 65536`) or run fewer nodes (--nodes)',
      ...(cause !== undefined ? { cause } : {}),
    },
  );
}
