// Cluster API's own CRDs for integration tests, taken from the Go module pinned in
// tools/capi-crds/go.mod (checked against its go.sum): `go mod download` puts the module in
// the Go module cache and we read core/config/crd/bases from there.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const toolsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'capi-crds');

let cached: Promise<string> | undefined;

/** The module directory of the pinned sigs.k8s.io/cluster-api. */
export function capiModuleDir(): Promise<string> {
  cached ??= (async () => {
    const { stdout } = await promisify(execFile)(
      'go',
      ['mod', 'download', '-json', 'sigs.k8s.io/cluster-api'],
      {
        cwd: toolsDir,
        env: { ...process.env, GOFLAGS: '-mod=mod' },
        maxBuffer: 1 << 20,
      },
    ).catch((e: unknown) => {
      throw new Error(
        `could not fetch the pinned Cluster API module with \`go mod download\` in ${toolsDir} (is Go installed and the module proxy reachable?): ${(e as Error).message}`,
      );
    });
    const info = JSON.parse(stdout) as { Dir?: string; Error?: string };
    if (!info.Dir)
      throw new Error(
        `go mod download sigs.k8s.io/cluster-api: ${info.Error ?? 'no Dir in the reply'}`,
      );
    return info.Dir;
  })();
  return cached;
}

/** Paths of the named core CRDs, e.g. capiCrdPaths(['machines', 'machinehealthchecks']). */
export async function capiCrdPaths(plurals: readonly string[]): Promise<string[]> {
  const dir = join(await capiModuleDir(), 'core', 'config', 'crd', 'bases');
  return plurals.map((p) => {
    const file = join(dir, `cluster.x-k8s.io_${p}.yaml`);
    if (!existsSync(file)) throw new Error(`${file}: no such CRD in the pinned Cluster API module`);
    return file;
  });
}
