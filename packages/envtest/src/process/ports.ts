import { createServer } from 'node:net';

/**
 * Asks the kernel for a free loopback port. Parallel workers cannot collide: each call
 * gets a distinct ephemeral port while it is held, and ports are used right after.
 */
export function freePort(): Promise<number> {
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
