// One capo scale point, measured: the capo controller is started fresh, then every worker's
// Node posts Ready=False at the same whole second; the MachineHealthChecks create N
// OpenStackRemediations and the controller hard-reboots N real Nova servers. Timed by watch
// on this process's clock: each remediation from first seen to its acceptedTime first seen
// (the controller writes acceptedTime once Nova answered 202; Nova's os-instance-actions
// confirm afterwards that each server got exactly one reboot). Requests are counted over the
// same window; nothing is asserted.
import { customResource, type KubeObject } from '@noderepair/core/kube';
import type { OpenStackTestbed } from '@noderepair/openstack-testbed';
import { BENCH_NAMESPACE, flowSchemaOf } from '../cluster/identities.js';
import { REMEDIATION_GROUP, REMEDIATION_VERSION } from '../cluster/capi-objects.js';
import { forEachLimited, postReady } from '../cluster/node-writer.js';
import { FirstSeen } from '../measure/first-seen.js';
import { dispatchedByFlowSchema } from '../metrics/apiserver.js';
import { readProcUsage } from '../proc/proc-stat.js';
import { summarize } from '../stats/percentile.js';
import { CapoControllerProcess } from './controller.js';
import {
  perRemediation,
  rebootsSince,
  TOKENS_KEY,
  total,
  type CapoRequests,
  type CapoResult,
} from './figures.js';
import { CAPO_PARTY } from './proxy.js';
import type { CapoScaleWorld } from './world.js';

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const OsrResource = customResource({
  group: REMEDIATION_GROUP,
  version: REMEDIATION_VERSION,
  kind: 'OpenStackRemediation',
  namespaced: true,
});
type Osr = KubeObject & {
  status?: { history?: Array<{ type?: string; acceptedTime?: string }> };
};

/** Largest VmRSS seen, sampled once a second (VmHWM alone would include the start-up). */
class RssSampler {
  max = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(private readonly pid: () => number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 1_000);
  }
  private sample(): void {
    try {
      this.max = Math.max(this.max, readProcUsage(this.pid()).rssBytes);
    } catch {
      // exited: the figure stays what it was; the caller reports the exit
    }
  }
  stop(): { maxRssBytes: number; peakRssBytes: number } {
    clearInterval(this.timer);
    this.sample();
    let peak = 0;
    try {
      peak = readProcUsage(this.pid()).peakRssBytes;
    } catch {
      peak = this.max;
    }
    return { maxRssBytes: this.max, peakRssBytes: peak };
  }
}

export async function runCapoPoint(
  world: CapoScaleWorld,
  tb: OpenStackTestbed,
  o: { timeoutSeconds: number; tag: string },
): Promise<CapoResult> {
  const admin = world.capi.adminClient;
  const n = world.workers.length;
  const mgr = world.capi.manager;
  if (!mgr?.running) throw new Error('the Cluster API manager is not running');
  const ctl = await CapoControllerProcess.start({
    kubeconfigPath: world.capi.identities.noderepair.kubeconfigPath,
    dir: world.capi.dir,
    tag: o.tag,
  });
  const rss = {
    capo: new RssSampler(() => ctl.pid),
    capi: new RssSampler(() => mgr.pid as number),
  };
  const names = new Set(world.workers.map((w) => w.name));
  const created = new FirstSeen(admin, OsrResource, { namespace: BENCH_NAMESPACE }, (r) =>
    names.has(r.metadata?.name ?? '') ? r.metadata?.name : undefined,
  );
  const accepted = new FirstSeen(admin, OsrResource, { namespace: BENCH_NAMESPACE }, (r) =>
    names.has(r.metadata?.name ?? '') &&
    (r as Osr).status?.history?.some((h) => h.type === 'HardReboot' && h.acceptedTime)
      ? r.metadata?.name
      : undefined,
  );
  try {
    await created.start();
    await accepted.start();
    // The window starts here: every counter is read (or emptied) now.
    const apf0 = await dispatchedByFlowSchema(world.capi.cp);
    world.keystone.take();
    world.nova.take();
    for (const w of world.workloads) w.proxy.take();
    const at = Math.ceil((Date.now() + 1_000) / 1000) * 1000; // the API keeps whole seconds
    await sleep(at - Date.now());
    await forEachLimited(world.workers, 16, (w) =>
      postReady(world.workloads[w.cluster]!.admin, w.name, 'False', at),
    );
    const deadline = at + o.timeoutSeconds * 1000;
    log(
      `${n} Nodes Ready=False at ${new Date(at).toISOString()} in ${world.workloads.length} workload clusters`,
    );
    const giveUp = deadline + 300_000;
    while (Date.now() < giveUp && accepted.seen.size < n) {
      if (!ctl.running) throw new Error(`capo controller exited:\n${ctl.logTail()}`);
      await sleep(250);
    }
    const end = Date.now();
    const apf1 = await dispatchedByFlowSchema(world.capi.cp);
    const keystone = world.keystone.take();
    const nova = world.nova.take();
    const wl = world.workloads.map((w) => w.proxy.take());
    const mem = { capo: rss.capo.stop(), capi: rss.capi.stop() };
    const apf = (p: 'noderepair' | 'capi') =>
      (apf1.get(flowSchemaOf(p)) ?? 0) - (apf0.get(flowSchemaOf(p)) ?? 0);
    const requests: CapoRequests = {
      keystoneTokens: keystone.get(TOKENS_KEY) ?? 0,
      keystone: total(keystone),
      nova: total(nova),
      managementCapo: apf('noderepair'),
      managementCapi: apf('capi'),
      workloadCapo: wl.reduce((s, m) => s + total(m, (k) => k === CAPO_PARTY), 0),
      workloadCapi: wl.reduce((s, m) => s + total(m, (k) => k !== CAPO_PARTY), 0),
    };
    // Nova's record, read directly (not through the proxy, so not counted).
    let rebooted = 0;
    let twice = 0;
    await forEachLimited(world.workers, 4, async (w) => {
      const k = rebootsSince(await tb.novaActions(w.serverId), at);
      if (k >= 1) rebooted++;
      if (k > 1) twice++;
    });
    const mhc = [...created.seen.values()].map((t) => t - deadline);
    const acc = [...accepted.seen].flatMap(([k, t]) => {
      const c = created.seen.get(k);
      return c === undefined ? [] : [t - c];
    });
    const result: CapoResult = {
      remediations: n,
      clusters: world.workloads.length,
      timeoutSeconds: o.timeoutSeconds,
      created: created.seen.size,
      accepted: accepted.seen.size,
      mhcMs: summarize(mhc),
      acceptMs: summarize(acc),
      nova: { servers: n, rebooted, rebootedTwice: twice },
      windowSeconds: Math.round((end - at) / 100) / 10,
      requests,
      perRemediation: perRemediation(requests, n),
      novaByPath: Object.fromEntries([...nova].sort((a, b) => b[1] - a[1])),
      rss: mem,
    };
    log(`capo ${n}x${world.workloads.length}: ${JSON.stringify(result)}`);
    return result;
  } finally {
    rss.capo.stop();
    rss.capi.stop();
    await created.stop();
    await accepted.stop();
    await ctl.stop();
  }
}
