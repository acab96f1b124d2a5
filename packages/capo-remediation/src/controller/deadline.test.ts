// A step's timeout escalates only on fresh evidence from the node (it reported after the action
// and is still not Ready, or it rebooted) or Nova's view asked after the deadline. A node that
// has been silent since the action while Nova cannot be asked is a hold, never an escalation.
import { describe, expect, it } from 'vitest';
import type { Attempt, RemediationSpec, RemediationStatus } from '../api/index.js';
import { decideLadder, type LadderInput } from './ladder.js';
import { readNode, type NodeView } from './node-view.js';

const T0 = Date.parse('2026-12-02T12:00:00.000Z');
const ACCEPTED = T0 + 1000;
const iso = (ms: number) => new Date(ms).toISOString();

const spec: RemediationSpec = {
  steps: [
    { type: 'HardReboot', timeoutSeconds: 300, retries: 1 },
    { type: 'Rebuild', timeoutSeconds: 600, retries: 0, imageRef: 'img-1' },
  ],
  drain: { enabled: true, timeoutSeconds: 300, outOfServiceTaint: true },
  minHealthySeconds: 30,
};

/** A node that last reported before the action: Ready=Unknown, heartbeat 10 min old. */
const silent = (over: Partial<NodeView> = {}): NodeView => ({
  name: 'n1',
  ready: 'Unknown',
  readySinceMs: T0 - 600_000,
  heartbeatMs: T0 - 600_000,
  bootID: 'boot-1',
  unschedulable: true,
  providerID: 'openstack:///x',
  ...over,
});

const attempt = (over: Partial<Attempt> = {}): Attempt => ({
  step: 0,
  type: 'HardReboot',
  attempt: 1,
  startTime: iso(T0),
  acceptedTime: iso(ACCEPTED),
  result: 'InProgress',
  message: 'HardReboot of server x; Nova accepted reboot HARD of server x',
  ...over,
});

const waiting = (a: Partial<Attempt> = {}): RemediationStatus => ({
  phase: 'Waiting',
  bootID: 'boot-1',
  history: [attempt(a)],
});

/** 1 s past the HardReboot's 300 s deadline. */
const PAST = ACCEPTED + 301_000;

const at = (over: Partial<LadderInput> = {}, a: Partial<Attempt> = {}): LadderInput => ({
  uid: 'uid-1',
  spec,
  status: waiting(a),
  node: silent(),
  recoveredSinceMs: undefined,
  now: PAST,
  ...over,
});

const BASE = 'node n1 not Ready 300s after HardReboot (Ready=Unknown)';

describe('at the deadline: the node reported after the action -> escalate as before', () => {
  it('its Ready heartbeat is newer than the action (and it is not Ready)', () => {
    const n = silent({ ready: 'False', heartbeatMs: ACCEPTED + 200_000 });
    expect(decideLadder(at({ node: n }))).toMatchObject({
      kind: 'Act',
      at: { step: 0, attempt: 2 },
      ended: {
        result: 'TimedOut',
        message: `node n1 not Ready 300s after HardReboot (Ready=False); it reported since (Ready heartbeat ${iso(ACCEPTED + 200_000)})`,
      },
    });
  });

  it('its Lease was renewed after the action (the Node status itself may be old)', () => {
    const renew = ACCEPTED + 290_000;
    expect(
      decideLadder(at({ evidence: { lease: { kind: 'Renewed', renewMs: renew } } })),
    ).toMatchObject({
      kind: 'Act',
      at: { step: 0, attempt: 2 },
      ended: {
        result: 'TimedOut',
        message: `${BASE}; it reported since (Lease renewed ${iso(renew)})`,
      },
    });
  });

  it('its bootID changed and it is not Ready', () => {
    expect(decideLadder(at({ node: silent({ bootID: 'boot-2' }) }))).toMatchObject({
      kind: 'Act',
      ended: { message: `${BASE}; it rebooted since (bootID boot-1 -> boot-2)` },
    });
  });

  it('the last attempt of the last step gives up on the same evidence', () => {
    const n = silent({ ready: 'False', heartbeatMs: ACCEPTED + 5_000 });
    const d = decideLadder(
      at({ node: n, now: ACCEPTED + 601_000 }, { step: 1, type: 'Rebuild', attempt: 1 }),
    );
    expect(d).toMatchObject({ kind: 'GiveUp', ended: { result: 'TimedOut' } });
  });
});

