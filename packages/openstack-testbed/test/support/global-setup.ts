// vitest global setup of the e2e suite: the files share ONE testbed run. Each file calls
// startOpenStackTestbed() (install and start are idempotent; start also deletes servers left
// by the previous file), and the testbed is stopped once, after the last file, instead of a
// stop (~50 s) and a cold start (~2 min) per file.
//
// Stopped only when no testbed service at all was running before the suite: a testbed
// started by hand, or one that an install elsewhere is still bringing up, is left alone.
import { runningServices, runScript } from '../../src/index.js';

export default async function setup(): Promise<() => Promise<void>> {
  const before = await runningServices({ progress: () => undefined });
  return async () => {
    if (before.length > 0) {
      process.stderr.write(
        `testbed: left running (it was before the suite: ${before.join(', ')})\n`,
      );
      return;
    }
    await runScript(['stop']);
  };
}
