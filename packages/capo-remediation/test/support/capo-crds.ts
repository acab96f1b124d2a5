// CAPO's OpenStackMachine CRD for the controller's integration tests, from the Go module
// sigs.k8s.io/cluster-api-provider-openstack at a pinned version whose module hash is
// checked here (tools/capi-crds/go.sum pins only Cluster API, so the hash lives in this file).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const CAPO_MODULE = 'sigs.k8s.io/cluster-api-provider-openstack';
export const CAPO_VERSION = 'v0.13.0';
/** go.sum h1: hash of the module zip; a different download is refused. */
export const CAPO_SUM = 'h1:iZN/qJhDZas74Mo/zM1tz038niv68e1g5wYCQJ5yczo=';

const toolsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'capi-crds');
let cached: Promise<string> | undefined;

export function capoModuleDir(): Promise<string> {
  cached ??= (async () => {
    const { stdout } = await promisify(execFile)(
      'go',
      ['mod', 'download', '-json', `${CAPO_MODULE}@${CAPO_VERSION}`],
      {
        cwd: toolsDir,
        // Not in go.sum: the hash is checked against CAPO_SUM below instead of the checksum DB.
        env: { ...process.env, GOFLAGS: '-mod=mod', GONOSUMDB: CAPO_MODULE },
        maxBuffer: 1 << 20,
      },
    );
    const info = JSON.parse(stdout) as { Dir?: string; Sum?: string; Error?: string };
    if (!info.Dir)
      throw new Error(`go mod download ${CAPO_MODULE}@${CAPO_VERSION}: ${info.Error ?? 'no Dir'}`);
    if (info.Sum !== CAPO_SUM)
      throw new Error(
        `${CAPO_MODULE}@${CAPO_VERSION}: module hash ${info.Sum} is not the pinned ${CAPO_SUM}`,
      );
    return info.Dir;
  })();
  return cached;
}

export async function capoCrdPaths(plurals: readonly string[]): Promise<string[]> {
  const dir = join(await capoModuleDir(), 'config', 'crd', 'bases');
  return plurals.map((p) => {
    const file = join(dir, `infrastructure.cluster.x-k8s.io_${p}.yaml`);
    if (!existsSync(file)) throw new Error(`${file}: no such CRD in the pinned CAPO module`);
    return file;
  });
}
