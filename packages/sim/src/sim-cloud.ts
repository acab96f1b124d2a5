// SimCloud: a SIMULATED provider world modelled on Nova's documented behaviour, behind the
// MachineProvider port. Machines have a power state; power actions are recorded in the
// world's own log under their request id (Nova's os-instance-actions), so "did this id
// arrive?" is answered from the record, as a real provider does after a lost reply. Facts
// modelled (shared/reference/safety.md): a SoftReboot of a SHUTOFF server is refused (409); a
// HARD reboot of a SHUTOFF server powers it on; os-stop powers off; a stop someone else asked
// for is recorded as theirs. Faults: outage (every call Unavailable, nothing sent), a lost
// reply (Nova acted, the call throws), a 5xx after forwarding (Nova may or may not have
// acted: Unavailable, maybeSent), a reboot accepted whose instance action ends in error
// (nothing happened: not fenced), a person stopping or starting a machine.
// Replace (the standalone controller's, docs/providers.md; openstack/src/server-delete.ts):
// DELETE /servers/{id}; Nova takes 5-60 s, during which the server still runs (task
// `deleting`: not fenced); then it is gone, and Nova keeps it in this project's records as a
// deleted server (os-instance-actions with deleted servers, microversion 2.21): only then does
// fence() say Fenced (Deleted). A bare 404 (no such server in this project's records: another
// project's, a wrong region) is NotFenced, never Deleted.
// Every execute() is logged with the answer the controller got; every action Nova carried
// out is logged once: the invariants compare the two.
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  MachineRef,
  PowerState,
  ProviderAction,
  ProviderOutcome,
} from '@noderepair/core/provider';
import type { CallAnswer, History } from './history.js';

/** One simulated server. */
export interface Machine {
  readonly id: string;
  power: 'On' | 'Off';
  /** Who powered it off last: a person (an operator, a maintenance) or the controller. */
  stoppedBy?: 'person' | 'controller';
  stoppedAt?: number;
  /** Bumped by every power cycle (the Node's bootID follows it). */
  boots: number;
  /** A DELETE Nova accepted is under way (task `deleting`): the server runs until it is done. */
  deleting?: boolean;
}

/** The fault switches of the simulated cloud; the scheduler flips them. */
export interface CloudFaults {
  /** Nova and Keystone unreachable: every call Unavailable, nothing sent. */
  outage: boolean;
  /** Probability that Nova acts and the reply is lost (the call throws). */
  lostReplyRate: number;
  /** Probability of a 502/504 from a proxy after forwarding (Nova acted half of the time). */
  fiveXXRate: number;
  /** Probability that Nova accepts a reboot (202) and its instance action ends in error. */
  actionErrorRate: number;
}

/** A SIMULATED Nova behind the MachineProvider port (see the file's header). */
export class SimCloud implements MachineProvider {
  readonly name = 'simcloud';
  readonly actions: ReadonlySet<ProviderAction> = new Set<ProviderAction>([
    'SoftReboot',
    'HardReboot',
    'PowerOff',
    'Replace',
  ]);
  readonly machines = new Map<string, Machine>();
  readonly faults: CloudFaults = {
    outage: false,
    lostReplyRate: 0,
    fiveXXRate: 0,
    actionErrorRate: 0,
  };
  /** Nova's instance actions by request id: what was carried out, once. */
  private readonly done = new Map<
    string,
    { action: ProviderAction; machine: string; at: number; failed: boolean }
  >();
  /**
   * Servers deleted, by id: what Nova still knows of this project's deleted servers (a 404 with
   * such a record is a deletion; a 404 without one proves nothing).
   */
  private readonly deleted = new Map<string, { at: number; by: 'controller' | 'person' }>();
  private personActs = 0;
  /** Called after a power cycle Nova carried out (the world restarts the kubelet). */
  onPowerCycle: (machine: Machine) => void = () => undefined;
  /** Called when Nova finished deleting a server the controller's Replace asked it to delete. */
  onServerDeleted: (machine: Machine) => void = () => undefined;
  /** Runs `fn` at virtual time `at` (the world's agenda; set by the world). */
  later: (at: number, fn: () => void) => void = () => undefined;

