/**
 * Where an IMDS caller sits, told from the TCP source address, and what the network did with a response.
 *
 * On EC2 a process on the instance is one hop from 169.254.169.254; a container on a bridge or pod network
 * is one more, so the token PUT's response (sent with IP TTL = HttpPutResponseHopLimit) dies one hop short
 * when the limit is 1 (EC2 User Guide, "Instance metadata options": a limit of 2 for containers). The twin
 * models the pod network with a loopback range of its own: pod-network processes of simulated nodes connect
 * from 127.2.0.0/16 (Node's `localAddress`), everything else (host-network processes, a person's curl) from
 * any other loopback address. 127.0.0.0/8 is all loopback on Linux, so neither range needs any setup.
 */

import net from 'node:net';

/** The pod network's source range: 127.2.0.0/16. */
const POD_NETWORK = /^(::ffff:)?127\.2\.\d+\.\d+$/;

/** Hops between a caller at `remoteAddress` and the instance's metadata service. */
export function hopsFrom(remoteAddress: string | undefined): number {
  return remoteAddress !== undefined && POD_NETWORK.test(remoteAddress) ? 2 : 1;
}

/** The source address pod-network processes of the node with layout index `index` connect from. */
export function podNetworkAddress(index: number): string {
  const n = Math.max(0, index) % (256 * 254);
  return `127.2.${Math.floor(n / 254)}.${(n % 254) + 1}`;
}

let podRange: Promise<boolean> | undefined;

/**
 * Whether this host lets a socket use 127.2.0.0/16 as its address (Linux: all of 127.0.0.0/8 is loopback;
 * macOS configures only 127.0.0.1). Without it the twin's pods connect like host processes.
 */
export function podNetworkAvailable(): Promise<boolean> {
  podRange ??= new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, podNetworkAddress(0), () => probe.close(() => resolve(true)));
  });
  return podRange;
}

/**
 * Responses the network dropped, keyed by the caller's address and port. A real caller only ever sees
 * silence (and gives up on its own timeout); the twin's simulated clients, which run on a virtual clock,
 * also learn *that* it was dropped, so virtual time can move on to their timeout instead of waiting for
 * bytes that will never come.
 */
export class ImdsNetwork {
  private readonly lost = new Set<string>();
  private readonly waiters = new Map<string, () => void>();

  /** The service answered but the answer will not arrive (the server keeps the connection open). */
  responseLost(remoteAddress: string, remotePort: number): void {
    const key = `${remoteAddress}:${remotePort}`;
    const waiter = this.waiters.get(key);
    if (waiter) {
      this.waiters.delete(key);
      waiter();
    } else this.lost.add(key);
  }

  /** The connection is gone: nothing to remember about it. */
  forget(remoteAddress: string, remotePort: number): void {
    const key = `${remoteAddress}:${remotePort}`;
    this.lost.delete(key);
    this.waiters.delete(key);
  }

  /** Resolves when a response to the caller at this address and port is lost. */
  whenLost(localAddress: string, localPort: number): Promise<void> {
    const key = `${localAddress}:${localPort}`;
    if (this.lost.delete(key)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(key, resolve));
  }
}
