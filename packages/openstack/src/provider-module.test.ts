// The `--provider openstack` module: where clouds.yaml is found (openstacksdk's order), which
// cloud is used, what the errors say (file and field, never a secret), and that the provider
// it builds talks to Keystone + Nova (FakeOpenStack over real loopback HTTP: a FAKE cloud)
// with Replace turned on.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterConfig } from '@noderepair/core/kube';
import { providerModuleOf } from '@noderepair/core/provider';
import { silentLogger } from '@noderepair/core/runtime';
import { FAKE_DEFAULTS, FakeOpenStack } from './testing/index.js';
import {
  createOpenStackProvider,
  locateCloudsYaml,
  providerModule,
  type SearchDirs,
} from './provider-module.js';

let root: string;
let dirs: SearchDirs;
let fake: FakeOpenStack;
const ctx = { signal: new AbortController().signal };

beforeAll(async () => {
  fake = await FakeOpenStack.start({ transitionDelayMs: 0 });
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function tree(files: Record<string, string> = {}): Promise<SearchDirs> {
  root = await mkdtemp(join(tmpdir(), 'provider-module-'));
  dirs = { cwd: join(root, 'cwd'), home: join(root, 'home'), etc: join(root, 'etc') };
  for (const d of Object.values(dirs)) await mkdir(d, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
  }
  return dirs;
}

function moduleCtx(
  options: Record<string, string>,
  env: Record<string, string | undefined> = {},
  signal = new AbortController().signal,
) {
  return { cluster: {} as ClusterConfig, options, env, log: silentLogger, signal };
}

describe('locateCloudsYaml: openstacksdk order', () => {
  it('./clouds.yaml, then ~/.config/openstack/clouds.yaml, then /etc/openstack/clouds.yaml', async () => {
    const d = await tree({
      'cwd/clouds.yaml': 'a',
      'home/.config/openstack/clouds.yaml': 'b',
      'etc/clouds.yaml': 'c',
    });
    expect(await locateCloudsYaml(undefined, {}, d)).toBe(join(d.cwd, 'clouds.yaml'));
    await rm(join(d.cwd, 'clouds.yaml'));
    expect(await locateCloudsYaml(undefined, {}, d)).toBe(
      join(d.home, '.config/openstack/clouds.yaml'),
    );
    await rm(join(d.home, '.config/openstack/clouds.yaml'));
    expect(await locateCloudsYaml(undefined, {}, d)).toBe(join(d.etc, 'clouds.yaml'));
  });

  it('the option wins over OS_CLIENT_CONFIG_FILE, which wins over the search path', async () => {
    const d = await tree({ 'cwd/clouds.yaml': 'a', 'x/opt.yaml': 'b', 'x/env.yaml': 'c' });
    const env = { OS_CLIENT_CONFIG_FILE: join(root, 'x/env.yaml') };
    expect(await locateCloudsYaml(join(root, 'x/opt.yaml'), env, d)).toBe(join(root, 'x/opt.yaml'));
    expect(await locateCloudsYaml(undefined, env, d)).toBe(join(root, 'x/env.yaml'));
  });

  it('a given path that does not exist is an error naming where it came from, never a fallback', async () => {
    const d = await tree({ 'cwd/clouds.yaml': 'a' });
    await expect(locateCloudsYaml('/nonexistent/clouds.yaml', {}, d)).rejects.toThrow(
      '--provider-opt clouds-yaml=/nonexistent/clouds.yaml: no such file',
    );
    await expect(
      locateCloudsYaml(undefined, { OS_CLIENT_CONFIG_FILE: '/nonexistent/c.yaml' }, d),
    ).rejects.toThrow('OS_CLIENT_CONFIG_FILE=/nonexistent/c.yaml: no such file');
  });

  it('none found: the error lists every path tried', async () => {
    const d = await tree();
    const err = await locateCloudsYaml(undefined, {}, d).catch((e: Error) => e.message);
    expect(err).toContain(join(d.cwd, 'clouds.yaml'));
    expect(err).toContain(join(d.home, '.config', 'openstack', 'clouds.yaml'));
    expect(err).toContain(join(d.etc, 'clouds.yaml'));
    expect(err).toContain('OS_CLIENT_CONFIG_FILE');
  });
});

describe('providerModule (openstack)', () => {
  it('is a ProviderModule core can load: name openstack, options cloud and clouds-yaml', () => {
    const pm = providerModuleOf({ providerModule }, '@noderepair/openstack/provider');
    expect(pm.name).toBe('openstack');
    expect(Object.keys(pm.options).sort()).toEqual(['cloud', 'clouds-yaml']);
    expect(providerModuleOf({ default: providerModule }, 'x')).toBe(providerModule);
  });

  it('application credentials from --cloud: a working provider with Replace on', async () => {
    const d = await tree({
      'cwd/clouds.yaml': fake.cloudsYaml({ cloudName: 'prod', auth: 'application_credential' }),
    });
    const p = await createOpenStackProvider(moduleCtx({ cloud: 'prod' }), d);
    expect(p.name).toBe('openstack');
    expect([...p.actions].sort()).toEqual(
      ['HardReboot', 'PowerOff', 'Rebuild', 'Replace', 'SoftReboot'].sort(),
    );
    const id = fake.addServer();
    const q = {
      node: 'n',
      providerID: `openstack:///${id}`,
      action: 'Replace' as const,
      actionId: 'a/1',
      issuedAt: Date.now(),
      replay: false,
    };
    expect(await p.execute(q, ctx)).toMatchObject({ kind: 'Accepted' });
    expect(fake.instanceActions(id).map((a) => a.action)).toEqual(['delete']);
    expect(await p.fence(q, ctx)).toMatchObject({ kind: 'Fenced', how: 'Deleted' });
  });

  it('password auth, clouds.yaml from OS_CLIENT_CONFIG_FILE and the cloud from OS_CLOUD', async () => {
    const d = await tree({ 'x/c.yaml': fake.cloudsYaml({ cloudName: 'dev', auth: 'password' }) });
    const env = { OS_CLIENT_CONFIG_FILE: join(root, 'x/c.yaml'), OS_CLOUD: 'dev' };
    const p = await createOpenStackProvider(moduleCtx({}, env), d);
    const id = fake.addServer();
    expect(await p.powerState?.({ node: 'n', providerID: `openstack:///${id}` }, ctx)).toEqual({
      kind: 'On',
    });
  });

  it("knows its cloud's region: a providerID of another region is not acted on", async () => {
    const d = await tree({ 'cwd/clouds.yaml': fake.cloudsYaml({ cloudName: 'prod' }) });
    const p = await createOpenStackProvider(moduleCtx({ cloud: 'prod' }), d);
    const id = fake.addServer();
    const q = {
      node: 'n',
      providerID: `openstack://RegionTwo/${id}`,
      action: 'HardReboot' as const,
      actionId: 'a/1',
      issuedAt: Date.now(),
      replay: false,
    };
    expect(await p.execute(q, ctx)).toMatchObject({
      kind: 'Unavailable',
      message: expect.stringContaining('"RegionOne"'),
    });
    expect(await p.fence(q, ctx)).toMatchObject({ kind: 'NotFenced' });
    expect(fake.instanceActions(id)).toEqual([]);
    const here = { ...q, providerID: `openstack://RegionOne/${id}` };
    expect(await p.execute(here, ctx)).toMatchObject({ kind: 'Accepted' });
  });

  it('no cloud chosen: the error names --cloud and OS_CLOUD and the file', async () => {
    const d = await tree({ 'cwd/clouds.yaml': fake.cloudsYaml() });
    await expect(createOpenStackProvider(moduleCtx({}), d)).rejects.toThrow(
      new RegExp(`pass --cloud NAME \\(or set OS_CLOUD\\).*${join(d.cwd, 'clouds.yaml')}`),
    );
  });

  it('an unknown cloud and a bad field: the file and the field are named, the secret never', async () => {
    const yaml = fake.cloudsYaml({ cloudName: 'prod' });
    const d = await tree({
      'cwd/clouds.yaml': yaml,
      'cwd/typo.yaml': yaml.replace('password:', 'pasword:'),
    });
    const file = join(d.cwd, 'clouds.yaml');
    await expect(createOpenStackProvider(moduleCtx({ cloud: 'prd' }), d)).rejects.toThrow(
      `${file}: clouds.yaml: cloud "prd" not found (clouds: prod)`,
    );
    const typo = await createOpenStackProvider(
      moduleCtx({ cloud: 'prod', 'clouds-yaml': join(d.cwd, 'typo.yaml') }),
      d,
    ).catch((e: Error) => e.message);
    expect(typo).toContain(join(d.cwd, 'typo.yaml'));
    expect(typo).toContain('clouds.prod.auth');
    expect(typo).toContain('pasword');
    expect(typo).not.toContain(FAKE_DEFAULTS.user.password);
  });

  it('clouds.yaml cacert that cannot be read: the file and clouds.<name>.cacert are named', async () => {
    const yaml = fake.cloudsYaml({ cloudName: 'prod', cacertPath: '/nonexistent/ca.pem' });
    const d = await tree({ 'cwd/clouds.yaml': yaml });
    await expect(createOpenStackProvider(moduleCtx({ cloud: 'prod' }), d)).rejects.toThrow(
      `${join(d.cwd, 'clouds.yaml')}: clouds.prod.cacert: /nonexistent/ca.pem cannot be read (ENOENT)`,
    );
  });

  it('create() searches the real default places: OS_CLIENT_CONFIG_FILE given, it is used', async () => {
    const d = await tree({ 'x/c.yaml': fake.cloudsYaml({ cloudName: 'dev' }) });
    const p = await providerModule.create(
      moduleCtx({ cloud: 'dev' }, { OS_CLIENT_CONFIG_FILE: join(root, 'x/c.yaml') }),
    );
    expect(p.actions.has('Replace')).toBe(true);
    expect(d).toBeDefined();
  });
});
