// Runs testbed.sh. The shell script owns every daemon; this module only drives it, so the
// testbed behaves the same from a terminal, CI and vitest.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Absolute path of testbed.sh (one level above src/ and dist/). */
export const testbedScript = fileURLToPath(new URL('../testbed.sh', import.meta.url));

export interface ScriptOptions {
  /** Where progress lines (the script's stderr) go; defaults to process.stderr. */
  readonly progress?: (chunk: string) => void;
  /** Extra environment, e.g. NODEREPAIR_OPENSTACK_STATE. */
  readonly env?: Readonly<Record<string, string>>;
}

/** testbed.sh exited non-zero; `stdout` is what it printed (e.g. `status` exits 3 with its table). */
export class ScriptError extends Error {
  constructor(
    readonly subcommand: string,
    readonly exitCode: number | null,
    readonly stdout: string,
  ) {
    super(`testbed.sh ${subcommand} exited with code ${String(exitCode)}`);
    this.name = 'ScriptError';
  }
}

/** Runs `testbed.sh <args>` and resolves with its stdout; rejects with a ScriptError. */
export function runScript(args: readonly string[], options: ScriptOptions = {}): Promise<string> {
  const progress = options.progress ?? ((chunk: string) => process.stderr.write(chunk));
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [testbedScript, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', progress);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new ScriptError(args[0] ?? '', code, out));
    });
  });
}

/** Parses the `export NAME=value` lines that `testbed.sh env` prints. */
export function parseEnvExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) env[m[1]] = m[2];
  }
  return env;
}

/** The services `testbed.sh status` lists as running (none when the testbed is down). */
export async function runningServices(options: ScriptOptions = {}): Promise<string[]> {
  const out = await runScript(['status'], options).catch((e: unknown) => {
    // Exit 3 means "something is stopped"; its table is still the answer.
    if (e instanceof ScriptError && e.exitCode === 3) return e.stdout;
    throw e;
  });
  return out
    .split('\n')
    .map((l) => /^(\S+)\s+running \(pid/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}
