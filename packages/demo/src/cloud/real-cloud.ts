// The REAL OpenStack test bed (@noderepair/openstack-testbed: Keystone, Nova API, conductor,
// scheduler and compute from Debian's packages, Nova's fake virt driver). Every node's server
// is a real Nova server; `noderepair run` reaches it with the test bed's clouds.yaml (cloud
// testbed-appcred: application credential, as a production Secret would hold), over HTTP.
//
// The demo sees what the controller did only in Nova's own records: once a second it lists the
// servers changed since the last look (GET /servers/detail?changes-since, which also lists the
// deleted ones), and for a changed server its os-instance-actions. A new `reboot` record is a
// reboot Nova accepted, with its request id. The fake virt driver has no guest OS, so nothing
// would start a kubelet after a reboot. The one fake link (as test/support/fake-kubelet-follows-
// nova.ts in the test bed's e2e suite): the VM counts as down once Nova's compute_reboot_instance
// event has started, and as booted once that event ended "Success" and the server is ACTIVE with
// no task. Only then may the machine's kubelet come back. It never calls a Nova action itself.
import {
  computeUrl,
  issueToken,
  startOpenStackTestbed,
  type OpenStackTestbed,
  type Token,
} from '@noderepair/openstack-testbed';
import type { AcceptedReboot, Cloud, ServerView } from './cloud.js';
import { changesSince, newReboots, parseChangedServers } from './nova-records.js';
import { serial } from './serial.js';
import { DemoSetupError, testbedProblem, testbedStatus } from './testbed-check.js';

/** The clouds.yaml cloud noderepair uses: v3applicationcredential, as a production Secret would. */
export const TESTBED_CLOUD = 'testbed-appcred';
/** Prefix of the demo's server names in the test bed's Nova. */
export const SERVER_PREFIX = 'noderepair-demo-';

interface Followed extends ServerView {
  rebooting: boolean;
  boots: number;
  status: string;
  /** Nova no longer has it (deleted: status DELETED in changes-since, or 404). */
  gone: boolean;
  /** Nova's `updated` when its actions were last read. */
  updated?: string;
  /** Request ids of the reboots already recorded. */
  readonly seen: Set<string>;
}

export interface RealCloudOptions {
  progress: (line: string) => void;
  /** Milliseconds between two looks at Nova's records. */
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
  const accepted: AcceptedReboot[] = [];
  const pending: AcceptedReboot[] = [];
  const servers = new Map<string, Followed>();
  const nodes: string[] = [];
  let succeeded = 0;
  let failedReboots = 0;
  let deleted = 0;

  let token: Promise<Token> | undefined;
  /** One Nova request with the project's token (issued again once on 401). */
  const nova = async (method: 'GET' | 'DELETE', path: string): Promise<Response> => {
    const send = async (fresh: boolean): Promise<Response> => {
      if (fresh || !token) token = issueToken(tb.authUrl, tb.password, tb.region);
      const t = await token;
      return fetch(`${computeUrl(t)}${path}`, {
        method,
        headers: { 'x-auth-token': t.id, 'openstack-api-version': 'compute 2.37' },
      });
    };
    const res = await one(() => send(false));
    if (res.status !== 401) return res;
    await res.arrayBuffer();
    return one(() => send(true));
  };
  const deleteServer = async (id: string): Promise<void> => {
    const res = await nova('DELETE', `/servers/${encodeURIComponent(id)}`);
    await res.arrayBuffer();
    if (res.status !== 204 && res.status !== 404)
      throw new Error(`Nova: DELETE server ${id} returned HTTP ${res.status}, expected 204`);
  };

  let lastLook = Date.now();
  /** One look at Nova's records: changed servers, their new reboots, the pending reboots. */
  const follow = async (): Promise<void> => {
    const started = Date.now();
    const res = await nova('GET', `/servers/detail?changes-since=${changesSince(lastLook)}`);
    if (res.status !== 200) {
      await res.arrayBuffer();
      throw new Error(`Nova: GET /servers/detail returned HTTP ${res.status}`);
    }
    for (const c of parseChangedServers(await res.json())) {
      const v = servers.get(c.id);
      if (!v || v.gone) continue;
      if (c.status === 'DELETED') {
        v.gone = true;
        deleted += 1;
        continue;
      }
      if (c.updated === v.updated) continue;
      for (const r of newReboots(c.id, await one(() => tb.novaActions(c.id)), v.seen)) {
        v.seen.add(r.requestId);
        accepted.push(r);
        pending.push(r);
      }
      v.updated = c.updated;
    }
    lastLook = started;
    const heads = new Map<string, AcceptedReboot>();
    for (const r of pending) if (!heads.has(r.serverId)) heads.set(r.serverId, r);
    for (const r of heads.values()) {
      const v = servers.get(r.serverId);
      if (!v || v.gone || r.requestId === undefined) {
        pending.splice(pending.indexOf(r), 1);
        continue;
      }
      const requestId = r.requestId;
      const events = await one(() => tb.novaActionEvents(r.serverId, requestId));
      const ev = events.find((e) => e.event === 'compute_reboot_instance');
      if (ev === undefined) continue; // nova-compute has not started it yet
      v.rebooting = true;
      v.status = 'REBOOT';
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
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
    }
  })();

  return {
    kind: 'real',
    description: `REAL OpenStack test bed (Keystone ${tb.authUrl}, Nova with the fake virt driver; cloud ${TESTBED_CLOUD} of its clouds.yaml)`,
    cloudsYaml: tb.cloudsYaml,
    cloudName: TESTBED_CLOUD,
    bootMs: 1500,
    async createServer(name) {
      const id = await one(() => tb.createServer(`${SERVER_PREFIX}${name}`));
      const v: Followed = {
        rebooting: false,
        boots: 0,
        status: 'BUILD',
        gone: false,
        seen: new Set(),
      };
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
    gone: async (id) => servers.get(id)?.gone === true,
    observe: (id) => {
      const v = servers.get(id);
      return v && !v.gone ? v : undefined;
    },
    acceptedReboots: () => accepted,
    describeUse: () =>
      `REAL test bed Nova for ${nodes.length} node(s): ${accepted.length} reboot(s) accepted, ` +
      `${succeeded} finished "Success" in Nova's own records (compute_reboot_instance)` +
      (failedReboots ? `, ${failedReboots} did not` : '') +
      `, ${deleted} server(s) deleted`,
    async close() {
      stopped = true;
      await loop;
      const ids = [...servers.entries()].filter(([, v]) => !v.gone).map(([id]) => id);
      const failed: string[] = [];
      for (const id of ids) {
        servers.delete(id);
        await deleteServer(id).catch(() => failed.push(id));
      }
      // Nova answers 204 at once and lists a server until nova-compute has deleted it, one
      // after another: wait for that, so the next run (or test) finds none of ours.
      const deadline = Date.now() + 180_000;
      let left = ids.filter((id) => !failed.includes(id));
      while (left.length > 0 && Date.now() < deadline) {
        const still: string[] = [];
        for (const id of left) {
          const res = await nova('GET', `/servers/${encodeURIComponent(id)}`).catch(
            () => undefined,
          );
          await res?.arrayBuffer();
          if (res?.status !== 404) still.push(id);
        }
        left = still;
        if (left.length > 0) await new Promise((r) => setTimeout(r, 1000));
      }
      failed.push(...left);
      opts.progress(
        `deleted the demo's ${ids.length - failed.length} server(s) in the test bed's Nova` +
          (failed.length
            ? `; could not delete (or Nova still lists) ${failed.join(', ')} (testbed.sh start deletes leftovers)`
            : ''),
      );
    },
  };
}
