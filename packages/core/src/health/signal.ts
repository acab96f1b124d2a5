// The assessment's one-word verdict on a node. assess.ts decides it; the storm guard, the
// decisions and `noderepair status` read it. It has a module of its own because the storm
// guard sits below the assessment (the assessment's flap memory asks the storm guard which
// phases are in flight), so the type cannot live in assess.ts without an import circle.

/**
 * - healthy: nothing to do
 * - suspect: an unhealthy signal whose timeout has not run out yet (requeueAfterMs says when)
 * - unhealthy: act (subject to the storm guard)
 * - waiting: the node is shutting down; wait for it, never reboot it
 * - paused: Cluster API paused / skip-remediation annotation; not judged, not counted
 * - gone: the Node object no longer exists
 */
export type HealthSignal = 'healthy' | 'suspect' | 'unhealthy' | 'waiting' | 'paused' | 'gone';
