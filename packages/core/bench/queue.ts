// Work-queue throughput: add -> get -> done cycles (with dedupe and re-adds), ops per second.
// From the compiled package (dist/), as users run it.
import { WorkQueue, ItemExponentialRateLimiter } from '@noderepair/core/runtime';

export async function benchQueue(): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const keys of [1_000, 100_000]) {
    const q = new WorkQueue<string>({ rateLimiter: new ItemExponentialRateLimiter() });
    const names = Array.from({ length: keys }, (_, i) => `ns/obj-${i}`);
    const rounds = Math.max(1, Math.floor(400_000 / keys));
    const t0 = process.hrtime.bigint();
    let ops = 0;
    for (let r = 0; r < rounds; r++) {
      for (const k of names) {
        q.add(k);
        q.add(k);
        ops += 2;
      } // second add is deduped
      for (let i = 0; i < keys; i++) {
        const k = (await q.get())!;
        q.forget(k);
        q.done(k);
        ops += 3;
      }
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    out.push({
      bench: 'workqueue',
      keys,
      ops,
      seconds: +secs.toFixed(3),
      opsPerSec: Math.round(ops / secs),
      note: 'ops = add (incl. deduped) + get + forget + done',
    });
  }
  return out;
}
