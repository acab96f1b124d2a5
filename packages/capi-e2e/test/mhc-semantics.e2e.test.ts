import {
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import {
  decodeMachineHealthCheck,
  evaluateMachineHealthCheck,
  evaluateTarget,
  machineMarkedUnhealthyEvent,
  type MhcCluster,
  type MhcMachine,
  type MhcPolicy,
  type MhcTarget,
  type TargetEvaluation,
} from '@noderepair/core/mhc';
import { waitFor } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startCapiEnvironment, type CapiEnvironment } from '../src/index.js';
import { ConformanceRecorder, toSnapshot } from './support/conformance.js';
import { aggregateRole, GROUP, testRemediationCRDs, VERSION } from './support/test-remediation.js';

// issue 28: @noderepair/core's MachineHealthCheck semantics against the REAL Cluster API
// manager v1.13.6. (1) Admission: MHCs written in v1beta1 go through Cluster API's conversion
// and webhook; what it accepts, refuses and stores is compared with decodeMachineHealthCheck.
// (2) Machine conditions: an MHC written in v1beta1 with unhealthyMachineConditions leads to
// the same remediation as its v1beta2 form, and the HealthCheckSucceeded condition the real
// MHC writes (reason, message, v1beta1 condition) is exactly what evaluateTarget returns.
// (3) Several failures at once (machine condition + node), with the short-circuit: the real
// texts (HealthCheckSucceeded, RemediationAllowed) and counts are what mhc/ computes.

const CAPI = 'cluster.x-k8s.io';
// A condition a component outside Cluster API sets on the Machine (as readiness gates do).
const APP = 'test.noderepair.dev/AppHealthy';
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

type Cond = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  severity?: string;
  lastTransitionTime?: string;
};
interface Obj {
  apiVersion?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }>;
  };
  spec?: Record<string, unknown>;
  status?: {
    conditions?: Cond[];
    deprecated?: { v1beta1?: { conditions?: Cond[] } };
    expectedMachines?: number;
    currentHealthy?: number;
    nodeRef?: { name: string };
  };
}
const cond = (o: Obj, type: string) => o.status?.conditions?.find((c) => c.type === type);
const v1beta1Cond = (o: Obj, type: string) =>
  o.status?.deprecated?.v1beta1?.conditions?.find((c) => c.type === type);
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

function decode(obj: unknown): MhcPolicy {
  const p = decodeMachineHealthCheck(obj);
  if (p._tag === 'Left') throw new Error(`our decoder rejected ${JSON.stringify(obj)}: ${p.left}`);
  return p.right;
}

