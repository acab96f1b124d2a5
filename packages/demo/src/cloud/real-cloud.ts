// The REAL OpenStack test bed (@noderepair/openstack-testbed: Keystone, Nova API, conductor,
// scheduler and compute from Debian's packages, Nova's fake virt driver). Its servers are
// real Nova servers; noderepair reboots them through the OpenStack client with the test bed's
// clouds.yaml (application-credential cloud), over HTTP to the real Keystone and Nova.
//
// The fake virt driver has no guest OS, so nothing would start a kubelet after a reboot. The
// one fake link (as test/support/fake-kubelet-follows-nova.ts in the test bed's e2e suite):
// for each reboot Nova accepted (202, with its x-compute-request-id), this cloud reads Nova's
// own record of that action; the VM counts as down once Nova's compute_reboot_instance event
// has started, and as booted once that event ended "Success" and the server is ACTIVE with no
// task. Only then may the machine's kubelet come back. It never calls a Nova action itself.
import {
  createHttpTransport,
  NovaRebootProvider,
  openStackClientFromCloudsYaml,
  type Transport,
} from '@noderepair/openstack';
import {
  computeUrl,
  issueToken,
  startOpenStackTestbed,
  type OpenStackTestbed,
  type Token,
} from '@noderepair/openstack-testbed';
import type { AcceptedReboot, Cloud, ServerView } from './cloud.js';
import { serial } from './serial.js';
import { DemoSetupError, testbedProblem, testbedStatus } from './testbed-check.js';

/** The clouds.yaml cloud noderepair uses: v3applicationcredential, as a production Secret would. */
export const TESTBED_CLOUD = 'testbed-appcred';
/** Prefix of the demo's server names in the test bed's Nova. */
export const SERVER_PREFIX = 'noderepair-demo-';

/** SOFT/HARD from a server action body, when it is a reboot. */
export function rebootTypeOf(body: string | undefined): 'SOFT' | 'HARD' | undefined {
  if (!body) return undefined;
  try {
    const t = (JSON.parse(body) as { reboot?: { type?: unknown } }).reboot?.type;
    return t === 'SOFT' || t === 'HARD' ? t : undefined;
  } catch {
    return undefined;
  }
}

interface Followed extends ServerView {
  rebooting: boolean;
  boots: number;
  status: string;
}

export interface RealCloudOptions {
  progress: (line: string) => void;
  /** Milliseconds between two looks at Nova's records of a pending reboot. */
  pollMs?: number;
}

