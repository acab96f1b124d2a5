// startOpenStackTestbed(): install (idempotent) and start the loopback OpenStack, then hand
// tests what they need to talk to it.
import { readFile } from 'node:fs/promises';
import { issueToken } from './keystone.js';
import type { Identity } from './keystone.js';
import type { Token } from './keystone.js';
import {
  computeServiceUp,
  instanceActionEvents,
  listInstanceActions,
  resetServerState,
  serverMetadata,
  serverState,
} from './nova.js';
import type { InstanceAction, InstanceActionEvent, ServerState } from './nova.js';
import { parseEnvExports, runScript } from './script.js';
import type { ScriptOptions } from './script.js';

export interface OpenStackTestbed {
  readonly authUrl: string;
  readonly region: string;
  /** clouds.yaml with cloud "testbed" (password) and "testbed-appcred" (application credential). */
  readonly cloudsYaml: string;
  readonly password: Extract<Identity, { kind: 'password' }>;
  readonly applicationCredential: Extract<Identity, { kind: 'application_credential' }>;
  readonly flavor: string;
  readonly image: string;
  /** Creates a server (no network, fake driver) and returns its uuid without waiting for ACTIVE. */
  createServer(name: string): Promise<string>;
  /** createServer for many: one script and one token, the uuids in the order of `names`. */
  createServers(names: readonly string[]): Promise<string[]>;
  /** Nova's os-instance-actions for the server, oldest first. */
  novaActions(uuid: string): Promise<InstanceAction[]>;
  /** The events of one of those actions (compute_reboot_instance, ...). */
  novaActionEvents(uuid: string, requestId: string): Promise<InstanceActionEvent[]>;
  /** Status, vm_state and task_state of the server. */
  serverState(uuid: string): Promise<ServerState>;
  /** As the cloud admin: Nova's os-resetState (puts a server in ERROR, or back to ACTIVE). */
  resetServerState(uuid: string, state: 'error' | 'active'): Promise<void>;
  /** As the cloud admin: whether Nova (and so its scheduler) calls nova-compute up. */
  computeServiceUp(): Promise<boolean>;
  /** The server's metadata (key -> value). */
  serverMetadata(uuid: string): Promise<Record<string, string>>;
  /** Polls until the server shows `status` with no task in progress; throws on ERROR or timeout. */
  waitForServer(uuid: string, status: string, timeoutMs?: number): Promise<ServerState>;
  /** Freezes nova-compute (SIGSTOP) so an accepted task stays in progress; see testbed.sh. */
  pauseCompute(): Promise<void>;
  /** Stops services (e.g. keystone, nova-api): a cloud outage while the rest keeps running. */
  stopServices(names: readonly string[]): Promise<void>;
  /** Starts them again and waits for their ports. */
  startServices(names: readonly string[]): Promise<void>;
  resumeCompute(): Promise<void>;
  /** Stops every daemon the script started. */
  stop(): Promise<void>;
}

function required(env: Record<string, string>, name: string): string {
  const v = env[name];
  if (v === undefined || v === '')
    throw new Error(`testbed.sh env: ${name} missing from its output`);
  return v;
}

export async function startOpenStackTestbed(
  options: ScriptOptions = {},
): Promise<OpenStackTestbed> {
  await runScript(['install'], options);
  await runScript(['start'], options);
  const env = parseEnvExports(await runScript(['env'], options));
  const authUrl = required(env, 'OS_AUTH_URL');
  const region = required(env, 'OS_REGION_NAME');
  const password = {
    kind: 'password',
    username: required(env, 'OS_USERNAME'),
    password: required(env, 'OS_PASSWORD'),
    project: required(env, 'OS_PROJECT_NAME'),
  } as const;
  const cloudsYaml = await readFile(required(env, 'OS_CLIENT_CONFIG_FILE'), 'utf8');
  // One project token for the reads, issued again when Nova answers 401 (expiry): tests poll
  // Nova every few hundred ms, and a token per poll would load Keystone for nothing.
  let token: Promise<Token> | undefined;
  const fresh = (): Promise<Token> =>
    (token = issueToken(authUrl, password, region).catch((e: unknown) => {
      token = undefined; // a failed issue is not cached
      throw e;
    }));
  const asProject = async <T>(read: (t: Token) => Promise<T>): Promise<T> => {
    try {
      return await read(await (token ?? fresh()));
    } catch (e) {
      if (!/HTTP 401/.test((e as Error).message)) throw e;
      return read(await fresh());
    }
  };
  const state = (uuid: string) => asProject((t) => serverState(t, uuid));
  const createServers = async (names: readonly string[]): Promise<string[]> => {
    if (names.length === 0) return [];
    const ids = (await runScript(['create-server', ...names], options)).trim().split('\n');
    if (ids.length !== names.length || !ids.every((id) => /^[0-9a-f-]{36}$/.test(id)))
      throw new Error(`testbed.sh create-server: expected ${names.length} uuids, one per line`);
    return ids;
  };
  const adminToken = () =>
    issueToken(
      authUrl,
      {
        kind: 'password',
        username: 'admin',
        password: required(env, 'OS_TESTBED_ADMIN_PASSWORD'),
        project: 'admin',
      },
      region,
    );
  return {
    authUrl,
    region,
    cloudsYaml,
    password,
    applicationCredential: {
      kind: 'application_credential',
      id: required(env, 'OS_APPLICATION_CREDENTIAL_ID'),
      secret: required(env, 'OS_APPLICATION_CREDENTIAL_SECRET'),
    },
    flavor: required(env, 'OS_TESTBED_FLAVOR'),
    image: required(env, 'OS_TESTBED_IMAGE'),
    createServer: async (name) => (await createServers([name]))[0]!,
    createServers,
    novaActions: (uuid) => asProject((t) => listInstanceActions(t, uuid)),
    novaActionEvents: (uuid, requestId) =>
      asProject((t) => instanceActionEvents(t, uuid, requestId)),
    serverState: state,
    serverMetadata: (uuid) => asProject((t) => serverMetadata(t, uuid)),
    async resetServerState(uuid, state) {
      await resetServerState(await adminToken(), uuid, state);
    },
    computeServiceUp: async () => computeServiceUp(await adminToken()),
    async waitForServer(uuid, status, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      let last: ServerState | undefined;
      while (Date.now() < deadline) {
        last = await state(uuid);
        if (last.status === 'ERROR' && status !== 'ERROR')
          throw new Error(`server ${uuid} went to ERROR while waiting for ${status}`);
        if (last.status === status && last.taskState === null) return last;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(
        `server ${uuid}: still ${last?.status ?? '?'}/${String(last?.taskState)} after ${timeoutMs} ms, expected ${status}`,
      );
    },
    async stopServices(names) {
      await runScript(['stop-service', ...names], options);
    },
    async startServices(names) {
      await runScript(['start-service', ...names], options);
    },
    async pauseCompute() {
      await runScript(['pause-compute'], options);
    },
    async resumeCompute() {
      await runScript(['resume-compute'], options);
    },
    async stop() {
      await runScript(['stop'], options);
    },
  };
}