describe('MachineHealthCheck semantics against the real Cluster API manager (v1.13.6 on envtest)', () => {
  let env: CapiEnvironment;
  let custom: CustomObjectsApi;
  let objects: KubernetesObjectApi;
  let failed = false;
  const markFailed = () =>
    onTestFailed(() => {
      failed = true;
    });

  const get = (plural: string, name: string, version = 'v1beta2') =>
    custom.getNamespacedCustomObject({
      group: CAPI,
      version,
      namespace: env.namespace,
      plural,
      name,
    }) as Promise<Obj>;
  const remediations = async (): Promise<Obj[]> =>
    (
      (await custom.listNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: env.namespace,
        plural: 'testremediations',
      })) as { items: Obj[] }
    ).items;
  const deleteMhc = async (name: string) => {
    await custom.deleteNamespacedCustomObject({
      group: CAPI,
      version: 'v1beta2',
      namespace: env.namespace,
      plural: 'machinehealthchecks',
      name,
    });
    await waitFor(
      `MachineHealthCheck ${name} gone`,
      async () =>
        (await get('machinehealthchecks', name).catch(() => undefined)) ? undefined : true,
      30_000,
      500,
    );
  };

  /** Sets (or replaces) the APP condition in the v1beta2 Machine's status, leaving Cluster API's own conditions alone. */
  const setApp = async (machine: string, status: 'True' | 'False', reason: string) => {
    await waitFor(
      `${APP}=${status} on ${machine}`,
      async () => {
        const m = await get('machines', machine);
        const conds = m.status?.conditions ?? [];
        const at = conds.findIndex((c) => c.type === APP);
        const value = {
          type: APP,
          status,
          reason,
          message: '',
          lastTransitionTime: rfc3339(new Date()),
        };
        const ops =
          at >= 0
            ? [
                { op: 'test', path: `/status/conditions/${at}/type`, value: APP },
                { op: 'replace', path: `/status/conditions/${at}`, value },
              ]
            : m.status?.conditions
              ? [{ op: 'add', path: '/status/conditions/-', value }]
              : [{ op: 'add', path: '/status/conditions', value: [value] }];
        await custom.patchNamespacedCustomObjectStatus(
          {
            group: CAPI,
            version: 'v1beta2',
            namespace: env.namespace,
            plural: 'machines',
            name: machine,
            body: ops,
          },
          jsonPatch,
        );
        return true;
      },
      15_000,
      200,
    );
  };

  const clusterNow = async (): Promise<MhcCluster> => ({
    conditions: ((await get('clusters', env.clusterName)).status?.conditions ??
      []) as MhcCluster['conditions'],
  });
  const targetOf = async (m: MhcMachine): Promise<MhcTarget> => {
    const nodeName = m.status?.nodeRef?.name;
    const node = nodeName
      ? await env.kubeConfig
          .makeApiClient(CoreV1Api)
          .readNode({ name: nodeName })
          .catch(() => undefined)
      : undefined;
    return {
      machine: m,
      node: node ? toSnapshot(node) : undefined,
      nodeMissing: Boolean(nodeName) && !node,
    };
  };
  /** The MHC's targets as the API holds them right now (v1beta2 Machines and their Nodes). */
  const targetsNow = async (): Promise<MhcTarget[]> => {
    const list = (await custom.listNamespacedCustomObject({
      group: CAPI,
      version: 'v1beta2',
      namespace: env.namespace,
      plural: 'machines',
      labelSelector: `cluster.x-k8s.io/deployment-name=${env.machineDeploymentName}`,
    })) as { items: MhcMachine[] };
    return Promise.all(list.items.map(targetOf));
  };
  /** evaluateTarget on what the API holds right now: the MHC as written, the v1beta2 Machine, its Node, the Cluster. */
  const ours = async (
    mhcName: string,
    writtenAs: 'v1beta1' | 'v1beta2',
    machine: string,
  ): Promise<TargetEvaluation> => {
    const policy = decode(await get('machinehealthchecks', mhcName, writtenAs));
    const target = await targetOf((await get('machines', machine)) as unknown as MhcMachine);
    return evaluateTarget(target, policy, await clusterNow(), Date.now());
  };

  beforeAll(async () => {
    env = await startCapiEnvironment({
      replicas: 3,
      extraCRDs: testRemediationCRDs(),
      extraObjects: [aggregateRole],
    });
    custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    await objects.create({
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TestRemediationTemplate',
      metadata: { name: 'reboot', namespace: env.namespace },
      spec: { template: { spec: { strategy: 'Reboot', timeoutSeconds: 300 } } },
    } as KubernetesObject);
  });

  afterAll(async () => {
    if (!env) return;
    const kept = await env.stop({ keepLogs: failed });
    if (kept) process.stderr.write(`capi-e2e: logs of the failed run kept in ${kept}\n`);
  });

  it('admission: what Cluster API accepts, refuses and stores for v1beta1 MHCs is what decodeMachineHealthCheck gives', async () => {
    markFailed();
    // Selecting no Machine: these MHCs must never act.
    const none = { matchLabels: { 'test.noderepair.dev/selects': 'nothing' } };
    const node = [{ type: 'Ready', status: 'Unknown', timeout: '300s' }];
    type Case = {
      what: string;
      spec: Record<string, unknown>;
      capi: 'accepted' | 'refused';
      ours?: 'accepted' | 'refused';
      capiSays?: RegExp;
      stored?: Record<string, unknown>;
    };
    const cases: Case[] = [
      {
        what: 'maxUnhealthy "5"',
        spec: { maxUnhealthy: '5' },
        capi: 'refused',
        capiSays:
          /must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage/,
      },
      {
        what: 'maxUnhealthy "150%"',
        spec: { maxUnhealthy: '150%' },
        capi: 'accepted',
        stored: { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '150%' } } },
      },
      {
        what: 'maxUnhealthy -1',
        spec: { maxUnhealthy: -1 },
        capi: 'accepted',
        stored: { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: -1 } } },
      },
      {
        what: 'timeouts "5.9s" / "1m30.999s" / nodeStartupTimeout "30.9s"',
        spec: {
          unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '5.9s' }],
          unhealthyMachineConditions: [{ type: APP, status: 'False', timeout: '1m30.999s' }],
          nodeStartupTimeout: '30.9s',
        },
        capi: 'accepted',
        stored: {
          checks: {
            nodeStartupTimeoutSeconds: 30,
            unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 5 }],
            unhealthyMachineConditions: [{ type: APP, status: 'False', timeoutSeconds: 90 }],
          },
        },
      },
      {
        what: 'nodeStartupTimeout "500ms" (truncates to 0 = disabled)',
        spec: { nodeStartupTimeout: '500ms' },
        capi: 'accepted',
        stored: { checks: { nodeStartupTimeoutSeconds: 0 } },
      },
      {
        what: 'nodeStartupTimeout "29.9s"',
        spec: { nodeStartupTimeout: '29.9s' },
        capi: 'refused',
        capiSays: /nodeStartupTimeoutSeconds: Invalid value: 29: must be at least 30s/,
      },
      {
        what: 'empty selector',
        spec: { selector: {} },
        capi: 'refused',
        capiSays: /selector must not be empty/,
      },
      {
        what: 'selector naming another cluster',
        spec: { selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'other' } } },
        capi: 'refused',
        capiSays: /cannot specify a cluster selector other than the one specified by ClusterName/,
      },
      {
        what: 'machine-condition check on Ready',
        spec: { unhealthyMachineConditions: [{ type: 'Ready', status: 'False', timeout: '1m' }] },
        capi: 'refused',
        capiSays:
          /type must not be one of: Ready, Available, HealthCheckSucceeded, OwnerRemediated, ExternallyRemediated/,
      },
      {
        what: 'timeout "300" (no unit: not a Go duration, the conversion fails)',
        spec: { unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '300' }] },
        capi: 'refused',
      },
      // Documented differences (docs/mhc.md): accepted by Cluster API, refused by us.
      {
        what: 'unhealthyRange "[5-3]"',
        spec: { unhealthyRange: '[5-3]' },
        capi: 'accepted',
        ours: 'refused',
        stored: { remediation: { triggerIf: { unhealthyInRange: '[5-3]' } } },
      },
      {
        what: 'machine-condition timeout "-5s"',
        spec: { unhealthyMachineConditions: [{ type: APP, status: 'False', timeout: '-5s' }] },
        capi: 'accepted',
        ours: 'refused',
        stored: {
          checks: {
            unhealthyMachineConditions: [{ type: APP, status: 'False', timeoutSeconds: -5 }],
          },
        },
      },
    ];
    const seen: string[] = [];
    for (const [i, c] of cases.entries()) {
      const name = `edge-${i}`;
      const obj = {
        apiVersion: `${CAPI}/v1beta1`,
        kind: 'MachineHealthCheck',
        metadata: { name, namespace: env.namespace },
        spec: {
          clusterName: env.clusterName,
          selector: none,
          unhealthyConditions: node,
          ...c.spec,
        },
      };
      let refusal: string | undefined;
      try {
        await objects.create(obj as KubernetesObject);
      } catch (err) {
        const e = err as { code?: number; body?: unknown; message?: string };
        refusal = `${e.code ?? '?'} ${typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? e.message)}`;
      }
      const mine = decodeMachineHealthCheck(obj);
      seen.push(
        `${c.what}: Cluster API ${refusal ? `refused (${refusal.slice(0, 160)})` : 'accepted'}; ours ${mine._tag === 'Right' ? 'accepted' : `refused (${mine.left})`}`,
      );
      expect(refusal === undefined ? 'accepted' : 'refused', c.what).toBe(c.capi);
      expect(mine._tag === 'Right' ? 'accepted' : 'refused', c.what).toBe(c.ours ?? c.capi);
      if (c.capiSays) expect(refusal, c.what).toMatch(c.capiSays);
      if (refusal !== undefined) continue;
      const stored = await get('machinehealthchecks', name);
      expect(stored.spec, c.what).toMatchObject(c.stored ?? {});
      // Our reading of the v1beta1 object equals our reading of what Cluster API stored.
      if (mine._tag === 'Right')
        expect({ ...mine.right, sourceVersion: '-' }, c.what).toEqual({
          ...decode(stored),
          sourceVersion: '-',
        });
      await deleteMhc(name);
    }
    process.stderr.write(`capi-e2e admission:\n  ${seen.join('\n  ')}\n`);
  });

  it('an MHC written in v1beta1 with unhealthyMachineConditions leads to the same remediation as its v1beta2 form, with the texts evaluateTarget gives', async () => {
    markFailed();
    const [victim] = (await env.waitForHealthyMachines(3)).map((m) => m.name).sort();
    if (!victim) throw new Error('no worker Machine');
    const selector = {
      matchLabels: { 'cluster.x-k8s.io/deployment-name': env.machineDeploymentName },
    };
    const templateRef = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TestRemediationTemplate',
      name: 'reboot',
    };
    const forms = {
      v1beta1: {
        apiVersion: `${CAPI}/v1beta1`,
        kind: 'MachineHealthCheck',
        metadata: { name: 'app-v1beta1', namespace: env.namespace },
        spec: {
          clusterName: env.clusterName,
          selector,
          unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '5s' }],
          // 5.9 s: stored as 5 s by the conversion, and reported as "5s".
          unhealthyMachineConditions: [{ type: APP, status: 'False', timeout: '5.9s' }],
          maxUnhealthy: 1,
          remediationTemplate: templateRef,
        },
      },
      v1beta2: {
        apiVersion: `${CAPI}/v1beta2`,
        kind: 'MachineHealthCheck',
        metadata: { name: 'app-v1beta2', namespace: env.namespace },
        spec: {
          clusterName: env.clusterName,
          selector,
          checks: {
            unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 5 }],
            unhealthyMachineConditions: [{ type: APP, status: 'False', timeoutSeconds: 5 }],
          },
          remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 1 }, templateRef },
        },
      },
    } as const;
    sameExceptVersion(decode(forms.v1beta1), decode(forms.v1beta2));

    const runs: Record<string, { remediation: Obj; machine: Obj; ours: TargetEvaluation }> = {};
    for (const version of ['v1beta1', 'v1beta2'] as const) {
      const form = forms[version];
      const name = form.metadata.name;
      await setApp(victim, 'True', 'AppUp');
      await objects.create(form as unknown as KubernetesObject);
      const v1beta2 = await get('machinehealthchecks', name);
      expect(
        (v1beta2.spec?.checks as { unhealthyMachineConditions?: unknown })
          .unhealthyMachineConditions,
      ).toEqual([{ type: APP, status: 'False', timeoutSeconds: 5 }]);
      await waitFor(
        `${name} to see 3 healthy`,
        async () => {
          const o = await get('machinehealthchecks', name);
          return o.status?.expectedMachines === 3 &&
            o.status.currentHealthy === 3 &&
            cond(o, 'RemediationAllowed')?.status === 'True'
            ? o
            : undefined;
        },
        120_000,
        500,
      );
      expect(await remediations()).toEqual([]);

      await setApp(victim, 'False', 'AppDown');
      const remediation = await waitFor(
        `TestRemediation ${victim} (${version})`,
        async () => (await remediations()).find((r) => r.metadata.name === victim),
        120_000,
        500,
      );
      const machine = await waitFor(
        `HealthCheckSucceeded=False/UnhealthyMachine on ${victim}`,
        async () => {
          const m = await get('machines', victim);
          return cond(m, 'HealthCheckSucceeded')?.reason === 'UnhealthyMachine' &&
            v1beta1Cond(m, 'HealthCheckSucceeded')?.reason === 'UnhealthyMachine'
            ? m
            : undefined;
        },
        60_000,
        500,
      );
      const mine = await ours(name, version, victim);
      runs[version] = { remediation, machine, ours: mine };
      expect((await remediations()).map((r) => r.metadata.name)).toEqual([victim]);
      const real = cond(machine, 'HealthCheckSucceeded');
      const realV1beta1 = v1beta1Cond(machine, 'HealthCheckSucceeded');
      expect(real?.message).toBe(
        `Health check failed:\n  * Condition ${APP} on Machine is reporting status False with reason AppDown for more than 5s`,
      );
      expect(mine).toMatchObject({
        needsRemediation: true,
        reason: real?.reason,
        message: real?.message,
      });
      expect(mine.v1beta1Condition).toEqual({
        reason: realV1beta1?.reason,
        severity: realV1beta1?.severity,
        message: realV1beta1?.message,
      });
      expect(cond(machine, 'ExternallyRemediated')).toMatchObject({
        status: 'False',
        reason: 'WaitingForRemediation',
      });
      const marked = machineMarkedUnhealthyEvent(
        { name: victim, namespace: env.namespace },
        { name, namespace: env.namespace },
      );
      await waitFor(
        `event "${marked.message}"`,
        async () => {
          const events = await env.kubeConfig
            .makeApiClient(CoreV1Api)
            .listNamespacedEvent({
              namespace: env.namespace,
              fieldSelector: `involvedObject.name=${victim}`,
            });
          return events.items.some(
            (e) =>
              e.reason === marked.reason && e.type === marked.type && e.message === marked.message,
          )
            ? true
            : undefined;
        },
        30_000,
        500,
      );

      // Recovery: the MHC deletes the remediation object and marks the Machine healthy again.
      await setApp(victim, 'True', 'AppUp');
      await waitFor(
        `TestRemediation ${victim} deleted (${version})`,
        async () => ((await remediations()).length === 0 ? true : undefined),
        120_000,
        500,
      );
      await waitFor(
        `HealthCheckSucceeded=True on ${victim}`,
        async () =>
          (cond(await get('machines', victim), 'HealthCheckSucceeded')?.status ?? '') === 'True'
            ? true
            : undefined,
        120_000,
        500,
      );
      await deleteMhc(name);
    }

    // The same remediation either way: same object for the same Machine, same verdict texts.
    const a = runs.v1beta1;
    const b = runs.v1beta2;
    if (!a || !b) throw new Error('a run is missing');
    const essentials = (r: Obj) => ({
      name: r.metadata.name,
      spec: r.spec,
      owners: r.metadata.ownerReferences?.map((o) => ({
        apiVersion: o.apiVersion,
        kind: o.kind,
        name: o.name,
        uid: o.uid,
        controller: o.controller ?? false,
      })),
      labels: r.metadata.labels,
      annotations: r.metadata.annotations,
    });
    expect(essentials(a.remediation)).toEqual(essentials(b.remediation));
    expect(essentials(a.remediation).owners).toEqual([
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Machine',
        name: victim,
        uid: a.machine.metadata.uid,
        controller: false,
      },
    ]);
    const verdict = (m: Obj) => ({
      v1beta2: cond(m, 'HealthCheckSucceeded'),
      v1beta1: v1beta1Cond(m, 'HealthCheckSucceeded'),
    });
    const strip = (c: Cond | undefined) =>
      c && {
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
        severity: c.severity,
      };
    expect({
      v1beta2: strip(verdict(a.machine).v1beta2),
      v1beta1: strip(verdict(a.machine).v1beta1),
    }).toEqual({
      v1beta2: strip(verdict(b.machine).v1beta2),
      v1beta1: strip(verdict(b.machine).v1beta1),
    });
    expect(a.ours).toEqual(b.ours);
    process.stderr.write(
      `capi-e2e v1beta1 vs v1beta2: remediation ${JSON.stringify(essentials(a.remediation))}\n  condition ${JSON.stringify(strip(verdict(a.machine).v1beta2))}\n`,
    );
  });

  it('short-circuited: every failed check is reported, the machine condition first, and the MHC texts are ours', async () => {
    markFailed();
    // With its remediation request in place Cluster API stops a pass before it rewrites the
    // Machine's conditions, so a later failure never reaches the message. A blocked MHC
    // (unhealthyLessThanOrEqualTo: 0) creates no request and rewrites them on every pass.
    const [victim] = (await env.waitForHealthyMachines(3)).map((m) => m.name).sort();
    if (!victim) throw new Error('no worker Machine');
    const name = 'app-blocked';
    await setApp(victim, 'True', 'AppUp');
    await objects.create({
      apiVersion: `${CAPI}/v1beta2`,
      kind: 'MachineHealthCheck',
      metadata: { name, namespace: env.namespace },
      spec: {
        clusterName: env.clusterName,
        selector: {
          matchLabels: { 'cluster.x-k8s.io/deployment-name': env.machineDeploymentName },
        },
        checks: {
          unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 5 }],
          unhealthyMachineConditions: [{ type: APP, status: 'False', timeoutSeconds: 5 }],
        },
        remediation: {
          triggerIf: { unhealthyLessThanOrEqualTo: 0 },
          templateRef: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'TestRemediationTemplate',
            name: 'reboot',
          },
        },
      },
    } as KubernetesObject);
    await waitFor(
      `${name} to see 3 healthy`,
      async () => {
        const o = await get('machinehealthchecks', name);
        return o.status?.currentHealthy === 3 && cond(o, 'RemediationAllowed')?.status === 'True'
          ? true
          : undefined;
      },
      120_000,
      500,
    );
    await setApp(victim, 'False', 'AppDown');
    env.fakeKubelets.get(victim)?.stopHeartbeats();
    try {
      // A blocked pass asks for no requeue, so the node timeout is seen at the next watch
      // event: a Machine annotation change (one of the MHC's triggers) every 5 s provides one.
      let pokes = 0;
      let lastPoke = 0;
      const both = await waitFor(
        `HealthCheckSucceeded on ${victim} to report the machine and the node condition`,
        async () => {
          const m = await get('machines', victim);
          if ((cond(m, 'HealthCheckSucceeded')?.message ?? '').split('\n').length === 3) return m;
          if (Date.now() - lastPoke > 5_000) {
            lastPoke = Date.now();
            await custom.patchNamespacedCustomObject(
              {
                group: CAPI,
                version: 'v1beta2',
                namespace: env.namespace,
                plural: 'machines',
                name: victim,
                body: {
                  metadata: { annotations: { 'test.noderepair.dev/poke': String(++pokes) } },
                },
              },
              mergePatch,
            );
          }
          return undefined;
        },
        120_000,
        500,
      );
      const mine = await ours(name, 'v1beta2', victim);
      const real = cond(both, 'HealthCheckSucceeded');
      const realV1beta1 = v1beta1Cond(both, 'HealthCheckSucceeded');
      process.stderr.write(
        `capi-e2e machine + node: real ${JSON.stringify(real)}\n  ours ${JSON.stringify(mine)}\n`,
      );
      expect(real?.message).toBe(
        `Health check failed:\n  * Condition ${APP} on Machine is reporting status False with reason AppDown for more than 5s\n` +
          '  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5s',
      );
      expect(mine).toMatchObject({
        needsRemediation: true,
        reason: real?.reason,
        message: real?.message,
      });
      expect(mine.v1beta1Condition).toEqual({
        reason: realV1beta1?.reason,
        severity: realV1beta1?.severity,
        message: realV1beta1?.message,
      });

      // The MHC's own verdict and texts, from a settled snapshot.
      const recorder = new ConformanceRecorder(env.kubeConfig, env.namespace, env.clusterName);
      const rec = await recorder.snapshot('blocked: machine + node failed', name, 'v1beta2');
      expect(rec.differences).toEqual([]);
      expect(rec.real).toMatchObject({
        expectedMachines: 3,
        currentHealthy: 2,
        remediationAllowed: false,
        unhealthy: [victim],
      });
      const mhcNow = await get('machinehealthchecks', name);
      const e = evaluateMachineHealthCheck(
        await targetsNow(),
        decode(mhcNow),
        await clusterNow(),
        Date.now(),
      );
      expect(e.condition).toEqual({
        type: 'RemediationAllowed',
        status: 'False',
        reason: 'TooManyUnhealthy',
        message: cond(mhcNow, 'RemediationAllowed')?.message,
      });
      expect(e.condition.message).toBe(
        'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 1, maxUnhealthy: 0)',
      );
      expect(e.requeue).toBe(false);
      expect(await remediations()).toEqual([]);
    } finally {
      env.fakeKubelets.get(victim)?.resumeHeartbeats();
    }
    await setApp(victim, 'True', 'AppUp');
    await waitFor(
      `${name} back to 3 healthy`,
      async () => {
        const o = await get('machinehealthchecks', name);
        return o.status?.currentHealthy === 3 && cond(o, 'RemediationAllowed')?.status === 'True'
          ? true
          : undefined;
      },
      120_000,
      500,
    );
    await deleteMhc(name);
  });
});

function sameExceptVersion(a: MhcPolicy, b: MhcPolicy): void {
  expect({
    ...a,
    sourceVersion: '-',
    remediationTemplate: { ...a.remediationTemplate, namespace: undefined },
  }).toEqual({
    ...b,
    sourceVersion: '-',
    remediationTemplate: { ...b.remediationTemplate, namespace: undefined },
  });
}
