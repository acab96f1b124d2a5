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
  private personActs = 0;
  /** Called after a power cycle Nova carried out (the world restarts the kubelet). */
  onPowerCycle: (machine: Machine) => void = () => undefined;

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
    this.machines.delete(id);
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
    if (m === undefined) return { kind: 'Fenced', how: 'Deleted', evidence: 'server 404' };
    if (m.power === 'Off')
      return {
        kind: 'Fenced',
        how: 'PoweredOff',
        evidence: 'status SHUTOFF',
        ...(m.stoppedAt !== undefined ? { at: m.stoppedAt } : {}),
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
