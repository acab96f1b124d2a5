// The repair policy simulations run by default: the shipped example's shape (SoftReboot, then
// HardReboot twice; drain on; storm guard) with shorter timeouts, so two virtual hours see
// whole repairs, escalations and give-ups. Live, not dry-run: the provider is SimCloud.
export const simPolicyDoc = {
  dryRun: false,
  unhealthyConditions: [
    { type: 'Ready', status: 'False', timeout: '2m' },
    { type: 'Ready', status: 'Unknown', timeout: '2m' },
  ],
  minHealthyPeriod: '2m',
  retryBackoff: '1m',
  ladder: [
    { action: 'SoftReboot', timeout: '5m', attempts: 1 },
    { action: 'HardReboot', timeout: '5m', attempts: 2 },
  ],
  stormGuard: {
    maxUnhealthy: '50%',
    minUnhealthyAllowed: 1,
    maxInFlight: 2,
    failureDomainLabel: 'topology.kubernetes.io/zone',
    maxUnhealthyPerDomain: '80%',
    recheckInterval: '30s',
  },
  drain: { enabled: true, timeout: '5m', outOfServiceAfter: '2m' },
} as const;

/**
 * A ladder that starts with HardReboot (a site whose guests do not answer an ACPI reboot):
 * the drain ends and the power action goes out in the same reconcile, so a person's stop
 * DURING the drain is what decides whether the machine is powered on. `POLICY=hard-first`.
 */
export const hardRebootFirstPolicyDoc = {
  ...simPolicyDoc,
  ladder: [{ action: 'HardReboot', timeout: '5m', attempts: 2 }],
} as const;

/**
 * Per-condition rules (issue 46) with node-problem-detector on the nodes (World.npd): some
 * hung kubelets are reported as KernelDeadlock=True (reason DockerHung), whose rule waits 1m
 * (Ready's 2m) and has its own ladder, HardReboot only; a hang on another node climbs the
 * policy ladder (SoftReboot first). FrequentContainerdRestart is report only (never posted
 * here: it checks that a NoAction entry changes nothing). `POLICY=npd`.
 */
export const npdPolicyDoc = {
  ...simPolicyDoc,
  unhealthyConditions: [
    {
      type: 'KernelDeadlock',
      status: 'True',
      reason: 'DockerHung',
      timeout: '1m',
      ladder: [{ action: 'HardReboot', timeout: '5m', attempts: 2 }],
    },
    ...simPolicyDoc.unhealthyConditions,
    { type: 'FrequentContainerdRestart', status: 'True', timeout: '0s', action: 'NoAction' },
  ],
} as const;

/**
 * Replace (issue 41, harm rule 1 for Node deletion), as the standalone controller supports it
 * (docs/providers.md: a ladder opts in by ending in Replace; health/replace.ts): the policy
 * ladder climbs SoftReboot, HardReboot, then Replace; node-problem-detector's KernelDeadlock
 * (World.npd, on the even-numbered hung nodes) has a rule whose ladder is Replace alone, so
 * many repairs reach it. After an accepted Replace the controller deletes the Node only once
 * the provider reports the machine fenced (Nova's deletion done), with a uid precondition; the
 * node group's owner's new machine then registers a Node under the name (World). `POLICY=replace`.
 */
export const replacePolicyDoc = {
  ...simPolicyDoc,
  unhealthyConditions: [
    {
      type: 'KernelDeadlock',
      status: 'True',
      reason: 'DockerHung',
      timeout: '1m',
      ladder: [{ action: 'Replace', timeout: '5m', attempts: 1 }],
    },
    ...simPolicyDoc.unhealthyConditions,
  ],
  ladder: [
    { action: 'SoftReboot', timeout: '5m', attempts: 1 },
    { action: 'HardReboot', timeout: '5m', attempts: 1 },
    { action: 'Replace', timeout: '5m', attempts: 1 },
  ],
} as const;

/** The policies the CLI runs by name (POLICY=...). */
export const namedPolicyDocs: Record<string, unknown> = {
  default: simPolicyDoc,
  'hard-first': hardRebootFirstPolicyDoc,
  npd: npdPolicyDoc,
  replace: replacePolicyDoc,
};

/** The named policies whose rules read node-problem-detector's conditions (World.npd on). */
export const npdPolicies: ReadonlySet<string> = new Set(['npd', 'replace']);
