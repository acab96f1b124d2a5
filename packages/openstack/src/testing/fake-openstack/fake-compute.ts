// FAKE Nova servers (tests only): the vm_state/task_state machine of the reboot, start, stop
// and rebuild actions with the preconditions Nova's compute API checks, so the client and
// controller meet the same 202s and 409s a real cloud gives. Transitions complete lazily,
// `transitionDelayMs` after they began on the injected clock, so tests need no timers.
import { randomUUID } from 'node:crypto';

export type FakeVmState =
  | 'active'
  | 'stopped'
  | 'paused'
  | 'suspended'
  | 'error'
  | 'building'
  /** Nova's vm_states.SOFT_DELETED: stopped, restorable until reclaimed. */
  | 'soft-delete';

export interface FakeServerState {
  readonly id: string;
  readonly name: string;
  readonly projectId: string;
  vmState: FakeVmState;
  taskState: string | null;
  locked: boolean;
  /** Actions answer 403, as if the cloud's policy forbade them. */
  policyDenied: boolean;
  imageRef: string;
  /** Completed boots (reboots, starts, rebuilds). */
  boots: number;
  /** Server metadata (GET/PUT /servers/{id}/metadata). */
  metadata: Record<string, string>;
  pending:
    | {
        at: number;
        /** When nova-compute picks the cast up (see FakeCompute's pickupDelayMs). */
        pickupAt: number;
        /** The task nova-compute sets when it picks the cast up (reboot_started, ...). */
        readonly computeTask: string;
        readonly finish: () => void;
      }
    | undefined;
  updatedAt: number;
}

/** A server to create in the fake Nova (FakeOpenStack.addServer); every field has a default. */
export interface AddServerOptions {
  /** The server's id; a random UUID by default. */
  readonly id?: string;
  /** Display name; `server-<first 8 characters of the id>` by default. */
  readonly name?: string;
  /**
   * Owning project; the fake's first project by default. Tokens of other projects get 404 for it.
   */
  readonly projectId?: string;
  /** Initial Nova status. */
  readonly status?: 'ACTIVE' | 'SHUTOFF' | 'ERROR' | 'BUILD' | 'PAUSED' | 'SUSPENDED';
  /** Locked servers refuse actions from non-admin users with 409; false by default. */
  readonly locked?: boolean;
  /** The image the server runs (what a rebuild replaces); `fake-image` by default. */
  readonly imageRef?: string;
}

export type ActionOutcome =
  | { readonly status: 202 }
  | {
      readonly status: 400 | 403 | 409;
      readonly fault: 'badRequest' | 'forbidden' | 'conflictingRequest';
      readonly message: string;
    };

const HARD_PENDING = new Set(['reboot_pending_hard', 'reboot_started_hard']);
// Nova: a HARD reboot may interrupt these tasks (task_states.ALLOW_REBOOT).
const ALLOW_HARD = new Set<string | null>([
  null,
  'rebooting',
  'reboot_pending',
  'reboot_started',
  'rebooting_hard',
  'resuming',
  'pausing',
  'unpausing',
  'suspending',
]);

/** Nova's status as the API derives it from vm_state and task_state. */
export function novaStatus(s: Pick<FakeServerState, 'vmState' | 'taskState'>): string {
  const t = s.taskState;
  if (t === 'rebuilding') return 'REBUILD';
  if (s.vmState === 'building') return 'BUILD';
  if (s.vmState === 'soft-delete') return 'SOFT_DELETED';
  if (s.vmState === 'error') return 'ERROR';
  if (s.vmState === 'paused' && !t?.endsWith('_hard')) return 'PAUSED';
  if (s.vmState === 'suspended' && !t?.endsWith('_hard')) return 'SUSPENDED';
  if (t !== null && (t.endsWith('_hard') || t === 'rebooting_hard')) return 'HARD_REBOOT';
  if (s.vmState === 'stopped') return 'SHUTOFF';
  if (t === 'rebooting' || t === 'reboot_pending' || t === 'reboot_started') return 'REBOOT';
  return 'ACTIVE';
}

/**
 * Nova's InstanceInvalidState text, as its check_instance_state decorator raises it: the
 * vm_state is checked first, then the task_state, and only the failing one is named.
 */
function conflict(s: FakeServerState, action: string, allowedVm: readonly string[]): ActionOutcome {
  const attr = allowedVm.includes(s.vmState) ? 'task_state' : 'vm_state';
  return {
    status: 409,
    fault: 'conflictingRequest',
    message: `Cannot '${action}' instance ${s.id} while it is in ${attr} ${attr === 'vm_state' ? s.vmState : String(s.taskState)}`,
  };
}

