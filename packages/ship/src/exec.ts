// One way to run a tool and get its output, with the tail of stderr in the error (the tools
// here — podman, npm, go, helm, kubectl — say what went wrong on stderr).
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** ~/.cache/noderepair (or $NODEREPAIR_CACHE), shared with envtest's and capi-e2e's builds. */
export function cacheRoot(): string {
  return (
    process.env['NODEREPAIR_CACHE'] ??
    join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'noderepair')
  );
}

export type Progress = (line: string) => void;
export const stderrProgress: Progress = (l) => process.stderr.write(`${l}\n`);

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Lines of stderr (and stdout when `stream`) go here as they come. */
  progress?: Progress;
  stream?: boolean;
  signal?: AbortSignal;
}

// npm or pnpm started inside a pnpm script would inherit pnpm's npm_config_* settings.
export const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm|pnpm)_/i.test(k)));

export function exec(cmd: string, args: readonly string[], o: ExecOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: o.cwd ?? repoRoot,
      env: o.env ?? cleanEnv(),
      stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(o.signal ? { signal: o.signal } : {}),
    });
    let out = '';
    let tail = '';
    child.stdout?.on('data', (b: Buffer) => {
      const s = b.toString();
      out += s;
      if (o.stream && o.progress) for (const l of s.split('\n')) if (l.trim()) o.progress(`  ${l}`);
    });
    child.stderr?.on('data', (b: Buffer) => {
      const s = b.toString();
      tail = (tail + s).slice(-6000);
      if (o.progress) for (const l of s.split('\n')) if (l.trim()) o.progress(`  ${l}`);
    });
    if (o.input !== undefined) child.stdin?.end(o.input);
    child.on('error', (err) =>
      reject(
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error(`'${cmd}' was not found on PATH`)
          : err,
      ),
    );
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(
              `${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${tail || out.slice(-3000)}`,
            ),
          ),
    );
  });
}