  constructor(
    private readonly history: History,
    private readonly rand: () => number,
    private readonly now: () => number,
  ) {}

  /** Adds a running machine. */
  add(id: string): Machine {
    const m: Machine = { id, power: 'On', boots: 1 };
    this.machines.set(id, m);
    return m;
  }

  /** Deletes a server (someone replaced the machine): Nova answers 404 for it from then on. */
  delete(id: string): void {
    if (!this.machines.delete(id)) return;
    this.deleted.set(id, { at: this.now(), by: 'person' });
    this.history.add({ kind: 'server', machine: id, change: 'deleted', by: 'person' });
  }

  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    const answer = (a: CallAnswer) =>
      this.history.add({
        kind: 'call',
        actionId: req.actionId,
        action: req.action,
        machine: req.providerID,
        replay: req.replay,
        answer: a,
      });
    if (this.faults.outage) {
      answer('Unavailable');
      return { kind: 'Unavailable', message: 'Nova: 503 (simulated outage)', maybeSent: false };
    }
    // Promise 1: an id Nova already has is answered from its record, never sent again.
    if (this.done.has(req.actionId)) {
      answer('Accepted');
      return { kind: 'Accepted', message: `already done: ${req.actionId}`, ref: req.actionId };
    }
    const m = this.machines.get(req.providerID);
    // Replace of a server Nova lists as deleted, or being deleted: nothing to send (the
    // provider asks Nova first and never sends a second DELETE: server-delete.ts).
    if (req.action === 'Replace' && (m?.deleting === true || this.deleted.has(req.providerID))) {
      answer('Accepted');
      return {
        kind: 'Accepted',
        message: `server ${req.providerID} is deleted or being deleted: no DELETE sent`,
        ref: req.actionId,
      };
    }
    if (m === undefined) {
      answer('Rejected');
      return { kind: 'Rejected', message: `server ${req.providerID} not found (404)` };
    }
    // A 5xx from a proxy after forwarding: Nova acted, or not.
    const fiveXX = this.rand() < this.faults.fiveXXRate;
    const lost = !fiveXX && this.rand() < this.faults.lostReplyRate;
    if (fiveXX && this.rand() < 0.5) {
      answer('Unavailable');
      return { kind: 'Unavailable', message: 'Nova: 502 Bad Gateway (simulated)', maybeSent: true };
    }
    const refused = this.refusal(req.action, m);
    if (refused !== undefined) {
      answer('Rejected');
      return { kind: 'Rejected', message: refused };
    }
    this.carryOut(req.actionId, req.action, m, 'controller');
    if (fiveXX) {
      answer('Unavailable');
      return {
        kind: 'Unavailable',
        message: 'Nova: 504 Gateway Timeout (simulated)',
        maybeSent: true,
      };
    }
    if (lost) {
      answer('Threw');
      throw new Error(`POST /servers/${m.id}/action: socket hang up (simulated lost reply)`);
    }
    answer('Accepted');
    return { kind: 'Accepted', message: `${req.action} accepted`, ref: req.actionId };
  }

  /** Nova's 409 for an action the server's state does not allow. */
  private refusal(action: ProviderAction, m: Machine): string | undefined {
    if (action === 'SoftReboot' && m.power === 'Off')
      return `Cannot 'reboot' instance ${m.id} while it is in vm_state stopped (409)`;
    if (m.deleting === true)
      return `Cannot '${action}' instance ${m.id} while it is in task_state deleting (409)`;
    if (!this.actions.has(action)) return `${action} is not supported (400)`;
    return undefined;
  }

  /** Nova carries out a power action and records it under its request id. */
  private carryOut(
    actionId: string,
    action: ProviderAction,
    m: Machine,
    by: 'controller' | 'person',
  ): void {
    // Accepted, then the instance action ends in error (a reboot Nova could not do).
    const failed =
      by === 'controller' && action !== 'PowerOff' && this.rand() < this.faults.actionErrorRate;
    this.done.set(actionId, { action, machine: m.id, at: this.now(), failed });
    this.history.add({
      kind: 'executed',
      actionId,
      action,
      machine: m.id,
      by,
      from: m.power,
      ...(failed ? { failed } : {}),
    });
    if (failed) return;
    if (action === 'Replace') {
      // DELETE accepted: the server runs on (task deleting) until Nova is done.
      m.deleting = true;
      this.later(this.now() + 5_000 + Math.floor(this.rand() * 55_000), () => {
        if (this.machines.get(m.id) !== m) return;
        this.machines.delete(m.id);
        this.deleted.set(m.id, { at: this.now(), by });
        this.history.add({ kind: 'server', machine: m.id, change: 'deleted', by });
        this.onServerDeleted(m);
      });
      return;
    }
    if (action === 'PowerOff') {
      m.power = 'Off';
      m.stoppedBy = by;
      m.stoppedAt = this.now();
      return;
    }
    // SoftReboot of a running server, HardReboot (of a SHUTOFF one too: it powers it on),
    // and a person's start.
    m.power = 'On';
    delete m.stoppedBy;
    delete m.stoppedAt;
    m.boots++;
    this.onPowerCycle(m);
  }

  /** A person stops the machine (`openstack server stop`), recorded as theirs. */
  personStop(id: string): void {
    const m = this.machines.get(id);
    if (m === undefined || m.power === 'Off') return;
    this.carryOut(`person-${++this.personActs}`, 'PowerOff', m, 'person');
  }

  /** A person starts it again (`openstack server start`). */
  personStart(id: string): void {
    const m = this.machines.get(id);
    if (m === undefined || m.power === 'On') return;
    this.carryOut(`person-${++this.personActs}`, 'HardReboot', m, 'person');
  }

  async fence(q: FenceQuery): Promise<FenceStatus> {
    if (this.faults.outage) return { kind: 'Unavailable', reason: 'Nova: 503 (simulated outage)' };
    const m = this.machines.get(q.providerID);
    if (m === undefined) {
      const gone = this.deleted.get(q.providerID);
      return gone !== undefined
        ? {
            kind: 'Fenced',
            how: 'Deleted',
            evidence: `server 404; Nova lists it as a deleted server of this project`,
            at: gone.at,
          }
        : {
            kind: 'NotFenced',
            reason: `server ${q.providerID} not found and Nova has no records of it in this project: not taken as deleted`,
          };
    }
    if (m.power === 'Off')
      return {
        kind: 'Fenced',
        how: 'PoweredOff',
        evidence: 'status SHUTOFF',
        ...(m.stoppedAt !== undefined ? { at: m.stoppedAt } : {}),
      };
    if (m.deleting === true)
      return {
        kind: 'NotFenced',
        reason: `server ${m.id} is ACTIVE (task deleting), not deleted yet`,
      };
    const d = this.done.get(q.actionId);
    if (d !== undefined && d.failed)
      return { kind: 'NotFenced', reason: `instance action ${q.actionId} ended in error` };
    if (d !== undefined && d.action === 'HardReboot')
      return {
        kind: 'Fenced',
        how: 'ResetObserved',
        evidence: `instance action ${q.actionId} finished`,
        at: d.at,
      };
    return { kind: 'NotFenced', reason: 'server ACTIVE, no finished reset for this action' };
  }

  async powerState(ref: MachineRef): Promise<PowerState> {
    const s = this.readPower(ref);
    const by = s.kind === 'Off' ? `(byRequest=${s.byRequest})` : '';
    this.history.add({ kind: 'power', machine: ref.providerID, answer: `${s.kind}${by}` });
    return s;
  }

  private readPower(ref: MachineRef): PowerState {
    if (this.faults.outage) return { kind: 'Unavailable', reason: 'Nova: 503 (simulated outage)' };
    const m = this.machines.get(ref.providerID);
    if (m === undefined) return { kind: 'Gone', evidence: 'server 404' };
    if (m.power === 'On') return { kind: 'On' };
    return {
      kind: 'Off',
      byRequest: m.stoppedBy === 'person',
      evidence: `status SHUTOFF, stopped by ${m.stoppedBy ?? 'unknown'}`,
      ...(m.stoppedAt !== undefined ? { since: m.stoppedAt } : {}),
    };
  }
}
