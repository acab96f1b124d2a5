// What each field of the repair policy means, keyed by its path in the policy codec
// (packages/core/src/health/policy.ts). Types and defaults are NOT written here: the
// generator reads them from the codec and from resolveRepairPolicy itself. A test fails when
// the codec has a field this table does not describe, or this table names a field the codec
// no longer has.
export const policyFieldMeanings: Readonly<Record<string, string>> = {
  dryRun:
    'Decide and report (Events, metrics, logs) but change nothing: cordon, drain and uncordon become `DryRun` Events, reboots go to the dry-run provider, state stays in memory.',
  unhealthyConditions:
    'Node conditions that make a node unhealthy once they have lasted their `timeout` (OR-ed), as in a MachineHealthCheck.',
  'unhealthyConditions[].type':
    'Condition type, e.g. `Ready` or a node-problem-detector condition such as `KernelDeadlock`.',
  'unhealthyConditions[].status': 'The status that counts as unhealthy.',
  'unhealthyConditions[].timeout':
    'Unhealthy once `lastTransitionTime + timeout < now` (strictly, as Cluster API does). For `Ready` `False`/`Unknown` the clock runs from the start of the NotReady episode: a flip between `Unknown` and `False` does not restart it.',
  'unhealthyConditions[].reason':
    "Only a condition with exactly this reason matches (e.g. node-problem-detector's `DockerHung` for `KernelDeadlock`); absent: any reason.",
  'unhealthyConditions[].messageContains':
    'Only a condition whose message contains this string matches (case-sensitive substring, not a regular expression: matching stays linear in messages that others write); absent: any message. An empty string is an error naming the field.',
  'unhealthyConditions[].ladder':
    "This rule's own escalation ladder (same steps and checks as `ladder`, errors named e.g. `unhealthyConditions[2].ladder[0].action`); absent: the policy's `ladder`. `Command` and `Webhook` steps are not supported here yet (they are configured once, in the top-level `ladder`); `noderepair run` refuses a rule ladder its provider cannot execute. Which rule wins when several match: the node is unhealthy once ANY matching entry's `timeout` is over, and among the entries past their timeout the first in list order wins (a `NoAction` entry only when no other entry, nor the flap rule, makes the node unhealthy). A repair keeps the ladder it started with (recorded in the repair state) whatever the node's conditions do next, and across a restart; escalation still needs fresh evidence. Flapping, the startup timeout, a stale heartbeat and a manual trigger use the policy's `ladder`.",
  'unhealthyConditions[].ladder[].action': 'As `ladder[].action`.',
  'unhealthyConditions[].ladder[].timeout': 'As `ladder[].timeout`.',
  'unhealthyConditions[].ladder[].attempts': 'As `ladder[].attempts`.',
  'unhealthyConditions[].ladder[].image': 'As `ladder[].image`.',
  'unhealthyConditions[].ladder[].command': 'As `ladder[].command`.',
  'unhealthyConditions[].ladder[].commandTimeout': 'As `ladder[].commandTimeout`.',
  'unhealthyConditions[].ladder[].env': 'As `ladder[].env`.',
  'unhealthyConditions[].ladder[].url': 'As `ladder[].url`.',
  'unhealthyConditions[].ladder[].requestTimeout': 'As `ladder[].requestTimeout`.',
  'unhealthyConditions[].action':
    "`NoAction`: report only. Past its `timeout` the node is reported unhealthy (phase `Unhealthy`, a Warning Event `UnhealthyReportOnly`, `noderepair status`) and no repair starts; the storm guard does not count it as unhealthy (report only changes nothing about other nodes' repairs). Not with `ladder`. A manual trigger still repairs the node (with the policy's `ladder`).",
  nodeStartupTimeout:
    'A node with no `Ready` condition this long after its creation is unhealthy. `0` disables; otherwise at least `30s` (as Cluster API requires).',
  staleHeartbeatTimeout:
    '`Ready=True` but neither the condition heartbeat nor the node Lease renewed for this long is unhealthy (`StaleHeartbeat`). `0` disables.',
  minHealthyPeriod:
    'After a repair action the node must stay `Ready` this long before the repair counts as successful (and the node is uncordoned).',
  retryBackoff:
    'After a failed provider call (e.g. the cloud API refused the reboot) wait this long before the next attempt, so an API outage does not race through the ladder.',
  ladder:
    'The escalation ladder, cheapest first. Within one repair the step never goes back down. The default has no `Replace`: replacement is an explicit opt-in (a ladder that ends in `Replace`), for sites where something recreates the capacity. `noderepair run` with no ladder in the policy uses the default steps the provider can execute.',
  'ladder[].action':
    "The repair. Each action appears at most once (repeat a step with `attempts`); `Replace` must be the last step (nothing can follow a replacement). `Command` and `Webhook` are site steps: the site's own automation (a program, an HTTP endpoint) repairs or replaces the machine.",
  'ladder[].timeout':
    'After the action completes, how long the node has to become `Ready` before the attempt counts as failed.',
  'ladder[].image':
    'The image to rebuild from: required for `Rebuild`, not allowed for other actions.',
  'ladder[].command':
    "`Command` steps only (and required there): the site's program and its arguments, run without a shell, stdin closed, with a scrubbed environment (`PATH`, `HOME`, `LANG`, `LC_*`, `TZ` of the controller's, the names in `env`, and `NODEREPAIR_NODE`, `NODEREPAIR_PROVIDER_ID`, `NODEREPAIR_ACTION`, `NODEREPAIR_ACTION_ID`, `NODEREPAIR_ISSUED_AT` and `NODEREPAIR_REPLAY`; never the controller's credentials or `KUBECONFIG`) (`NODEREPAIR_REPLAY` is `1` when the controller re-issues an attempt whose outcome it never recorded: the program must check its own records before acting again). Exit `0`: the job is taken and the node has the step's `timeout` to come back. Exit `75` (EX_TEMPFAIL): nothing was done, try later (waits, no attempt used). Any other status, a signal, the `commandTimeout` or a program that cannot be started: the attempt failed and the ladder goes on. The Event shows the status and at most the last 200 characters of stderr. A site step never fences: no out-of-service taint, no Node deletion follows it.",
  'ladder[].commandTimeout':
    '`Command` steps only: how long the program may run; then its process group gets SIGTERM, and SIGKILL 10 s later, and the attempt failed.',
  'ladder[].env':
    "`Command` steps only: names of the controller's environment variables passed through to the program (e.g. `[OS_CLOUD, HTTPS_PROXY]`), when the controller has them. Names only (letters, digits, `_`); without it the program gets none of the controller's variables but `PATH`, `HOME`, `LANG`, `LC_*` and `TZ`. The shipped image has no shell: see docs/site-steps.md.",
  'ladder[].url':
    '`Webhook` steps only (and required there): the `http://` or `https://` URL that gets a POST of JSON `{node, providerID, action, actionId, replay, issuedAt}` with the header `Idempotency-Key: <actionId>`. `user:password@` in the URL becomes Basic authorization; Events show only its origin and path. 2xx: the job is taken. 4xx (but 401, 403, 404, 408 and 429), 3xx: the attempt failed. 401, 403, 404 (credentials refused or expired, the route or receiver not there, a proxy): waits (no attempt used; the Event names the status and what to check) and sends again with the same key. 5xx, 408, 429, a network error or no answer within `requestTimeout`: waits (no attempt used) and sends again with `replay: true` and the SAME key: the receiver must deduplicate on `Idempotency-Key`. A site step never fences.',
  'ladder[].requestTimeout':
    '`Webhook` steps only: how long one request may wait for its answer before it counts as lost (and is sent again later).',
  'ladder[].attempts':
    "How many times this step is tried in all, the first try included, before escalating to the next one (integer ≥ 1). capo-remediation's `spec.steps[].retries` counts only the tries after the first: `attempts: 3` here is `retries: 2` there.",
  'flap.episodes':
    'This many NotReady episodes (`Ready=True` → not Ready; flips between `Unknown` and `False` are one episode; our own repairs, shutdowns and start-up do not count) within `flap.window` make a node that is in such an episode now unhealthy once that episode has lasted `flap.settle`, however short each was (integer ≥ 1). A verified repair clears the count.',
  'flap.window': 'How long NotReady episodes are remembered for flap detection.',
  'flap.settle':
    'How long the current episode of a flapping node must last before it is judged unhealthy: nodes that fail together reach the API server moments apart, and the storm guard must see them all before it admits the first. Keep it shorter than the episodes you want to catch.',
  'flap.escalateWithin':
    'A node that needs repair again this soon after a successful repair starts one ladder step higher.',
  'stormGuard.maxUnhealthy':
    'Fleet brake: with more unhealthy nodes than this (count, or percentage rounded down) no new repair starts; repairs in flight continue.',
  'stormGuard.maxInFlight':
    'At most this many repairs (Remediating or Verifying) at once (integer ≥ 1).',
  'stormGuard.minUnhealthyAllowed':
    'Floor for the resolved `maxUnhealthy`, so that `40%` of a 2-node cluster still allows one repair (integer ≥ 0).',
  'stormGuard.failureDomainLabel':
    'Node label that names the failure domain (e.g. `topology.kubernetes.io/zone`); required by `maxUnhealthyPerDomain`.',
  'stormGuard.maxUnhealthyPerDomain':
    'The same brake per failure domain: a zone with more unhealthy nodes than this gets no new repair.',
  'stormGuard.recheckInterval':
    'How often a node held by the storm guard (or a replayed action) is looked at again (at least `1s`).',
  'stormGuard.cooldown':
    'After a storm lifts (fleet or failure domain), a node the guard held waits this long before it may start a repair: storms end one node at a time, and the last to recover must not be rebooted the moment the count drops under the limit. A restarted controller counts its start as the end of a storm.',
  'stormGuard.maxStartsPerHour':
    "Rate limit over time: at most this many repairs started in the last hour (count, or percentage of the watched nodes rounded down, never below `minStartsPerHour`), per failure domain when `failureDomainLabel` is set, else for the fleet. Counted from the start times the nodes' repair states keep, so a restart does not reset it; a node whose state cannot be read makes the count unknown and holds every start in its scope. Unset: no rate limit.",
  'stormGuard.minStartsPerHour':
    "Floor for a percentage `maxStartsPerHour` (GKE on VMware's rule is `maxStartsPerHour: 10%`, `minStartsPerHour: 3`) (integer ≥ 0). Set without a percentage `maxStartsPerHour` it is an error naming the field (it would be ignored).",
  'stormGuard.latch.afterHeldFor':
    "The latch (circuit breaker), off unless `latch` is written: once the storm guard has held this long without a break (fleet or any failure domain tripped; counted in the controller's memory, so a restart starts it again, while the latch itself is persisted), no new repair starts until a person resets it: `noderepair reset-latch`, or removing the `noderepair.io/latched` annotation from the Lease `<leader-election-id>-latch` (at least `1s`). Trade-off: a storm that outlasts it stops every repair until someone looks, also after the storm lifts.",
  'drain.enabled':
    'Cordon and evict pods (honouring PodDisruptionBudgets) before the repair action.',
  'drain.timeout':
    'Draining is a phase: each reconcile evicts what it may and looks again shortly; this long after the recorded start (restarts included) it acts anyway (the node is broken; the `DrainIncomplete` Event names the pods left).',
  'drain.outOfServiceAfter':
    'For an unreachable node (`Ready=Unknown`, stale heartbeat): stop waiting for evicted pods after this long and go on to the repair action (they cannot terminate without a kubelet). The name is historical: the drain never adds the `node.kubernetes.io/out-of-service` taint; only a confirmed fence does (see "Fencing").',
  'shutdown.poweredOff':
    "A node shut down on purpose and not `Ready` since: it announced a graceful shutdown, the cloud-controller-manager marks it `node.cloudprovider.kubernetes.io/shutdown`, or (asked before the first action of any repair) the provider reports its machine stopped on request (`openstack server stop`, a maintenance; not a stop of ours, not a crash). `Wait`: wait for ever for it to report again, never power it on, never cordon it, never ask the provider again. `FailAfter`: once it has been down for `shutdown.failAfter`, ask the provider for the machine's power state (a provider that cannot tell is refused at start; an outage is waited out) and treat the node as failed (cause and Event `ShutDownTooLong`): the ladder repairs it, starting after any `SoftReboot` when the machine is off. A provider without `powerState` cannot tell a stopped machine from a broken one: for its nodes only an announced shutdown or the taint is waited for.",
  'shutdown.failAfter':
    "With `shutdown.poweredOff: FailAfter` (and only then): how long a shut-down node may stay down (counted from its shutdown, or from the provider's later power-off) before it is failed. A duration above 0.",
  'coordination.actors':
    'Other actors whose disruption of a node makes a repair wait (not a failed attempt): `Kured` (its reboot lock on its DaemonSet names the node, until the lock\'s TTL lapses; `{"nodeID":"manual"}` holds no node), `NodeMaintenance` (a medik8s NodeMaintenance for the node, in any phase, until it is deleted), `Medik8sLease` (the lease `node-<node>` in `coordination.medik8sLease.namespace` held by someone else, until renewTime + leaseDurationSeconds), `ClusterAPIRollout` (the node carries `node.cluster.x-k8s.io/outdated-revision`: its machine is being replaced; or the Node of a Cluster API Machine is cordoned by someone else: Cluster API cordons a machine it deletes), `ManualCordon` (cordoned by someone else before noderepair touched it), `SystemUpgrade` (an unfinished system-upgrade-controller Job labelled `upgrade.cattle.io/node=<node>` in `coordination.systemUpgrade.namespace`), `Karpenter` (the node carries `karpenter.sh/disrupted`). Each at most once; `[]` honours nobody. `ManualCordon` is on by default: a node someone else cordoned is someone\'s work in progress; to have such a node repaired, annotate it with the trigger (`annotations.trigger`), which a cordon does not hold (the other actors still do). `SystemUpgrade` is opt-in: it needs `list jobs` in the upgrade namespace. A cordon noderepair did not make is never undone either way.',
  'coordination.kured.daemonSet':
    "`namespace/name` of kured's DaemonSet, which carries its lock (kured's `--ds-namespace`/`--ds-name`; a Helm install uses the release's namespace and name). Only with `Kured` in `coordination.actors`.",
  'coordination.kured.lockAnnotation':
    "The lock's annotation key (kured's `--lock-annotation`). Only with `Kured` in `coordination.actors`.",
  'coordination.medik8sLease.namespace':
    'Namespace of the medik8s node leases (`node-<node>`, as medik8s NodeMaintenance and NodeHealthCheck write them; their `LEASE_NAMESPACE`).',
  'coordination.systemUpgrade.namespace':
    "Namespace of system-upgrade-controller's upgrade Jobs (its `SYSTEM_UPGRADE_CONTROLLER_NAMESPACE`). Only with `SystemUpgrade` in `coordination.actors`.",
  'controlPlane.repair':
    "Repair control-plane nodes (labelled `node-role.kubernetes.io/control-plane` or the legacy `node-role.kubernetes.io/master`, any value). `false`: they are left alone, held as `ControlPlane` (`noderepair status NODE`, the `NodeRepairHeld` condition and the Events say so): a control-plane node is usually an etcd member, and a reboot there can take the quorum and the API down with it. `true`: one control-plane node in repair at a time (ours or another actor's disruption), none while another control-plane node is not `Ready`, and never `Replace` (its ladder ends before a `Replace` step: the repair gives up and a person decides). The repair-now annotation does not lift this.",
  'annotations.state': 'Node annotation that holds the persisted repair state (JSON).',
  'annotations.trigger':
    "Node annotation that asks for a repair at once; each distinct value fires once (`kubectl annotate --overwrite node N noderepair.io/repair-now=$(date +%s)`). It is also how a person asks for the repair of a node someone else cordoned (the `ManualCordon` hold does not hold it); another actor's hold, the storm guard and a control-plane node left alone still do.",
};