export class FakeCompute {
  readonly servers = new Map<string, FakeServerState>();
  /**
   * Deleted servers: Nova keeps their rows (deleted=1), so os-instance-actions of a deleted
   * server still answer from microversion 2.21 on.
   */
  readonly deleted = new Map<string, FakeServerState>();
  /**
   * Nova's reclaim_instance_interval: when > 0, DELETE soft-deletes (task soft-deleting, then
   * SOFT_DELETED) instead of deleting. Default 0, Nova's default.
   */
  reclaimInstanceIntervalSeconds = 0;
  transitionDelayMs: number;
  readonly #now: () => number;
  readonly #images: readonly string[] | undefined;
  /**
   * Time between the API's 202 and nova-compute picking the cast up; until then the server
   * shows the API's task state (rebooting, rebooting_hard), as a GET right after the action
   * did on the testbed. Default 0: picked up at once (the fake's behaviour before the
   * comparison, which unit tests rely on).
   */
  readonly pickupDelayMs: number;
  #computePaused = false;

  constructor(
    transitionDelayMs: number,
    images: readonly string[] | undefined,
    now: () => number,
    pickupDelayMs = 0,
  ) {
    this.transitionDelayMs = transitionDelayMs;
    this.#images = images;
    this.#now = now;
    this.pickupDelayMs = pickupDelayMs;
  }

  add(opts: AddServerOptions, defaultProjectId: string): FakeServerState {
    const id = opts.id ?? randomUUID();
    const vm: Record<NonNullable<AddServerOptions['status']>, FakeVmState> = {
      ACTIVE: 'active',
      SHUTOFF: 'stopped',
      ERROR: 'error',
      BUILD: 'building',
      PAUSED: 'paused',
      SUSPENDED: 'suspended',
    };
    const s: FakeServerState = {
      id,
      name: opts.name ?? `server-${id.slice(0, 8)}`,
      projectId: opts.projectId ?? defaultProjectId,
      vmState: vm[opts.status ?? 'ACTIVE'],
      taskState: null,
      locked: opts.locked ?? false,
      policyDenied: false,
      imageRef: opts.imageRef ?? 'fake-image',
      boots: 0,
      metadata: {},
      pending: undefined,
      updatedAt: this.#now(),
    };
    this.servers.set(id, s);
    return s;
  }

  /**
   * Like the testbed's SIGSTOP of nova-compute: accepted actions keep the task state the API
   * set (rebooting, rebooting_hard, powering-off, ...) and do not complete until resumed.
   */
  pauseCompute(): void {
    this.#computePaused = true;
  }

  /** nova-compute picks up the held casts now; each completes transitionDelayMs later. */
  resumeCompute(): void {
    this.#computePaused = false;
    for (const s of this.servers.values()) {
      if (!s.pending) continue;
      s.taskState = s.pending.computeTask;
      s.pending.pickupAt = this.#now();
      s.pending.at = this.#now() + this.transitionDelayMs;
      this.settle(s);
    }
  }

  get computePaused(): boolean {
    return this.#computePaused;
  }