describe('at the deadline: the node has been silent since the action', () => {
  it('a heartbeat or Lease from before the action is not evidence: read the Lease, then ask Nova', () => {
    expect(decideLadder(at())).toEqual({ kind: 'Ask', what: 'Lease' });
    // Exactly at the acceptance is not after it.
    expect(decideLadder(at({ node: silent({ heartbeatMs: ACCEPTED }) }))).toEqual({
      kind: 'Ask',
      what: 'Lease',
    });
    expect(
      decideLadder(at({ evidence: { lease: { kind: 'Renewed', renewMs: ACCEPTED - 1 } } })),
    ).toEqual({ kind: 'Ask', what: 'Server' });
    expect(decideLadder(at({ evidence: { lease: { kind: 'None', why: 'no Lease' } } }))).toEqual({
      kind: 'Ask',
      what: 'Server',
    });
    // No Node at all (gone, or never registered again) is no report either.
    expect(
      decideLadder(at({ node: undefined, evidence: { lease: { kind: 'None', why: 'none' } } })),
    ).toEqual({ kind: 'Ask', what: 'Server' });
  });

  it('Nova says the server runs: escalate (the machine runs and its node does not report)', () => {
    const d = decideLadder(
      at({ evidence: { lease: { kind: 'None', why: 'none' }, server: { kind: 'On' } } }),
    );
    expect(d).toMatchObject({
      kind: 'Act',
      at: { step: 0, attempt: 2 },
      ended: {
        result: 'TimedOut',
        message: `${BASE}; it has not reported since and Nova reports its server running`,
      },
    });
  });

  it('Nova says SHUTOFF without a request (a crash) or the server gone: escalate, with Nova’s words', () => {
    const off = decideLadder(
      at({
        evidence: {
          lease: { kind: 'None', why: 'none' },
          server: { kind: 'Off', byRequest: false, evidence: 'Nova: server x is SHUTOFF' },
        },
      }),
    );
    expect(off).toMatchObject({
      kind: 'Act',
      ended: { message: `${BASE}; it has not reported since and Nova: server x is SHUTOFF` },
    });
    const gone = decideLadder(
      at({
        evidence: {
          lease: { kind: 'None', why: 'none' },
          server: { kind: 'Gone', evidence: 'Nova: server x deleted' },
        },
      }),
    );
    expect(gone).toMatchObject({ kind: 'Act', at: { step: 0, attempt: 2 } });
  });

  it('Nova says someone stopped it: the StoppedByRequest rule (never powered on), no escalation', () => {
    const d = decideLadder(
      at({
        evidence: {
          lease: { kind: 'None', why: 'none' },
          server: { kind: 'Off', byRequest: true, evidence: 'stop req-1 by user op' },
        },
      }),
    );
    expect(d).toEqual({ kind: 'ServerStopped', evidence: 'stop req-1 by user op' });
  });

  it('Nova cannot be asked: hold, saying why; no attempt ends', () => {
    const d = decideLadder(
      at({
        evidence: {
          lease: { kind: 'None', why: 'none' },
          server: { kind: 'Unavailable', reason: 'HTTP 503 from compute' },
        },
      }),
    );
    expect(d).toEqual({
      kind: 'Hold',
      cause: 'CloudUnavailable',
      message: `${BASE}, the node has not reported since and Nova cannot be asked: waiting, no attempt used`,
      detail: 'HTTP 503 from compute',
    });
    // The same on the last attempt of the last step: no hand-back to Cluster API.
    const last = decideLadder(
      at(
        {
          now: ACCEPTED + 601_000,
          evidence: {
            lease: { kind: 'None', why: 'none' },
            server: { kind: 'Unavailable', reason: 'timeout' },
          },
        },
        { step: 1, type: 'Rebuild' },
      ),
    );
    expect(last).toMatchObject({ kind: 'Hold', cause: 'CloudUnavailable' });
  });

  it('the workload cluster cannot be read (the Lease): hold, never escalate, Nova not asked', () => {
    const d = decideLadder(
      at({
        evidence: {
          lease: { kind: 'Unreadable', reason: 'connect ECONNREFUSED' },
          server: { kind: 'On' },
        },
      }),
    );
    expect(d).toEqual({
      kind: 'Hold',
      cause: 'WorkloadUnreadable',
      message: `${BASE}, and the node's Lease cannot be read from its cluster: waiting, no attempt used`,
      detail: 'connect ECONNREFUSED',
    });
  });

  it('a silent node still waits inside the timeout, and a node back still succeeds: nothing asked', () => {
    expect(decideLadder(at({ now: ACCEPTED + 100_000 }))).toMatchObject({ kind: 'Wait' });
    const back = silent({ ready: 'True', bootID: 'boot-2' });
    expect(decideLadder(at({ node: back }))).toEqual({ kind: 'Succeed' });
  });
});

describe('readNode', () => {
  it('reads the Ready condition’s lastHeartbeatTime (when the kubelet last posted it)', () => {
    const v = readNode({
      metadata: { name: 'n1' },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'Unknown',
            lastTransitionTime: iso(T0 + 40_000) as never,
            lastHeartbeatTime: iso(T0) as never,
          },
        ],
      },
    });
    expect(v).toMatchObject({ ready: 'Unknown', readySinceMs: T0 + 40_000, heartbeatMs: T0 });
    expect(readNode({ metadata: { name: 'n2' } }).heartbeatMs).toBeUndefined();
  });
});
