// The repair policy the demo runs with: the documented fields with minutes shortened to
// seconds so six failures play out in a couple of minutes. The machine running the demo may
// be slow and shared, so every timeout leaves several seconds of slack over what it waits for.
import { resolveRepairPolicy, type RepairPolicy } from '@noderepair/core';
import { ZONE_LABEL } from '../record/sample.js';

/** Seconds a Ready=False/Unknown condition must last before noderepair acts (real default 10m). */
export const UNHEALTHY_TIMEOUT_S = 8;
/** kube-controller-manager: no heartbeat this long -> Ready=Unknown (real default 50 s). */
export const NODE_MONITOR_GRACE_S = 12;
/** Lease renewal and status post interval of the fake kubelets (real: 10 s lease). */
export const HEARTBEAT_S = 3;

export const demoPolicyInput = {
  unhealthyConditions: [
    { type: 'Ready', status: 'False', timeout: `${UNHEALTHY_TIMEOUT_S}s` },
    { type: 'Ready', status: 'Unknown', timeout: `${UNHEALTHY_TIMEOUT_S}s` },
  ],
  nodeStartupTimeout: '60s',
  minHealthyPeriod: '4s',
  retryBackoff: '2s',
  ladder: [
    { action: 'SoftReboot', timeout: '20s', attempts: 1 },
    { action: 'HardReboot', timeout: '20s', attempts: 1 },
    // Replace is an explicit opt-in (the default ladder has none). After Nova accepted the
    // delete, noderepair asks again whether the server is gone every stormGuard.recheckInterval
    // (30 s below), so the step's timeout leaves room for one such look and some slack.
    { action: 'Replace', timeout: '75s', attempts: 1 },
  ],
  flap: { episodes: 3, window: '5m', escalateWithin: '5s' },
  stormGuard: {
    maxUnhealthy: '40%',
    minUnhealthyAllowed: 1,
    maxInFlight: 5,
    failureDomainLabel: ZONE_LABEL,
    maxUnhealthyPerDomain: '30%',
    // The real default: a held node is looked at again every 30 s (and at once when it changes),
    // so the storm's nodes are not re-judged in the second they recover one after another.
    recheckInterval: '30s',
  },
  drain: { enabled: true, timeout: '10s', outOfServiceAfter: '2s' },
};

export function demoPolicy(): RepairPolicy {
  const p = resolveRepairPolicy(demoPolicyInput);
  if (p._tag === 'Left') throw new Error(`demo policy: ${p.left}`);
  return p.right;
}
