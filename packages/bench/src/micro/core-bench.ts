// Runs @noderepair/core's in-process benchmarks (packages/core/bench) in a child process of
// their own, so the retained-heap figures measure only the informer under test, never this
// orchestrator's heap: the micro half (work queue, health) or the informer half (against a
// given kubeconfig's Nodes).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseJsonLines } from './json-lines.js';

const coreDir = fileURLToPath(new URL('../../../core/', import.meta.url));

export async function runCoreBench(
  env: Record<string, string>,
  timeoutMs: number,
): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/index.ts'], {
      cwd: coreDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const l of d.toString().split('\n'))
        if (l.trim()) process.stderr.write(`bench: core: ${l}\n`);
    });
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const { records } = parseJsonLines(out);
      if (code === 0) resolve(records);
      else
        reject(
          new Error(`core bench (${JSON.stringify(env)}) failed (exit ${code ?? signal}):\n${err}`),
        );
    });
  });
}
