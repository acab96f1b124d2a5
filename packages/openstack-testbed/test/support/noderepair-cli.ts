// The COMPILED `noderepair` CLI (packages/core/dist/cli/noderepair.js) as a child process, as
// a user or the container image runs it: plain `node` on the built file, no tsx, no source
// conditions, so what is tested is what `pnpm build` ships. The environment is only what is
// given (plus PATH): no KUBECONFIG, no OS_* variables and no ~/.config/openstack of the
// machine running the tests can leak in.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const compiledCli = join(repoRoot, 'packages', 'core', 'dist', 'cli', 'noderepair.js');
/** The openstack-testbed package: its node_modules has @noderepair/openstack (as an image's /app has). */
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class NoderepairCli {
  /** Every stdout and stderr line, in arrival order, each prefixed "out " or "err ". */
  readonly lines: string[] = [];
  readonly exited: Promise<CliExit>;
  #child: ChildProcess;
  #exit: CliExit | undefined;

  private constructor(args: readonly string[], env: Record<string, string>, echo: string) {
    this.#child = spawn(process.execPath, [compiledCli, ...args], {
      cwd: packageDir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (stream: 'out' | 'err') => {
      let partial = '';
      return (b: Buffer) => {
        const parts = (partial + b.toString('utf8')).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts.filter((l) => l !== '')) {
          this.lines.push(`${stream} ${line}`);
          if (echo !== '') process.stderr.write(`${echo} ${stream} ${line}\n`);
        }
      };
    };
    this.#child.stdout?.on('data', collect('out'));
    this.#child.stderr?.on('data', collect('err'));
    this.exited = new Promise((resolve) =>
      this.#child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      }),
    );
  }

  /**
   * Starts `node dist/cli/noderepair.js ARGS`. Throws when the CLI was not built: the e2e
   * tests the shipped JavaScript, and a stale or missing build must not pass silently.
   */
  static start(
    args: readonly string[],
    env: Record<string, string>,
    opts: { echo?: string } = {},
  ): NoderepairCli {
    if (!existsSync(compiledCli))
      throw new Error(`${compiledCli} is missing: run \`pnpm run build\` before this e2e`);
    return new NoderepairCli(args, env, opts.echo ?? '');
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  get text(): string {
    return this.lines.join('\n');
  }

  /** SIGTERM (the Deployment's stop), SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 20_000): Promise<CliExit> {
    if (!this.running) return this.exited;
    this.#child.kill('SIGTERM');
    const t = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(t);
    }
  }
}
