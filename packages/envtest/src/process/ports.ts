import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Asks for a free loopback port that no outgoing connection can take from us.
 *
 * A port the kernel hands out for `listen(0)` comes from the ephemeral range
 * (net.ipv4.ip_local_port_range, 32768-60999 by default), the same range it uses for the
 * source port of every outgoing connection. Between this check and the server's bind (and
 * across an apiserver restart on the same port) a busy neighbour (another CI lane's
 * OpenStack services, a VM's port forwards) can take it as a source port, and the server
 * fails with EADDRINUSE. So the port is chosen below that range, at random, and checked by
 * binding it; only when no such port is found does it fall back to the kernel's choice.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const from = 20_000;
  const to = Math.min(low, 32_768) - 1;
  for (let i = 0; i < 64 && to > from; i++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    // A port is free until its server binds it: two calls before that (etcd's client and
    // peer ports, then the apiserver's) must not get the same one. A clean-clone CI run saw
    // etcd started with --listen-client-urls and --listen-peer-urls on one port, and die on
    // "bind: address already in use".
    if (given.has(port)) continue;
    if (await bindable(port)) return remember(port);
  }
  for (let i = 0; i < 16; i++) {
    const port = await kernelPort();
    if (!given.has(port)) return remember(port);
  }
  throw new Error('envtest: no free loopback port found');
}

/** The ports this process has handed out (a server may not have bound them yet). */
const given = new Set<number>();
function remember(port: number): number {
  given.add(port);
  return port;
}

/** The kernel's range for outgoing connections' source ports (Linux); the default elsewhere. */
export function ephemeralRange(): [number, number] {
  try {
    const [a, b] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(a) && Number.isInteger(b)) return [a as number, b as number];
  } catch {
    // Not Linux: the IANA dynamic range.
  }
  return [49_152, 65_535];
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') {
        srv.close();
        reject(new Error('could not determine a free port'));
        return;
      }
      srv.close(() => resolve(addr.port));
    });
  });
}