  /** Completes a transition whose time has come (called before every read or action). */
  settle(s: FakeServerState): void {
    if (this.#computePaused) return;
    if (s.pending && this.#now() >= s.pending.pickupAt) s.taskState = s.pending.computeTask;
    if (s.pending && this.#now() >= s.pending.at) {
      const p = s.pending;
      s.pending = undefined;
      p.finish();
      s.updatedAt = this.#now();
    }
  }

  get(id: string): FakeServerState | undefined {
    const s = this.servers.get(id);
    if (s) this.settle(s);
    return this.servers.get(id); // settling may have completed a delete
  }

  /**
   * DELETE /servers/{id} once accepted: like Nova, the server stays visible with task_state
   * "deleting" (status unchanged) until nova-compute has deleted it, then it is gone (404).
   * Any task in progress is overridden, as Nova's delete is.
   */
  delete(s: FakeServerState): void {
    s.pending = undefined;
    // A soft-deleted server is deleted for good by a second DELETE (Nova's force path).
    if (this.reclaimInstanceIntervalSeconds > 0 && s.vmState !== 'soft-delete') {
      this.#begin(s, 'soft-deleting', 'soft-deleting', () => {
        s.vmState = 'soft-delete';
      });
      return;
    }
    this.#begin(s, 'deleting', 'deleting', () => {
      this.remove(s.id);
    });
  }

  /** The server is gone (404); its records stay, as Nova's deleted rows do. */
  remove(id: string): void {
    const s = this.servers.get(id);
    if (s === undefined) return;
    this.servers.delete(id);
    this.deleted.set(id, s);
  }

  /**
   * The API sets `apiTask` and casts to nova-compute, which (when running) picks the cast up
   * after pickupDelayMs and moves to `computeTask`; a paused compute leaves `apiTask` in place.
   */
  #begin(
    s: FakeServerState,
    apiTask: string,
    computeTask: string,
    finish: () => void,
  ): ActionOutcome {
    const now = this.#now();
    s.taskState = apiTask;
    s.updatedAt = now;
    s.pending = {
      at: now + Math.max(this.transitionDelayMs, this.pickupDelayMs),
      pickupAt: now + this.pickupDelayMs,
      computeTask,
      finish: () => {
        s.taskState = null;
        finish();
      },
    };
    this.settle(s); // picks up (and with a zero delay completes) at once unless delayed or paused
    return { status: 202 };
  }

  /**
   * Nova's precondition for a metadata update after the lock check (compute API
   * update_instance_metadata: check_instance_state(vm_state=[active, paused, suspended,
   * stopped], task_state=None), where task_state=None means "any task"): undefined when the
   * update may go ahead, else the 409. A reboot in progress does not block it (seen on the
   * testbed); a server still building or in ERROR does.
   */
  metadataConflict(s: FakeServerState): ActionOutcome | undefined {
    const allowedVm = ['active', 'paused', 'suspended', 'stopped'];
    if (allowedVm.includes(s.vmState)) return undefined;
    return conflict(s, 'update metadata', allowedVm);
  }

  /** The body of POST /servers/{id}/action for a settled, visible server. */
  act(
    s: FakeServerState,
    body: Record<string, unknown>,
    opts: { admin?: boolean } = {},
  ): ActionOutcome {
    const keys = Object.keys(body);
    const action = keys[0];
    if (keys.length !== 1 || action === undefined)
      return { status: 400, fault: 'badRequest', message: 'Exactly one action is required' };
    if (s.policyDenied)
      return {
        status: 403,
        fault: 'forbidden',
        message: `Policy doesn't allow ${action} to be performed.`,
      };
    const known = ['reboot', 'os-start', 'os-stop', 'rebuild'];
    if (!known.includes(action))
      return { status: 400, fault: 'badRequest', message: `Unsupported action ${action}` };
    // Nova lets admins act on locked servers (policy os_compute_api:os-lock-server:unlock:unlock_override).
    if (s.locked && !opts.admin)
      return { status: 409, fault: 'conflictingRequest', message: `Instance ${s.id} is locked` };
    const boot = () => {
      s.vmState = 'active';
      s.boots += 1;
    };
    switch (action) {
      case 'reboot': {
        const type = (body.reboot as { type?: unknown } | null)?.type;
        if (type !== 'SOFT' && type !== 'HARD')
          return {
            status: 400,
            fault: 'badRequest',
            message: "reboot.type must be 'SOFT' or 'HARD'",
          };
        if (type === 'SOFT') {
          if (s.vmState !== 'active' || s.taskState !== null)
            return conflict(s, 'reboot', ['active']);
          return this.#begin(s, 'rebooting', 'reboot_started', boot);
        }
        // Nova: ALLOW_HARD_REBOOT = ACTIVE, STOPPED, PAUSED, SUSPENDED, ERROR.
        const hardVm = ['active', 'stopped', 'paused', 'suspended', 'error'];
        const allowedVm = hardVm.includes(s.vmState);
        if (
          !allowedVm ||
          !ALLOW_HARD.has(s.taskState) ||
          (s.taskState !== null && HARD_PENDING.has(s.taskState))
        ) {
          return conflict(s, 'reboot', hardVm);
        }
        // A hard reboot overrides a soft one in progress, as in Nova.
        s.pending = undefined;
        return this.#begin(s, 'rebooting_hard', 'reboot_started_hard', boot);
      }
      case 'os-start':
        if (s.vmState !== 'stopped' || s.taskState !== null)
          return conflict(s, 'start', ['stopped']);
        return this.#begin(s, 'powering-on', 'powering-on', boot);
      case 'os-stop':
        if ((s.vmState !== 'active' && s.vmState !== 'error') || s.taskState !== null)
          return conflict(s, 'stop', ['active', 'error']);
        return this.#begin(s, 'powering-off', 'powering-off', () => {
          s.vmState = 'stopped';
        });
      default: {
        const imageRef = (body.rebuild as { imageRef?: unknown } | null)?.imageRef;
        if (typeof imageRef !== 'string' || imageRef === '')
          return { status: 400, fault: 'badRequest', message: 'rebuild.imageRef is required' };
        if (this.#images && !this.#images.includes(imageRef))
          return { status: 400, fault: 'badRequest', message: `Invalid imageRef provided.` };
        const rebuildVm = ['active', 'stopped', 'error', 'paused', 'suspended'];
        if (s.vmState === 'building' || s.taskState !== null)
          return conflict(s, 'rebuild', rebuildVm);
        const wasStopped = s.vmState === 'stopped';
        return this.#begin(s, 'rebuilding', 'rebuilding', () => {
          s.imageRef = imageRef;
          s.vmState = wasStopped ? 'stopped' : 'active';
          if (!wasStopped) s.boots += 1;
        });
      }
    }
  }
}
