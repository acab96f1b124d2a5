/**
 * The ProviderModule `noderepair run --provider openstack` loads on demand, so core never depends
 * on this package. It reads clouds.yaml where openstacksdk looks for it, builds the same client
 * capo-remediation uses and returns a Nova machine provider whose Replace deletes the server:
 * without Cluster API, the node group's owner recreates the capacity.
 *
 * @packageDocumentation
 */
import type {
  MachineProvider,
  ProviderModule,
  ProviderModuleContext,
} from '@noderepair/core/provider';
// First: tsc keeps the package comment in the .d.ts only above an import it keeps.
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { createOpenStackClient } from './client.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import { NovaMachineProvider } from './machine-provider.js';

/** Where clouds.yaml is looked for when no path is given (openstacksdk's search order). */
export interface SearchDirs {
  /** The working directory: `./clouds.yaml`, and the base of relative paths. */
  readonly cwd: string;
  /** The home directory: `~/.config/openstack/clouds.yaml`. */
  readonly home: string;
  /** The system directory, normally `/etc/openstack`. */
  readonly etc: string;
}

const defaultDirs = (): SearchDirs => ({
  cwd: process.cwd(),
  home: homedir(),
  etc: '/etc/openstack',
});

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The clouds.yaml to use. A path the user gave (the option, or OS_CLIENT_CONFIG_FILE) must
 * exist: a typo never falls through to another file. Otherwise the first of ./clouds.yaml,
 * ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml; when none exists the error
 * lists every path tried.
 */
export async function locateCloudsYaml(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  dirs: SearchDirs = defaultDirs(),
): Promise<string> {
  const given: Array<[string, string | undefined]> = [
    ['--provider-opt clouds-yaml', option],
    ['OS_CLIENT_CONFIG_FILE', env['OS_CLIENT_CONFIG_FILE']],
  ];
  for (const [from, path] of given) {
    if (path === undefined || path === '') continue;
    const abs = resolve(dirs.cwd, path);
    if (await isFile(abs)) return abs;
    throw new Error(`openstack provider: ${from}=${path}: no such file (${abs})`);
  }
  const tried = [
    join(dirs.cwd, 'clouds.yaml'),
    join(dirs.home, '.config', 'openstack', 'clouds.yaml'),
    join(dirs.etc, 'clouds.yaml'),
  ];
  for (const p of tried) if (await isFile(p)) return p;
  throw new Error(
    `openstack provider: no clouds.yaml found (tried ${tried.join(', ')}); give one with --provider-opt clouds-yaml=PATH or OS_CLIENT_CONFIG_FILE`,
  );
}

/** Builds the provider; `dirs` only for tests (where clouds.yaml is searched for). */
export async function createOpenStackProvider(
  ctx: ProviderModuleContext,
  dirs: SearchDirs = defaultDirs(),
): Promise<MachineProvider> {
  const file = await locateCloudsYaml(ctx.options['clouds-yaml'], ctx.env, dirs);
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new Error(`openstack provider: ${file}: cannot be read (${e.code ?? 'error'})`);
  });
  const cloudName = ctx.options['cloud'] || ctx.env['OS_CLOUD'];
  if (!cloudName)
    throw new Error(
      `openstack provider: no cloud chosen: pass --cloud NAME (or set OS_CLOUD) naming a cloud of ${file}`,
    );
  const parsed = parseCloudsYaml(text, cloudName);
  // The parser's messages name the field and never a value (clouds-yaml.ts).
  if (E.isLeft(parsed)) throw new Error(`openstack provider: ${file}: ${parsed.left}`);
  let cloud = parsed.right;
  if (cloud.caCertPath !== undefined) {
    const path = resolve(dirs.cwd, cloud.caCertPath);
    const pem = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new Error(
        `openstack provider: ${file}: clouds.${cloudName}.cacert: ${path} cannot be read (${e.code ?? 'error'})`,
      );
    });
    cloud = { ...cloud, caCert: pem };
  }
  const log = ctx.log.child({ provider: 'openstack', cloud: cloudName });
  const client = createOpenStackClient(cloud, {
    logger: log,
    userAgent: 'noderepair-run',
  });
  if (ctx.signal.aborted) {
    await client.close();
    throw new Error('openstack provider: the controller stopped while the provider was built');
  }
  log.info({ cloudsYaml: file, region: cloud.region ?? null }, 'openstack provider ready');
  return new NovaMachineProvider(client.nova, { replace: 'DeleteServer', region: cloud.region });
}

/**
 * The `openstack` provider for `noderepair run --provider openstack`, with options `cloud` and
 * `clouds-yaml`; its Replace deletes the Nova server.
 */
export const providerModule: ProviderModule = {
  name: 'openstack',
  options: {
    cloud: 'the cloud of clouds.yaml to use (default: $OS_CLOUD)',
    'clouds-yaml':
      'path of clouds.yaml (default: $OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml)',
  },
  create: (ctx) => createOpenStackProvider(ctx),
};

export default providerModule;
