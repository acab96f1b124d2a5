// --openstack real needs the OpenStack test bed installed and running. The demo does not
// install it (the first install takes about 20 minutes) nor start it (its daemons would
// outlive the demo): it says what to run instead. The decision is pure, so it is unit tested.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runScript, ScriptError } from '@noderepair/openstack-testbed';

const SCRIPT = 'bash packages/openstack-testbed/testbed.sh';

export interface TestbedStatus {
  /** `$STATE/.installed` exists (testbed.sh install finished once). */
  readonly installed: boolean;
  readonly stateDir: string;
  readonly running: readonly string[];
  readonly stopped: readonly string[];
}

/** testbed.sh's state directory (the same rule as the script). */
export function testbedStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['NODEREPAIR_OPENSTACK_STATE'] || join(homedir(), '.cache/noderepair/openstack');
}

/** Parses `testbed.sh status`: one `NAME running (pid N)` or `NAME stopped` line per service. */
export function parseTestbedStatus(text: string): { running: string[]; stopped: string[] } {
  const running: string[] = [];
  const stopped: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s+(running|stopped)\b/.exec(line);
    if (m?.[1] !== undefined) (m[2] === 'running' ? running : stopped).push(m[1]);
  }
  return { running, stopped };
}

/** Why the test bed cannot serve the demo, with what to run; undefined when it can. */
export function testbedProblem(s: TestbedStatus): string | undefined {
  if (!s.installed)
    return (
      `--openstack real: the OpenStack test bed is not installed (no ${join(s.stateDir, '.installed')}).\n` +
      `Install and start it, from the repository root:\n` +
      `  ${SCRIPT} install && ${SCRIPT} start\n` +
      `(the first install takes about 20 minutes: Debian packages, databases; see packages/openstack-testbed/README.md)`
    );
  if (s.stopped.length > 0 || s.running.length === 0)
    return (
      `--openstack real: the OpenStack test bed is not running (stopped: ${s.stopped.join(', ') || 'every service'}).\n` +
      `Start it, from the repository root (about 2 minutes; \`${SCRIPT} stop\` stops it afterwards):\n` +
      `  ${SCRIPT} start`
    );
  return undefined;
}

/** Reads the test bed's state: the state directory and `testbed.sh status`. */
export async function testbedStatus(): Promise<TestbedStatus> {
  const stateDir = testbedStateDir();
  const text = await runScript(['status'], { progress: () => undefined }).catch((e: unknown) => {
    // Exit 3 means "something is stopped"; its table is still the answer.
    if (e instanceof ScriptError && e.exitCode === 3) return e.stdout;
    throw e;
  });
  return {
    installed: existsSync(join(stateDir, '.installed')),
    stateDir,
    ...parseTestbedStatus(text),
  };
}

/** The demo cannot go on: a message for the user, printed without a stack trace. */
export class DemoSetupError extends Error {
  override readonly name = 'DemoSetupError';
}