export async function startRealCloud(opts: RealCloudOptions): Promise<Cloud> {
  const problem = testbedProblem(await testbedStatus());
  if (problem) throw new DemoSetupError(problem);
  let partial = '';
  // install (idempotent, seconds when done) + start (a running test bed: it lifts the project's
  // quotas and deletes servers earlier runs left) + env: the test bed package's own entry.
  const tb: OpenStackTestbed = await startOpenStackTestbed({
    progress: (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) opts.progress(l);
    },
  });
  const one = serial();
  const http = createHttpTransport();
  const accepted: AcceptedReboot[] = [];
  const pending: AcceptedReboot[] = [];
  const servers = new Map<string, Followed>();
  const nodes: string[] = [];
  let succeeded = 0;
  let failedReboots = 0;

  // The controller's transport: every request through the queue; Nova's 202 to a reboot is
  // recorded with the request id Nova gave it, which is how its record is found again.
  const transport: Transport = async (req) => {
    const res = await one(() => http.transport(req));
    const path = new URL(req.url).pathname;
    const action = req.method === 'POST' ? /\/servers\/([^/]+)\/action$/.exec(path) : null;
    const type = rebootTypeOf(req.body);
    if (action?.[1] !== undefined && type && res.status === 202) {
      const r: AcceptedReboot = {
        at: Date.now(),
        serverId: decodeURIComponent(action[1]),
        type,
        requestId: res.headers.get('x-compute-request-id') ?? undefined,
      };
      accepted.push(r);
      pending.push(r);
    }
    return res;
  };
  const os = openStackClientFromCloudsYaml(tb.cloudsYaml, TESTBED_CLOUD, undefined, { transport });

  let token: Promise<Token> | undefined;
  const deleteServer = async (id: string): Promise<void> => {
    const del = async (fresh: boolean): Promise<number> => {
      if (fresh || !token) token = issueToken(tb.authUrl, tb.password, tb.region);
      const t = await token;
      const res = await fetch(`${computeUrl(t)}/servers/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        headers: { 'x-auth-token': t.id },
      });
      await res.arrayBuffer();
      return res.status;
    };
    let status = await one(() => del(false));
    if (status === 401) status = await one(() => del(true));
    if (status !== 204 && status !== 404)
      throw new Error(`Nova: DELETE server ${id} returned HTTP ${status}, expected 204`);
  };

  /** One look at the oldest pending reboot of each server. */
  const follow = async (): Promise<void> => {
    const heads = new Map<string, AcceptedReboot>();
    for (const r of pending) if (!heads.has(r.serverId)) heads.set(r.serverId, r);
    for (const r of heads.values()) {
      const v = servers.get(r.serverId);
      if (!v || r.requestId === undefined) {
        pending.splice(pending.indexOf(r), 1); // not ours, or no request id to find it by
        continue;
      }
      const requestId = r.requestId;
      const events = await one(() => tb.novaActionEvents(r.serverId, requestId));
      const ev = events.find((e) => e.event === 'compute_reboot_instance');
      if (ev === undefined) continue; // nova-compute has not started it yet
      v.rebooting = true;
      v.status = r.type === 'HARD' ? 'HARD_REBOOT' : 'REBOOT';
      if (ev.result === null) continue;
      const s = await one(() => tb.serverState(r.serverId));
      if (s.taskState !== null) continue;
      pending.splice(pending.indexOf(r), 1);
      v.rebooting = false;
      v.status = s.status;
      // A failed reboot leaves the VM down: the kubelet does not come back, the ladder goes on.
      if (ev.result === 'Success' && s.status === 'ACTIVE') {
        v.boots += 1;
        succeeded += 1;
      } else failedReboots += 1;
    }
  };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await follow().catch(() => undefined); // a slow or failed read is retried at the next look
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
    }
  })();

  return {
    kind: 'real',
    description: `REAL OpenStack test bed (Keystone ${tb.authUrl}, Nova with the fake virt driver; cloud ${TESTBED_CLOUD} of its clouds.yaml)`,
    provider: new NovaRebootProvider(os.nova),
    bootMs: 1500,
    async createServer(name) {
      const id = await one(() => tb.createServer(`${SERVER_PREFIX}${name}`));
      const v: Followed = { rebooting: false, boots: 0, status: 'BUILD' };
      servers.set(id, v);
      nodes.push(name);
      const deadline = Date.now() + 180_000;
      for (;;) {
        const s = await one(() => tb.serverState(id));
        v.status = s.status;
        if (s.status === 'ACTIVE' && s.taskState === null) return id;
        if (s.status === 'ERROR') throw new Error(`Nova: server ${id} (${name}) went to ERROR`);
        if (Date.now() > deadline)
          throw new Error(
            `Nova: server ${id} (${name}) still ${s.status} after 180 s, expected ACTIVE`,
          );
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    async deleteServer(id) {
      servers.delete(id);
      await deleteServer(id);
    },
    owns: (id) => servers.has(id),
    observe: (id) => servers.get(id),
    acceptedReboots: () => accepted,
    describeUse: () =>
      `REAL test bed Nova for ${nodes.length} node(s) (${nodes.join(', ')}): ${accepted.length} reboot(s) accepted, ` +
      `${succeeded} finished "Success" in Nova's own records (compute_reboot_instance)` +
      (failedReboots ? `, ${failedReboots} did not` : ''),
    async close() {
      stopped = true;
      await loop;
      const ids = [...servers.keys()];
      const failed: string[] = [];
      for (const id of ids) {
        servers.delete(id);
        await deleteServer(id).catch(() => failed.push(id));
      }
      opts.progress(
        `deleted the demo's ${ids.length - failed.length} server(s) in the test bed's Nova` +
          (failed.length
            ? `; could not delete ${failed.join(', ')} (testbed.sh start deletes leftovers)`
            : ''),
      );
      await os.close();
      await http.close();
    },
  };
}
