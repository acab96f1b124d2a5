// THE TEST HYPERVISOR: the infrastructure side of the VM node tests, playing the part Nova
// plays for OpenStack, on real qemu processes. It is our own code, not a product's: it owns
// each VM's QMP connection, keeps the records a cloud keeps (every action it executed, by
// actionId, in a file, so a controller restarted mid-action can ask whether its request
// arrived) and the VM's event log, and serves a small HTTP API on a unix socket that the
// provider (provider.ts) calls, as a real provider calls its cloud's API. Stopping the API
// (`stopServing`) is a cloud outage; the VMs keep running.
//
// Power actions on a real VM:
//   HardReboot  `system_reset`, then `cont` if the VM was not running: like Nova's HARD reboot,
//               it also powers on a machine that is off. Fenced once qemu has emitted the
//               RESET event of that request (reset accepted AND observed).
//   PowerOff    `stop` (the vCPUs halt at once: nothing in the guest runs or writes any more),
//               then `system_reset`, so the next power-on boots afresh. Fenced once stopped.
//   SoftReboot  ctrl-alt-delete on the keyboard: systemd reboots, or the guest ignores it.
//               Refused (409) when the VM is not running, as Nova refuses a SOFT reboot of a
//               SHUTOFF server. Never fences.
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { QmpClient, QmpCommandError, type QmpEvent } from './qmp.js';
import type { ActionRecord, FenceAnswer, PowerAnswer, TestHypervisorAction } from './wire.js';

interface Machine {
  readonly qmp: QmpClient;
  readonly events: QmpEvent[];
}

/** A refusal the API answers with its status code (the request arrived and was judged). */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The test hypervisor: real qemu VMs by name, their action records, and the control API. */
export class TestHypervisor {
  private readonly machines = new Map<string, Machine>();
  private readonly records = new Map<string, ActionRecord>();
  /** Machines a person powered off through the hypervisor itself (not a provider action), since when. */
  private readonly operatorOff = new Map<string, number>();
  /** Executions under way, by actionId (a second call with the same id waits for the first). */
  private readonly pending = new Map<string, Promise<ActionRecord>>();
  private server: Server | undefined;
  /** Path of the control API's unix socket (the provider's `control` option). */
  readonly controlSocket: string;
  private readonly recordsFile: string;

  /** `dir` holds the control socket and the records file (kept across restarts of the API). */
  constructor(dir: string) {
    this.controlSocket = join(dir, 'control.sock');
    this.recordsFile = join(dir, 'actions.jsonl');
    if (existsSync(this.recordsFile))
      for (const line of readFileSync(this.recordsFile, 'utf8').split('\n'))
        if (line !== '') this.remember(JSON.parse(line) as ActionRecord);
  }

  /** Takes over the VM whose QMP socket is `qmpSocket`, as machine `name`. */
  async addMachine(name: string, qmpSocket: string): Promise<void> {
    const events: QmpEvent[] = [];
    const qmp = await QmpClient.connect(qmpSocket, (e) => events.push(e));
    this.machines.set(name, { qmp, events });
  }

  /** Every QMP event of the machine since it was added (RESET, STOP, RESUME, SHUTDOWN, ...). */
  events(name: string): readonly QmpEvent[] {
    return this.machine(name).events;
  }

  /** Every action the hypervisor executed, in order (its records, as Nova's instance actions). */
  actions(name?: string): ActionRecord[] {
    return [...this.records.values()].filter((r) => name === undefined || r.machine === name);
  }

  /** qemu's run state of the machine (`running`, `paused`, `shutdown`, ...). */
  async runState(name: string): Promise<string> {
    const s = await this.machine(name).qmp.execute<{ status: string }>('query-status');
    return s.status;
  }

  /** Starts serving the control API (again, after stopServing). */
  async serve(): Promise<void> {
    if (this.server) return;
    rmSync(this.controlSocket, { force: true });
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.controlSocket, resolve);
    });
    this.server = server;
  }

  /** Stops the control API: a cloud outage. The VMs and the records stay. */
  async stopServing(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Stops the API and lets go of every QMP connection (the VMs are the caller's to stop). */
  async close(): Promise<void> {
    await this.stopServing();
    for (const m of this.machines.values()) m.qmp.close();
    this.machines.clear();
  }

  /**
   * Executes an action once per actionId: a known id answers with its record and acts no more.
   * The record is written before qemu is touched, as nova-api writes its instance action before
   * it answers: a hypervisor that dies, or a reply lost, after the action leaves the record, so
   * a replay finds it and acts no more ("maybe done" is answered by the records). Concurrent
   * calls with one id share the first call's answer.
   */
  execute(name: string, actionId: string, action: TestHypervisorAction): Promise<ActionRecord> {
    const known = this.records.get(actionId);
    if (known) {
      if (known.machine !== name || known.action !== action)
        return Promise.reject(
          new Refused(409, `action id ${actionId} was ${known.action} of ${known.machine}`),
        );
      return Promise.resolve(known);
    }
    const pending = this.pending.get(actionId);
    if (pending) return pending;
    const run = this.perform(name, actionId, action).finally(() => this.pending.delete(actionId));
    this.pending.set(actionId, run);
    return run;
  }

  private async perform(
    name: string,
    actionId: string,
    action: TestHypervisorAction,
  ): Promise<ActionRecord> {
    const m = this.machine(name);
    const running = (await this.runState(name)) === 'running';
    if (action === 'SoftReboot' && !running)
      throw new Refused(409, `${name} is not running: a soft reboot asks the guest`);
    const record: ActionRecord = {
      actionId,
      machine: name,
      action,
      acceptedAt: Date.now(),
      eventSeq: m.events.length,
    };
    appendFileSync(this.recordsFile, `${JSON.stringify(record)}\n`);
    this.remember(record);
    if (action === 'SoftReboot') {
      await m.qmp.execute('send-key', {
        keys: ['ctrl', 'alt', 'delete'].map((k) => ({ type: 'qcode', data: k })),
      });
    } else if (action === 'HardReboot') {
      await m.qmp.execute('system_reset');
      if (!running) await m.qmp.execute('cont');
      this.operatorOff.delete(name);
    } else {
      await m.qmp.execute('stop');
      await m.qmp.execute('system_reset');
    }
    return record;
  }

  /**
   * A person powers the machine off at the hypervisor (a maintenance, `virsh destroy`, an
   * operator's stop in the cloud's console): `stop` then `system_reset`, as PowerOff, but no
   * provider action and nothing the guest could announce. Remembered as someone's stop, so
   * `power` answers Off by request (as Nova's os-instance-actions show a user's stop).
   */
  async operatorPowerOff(name: string): Promise<void> {
    const m = this.machine(name);
    await m.qmp.execute('stop');
    await m.qmp.execute('system_reset');
    this.operatorOff.set(name, Date.now());
  }

  /** The person powers it on again: the guest boots afresh. */
  async operatorPowerOn(name: string): Promise<void> {
    const m = this.machine(name);
    this.operatorOff.delete(name);
    await m.qmp.execute('cont');
  }

  /** Whether the action's effect is observed: the RESET of a HardReboot, the stop of a PowerOff. */
  async fence(name: string, actionId: string): Promise<FenceAnswer> {
    const r = this.records.get(actionId);
    if (!r || r.machine !== name) throw new Refused(404, `no action ${actionId} on ${name}`);
    const after = this.machine(name).events.slice(r.eventSeq);
    if (r.action === 'HardReboot') {
      const reset = after.find(
        (e) => e.event === 'RESET' && e.data['reason'] === 'host-qmp-system-reset',
      );
      return reset
        ? {
            fenced: true,
            how: 'ResetObserved',
            evidence: `qemu reported RESET (host-qmp-system-reset) for ${actionId}`,
            at: reset.at,
          }
        : { fenced: false, reason: `no RESET event since ${actionId} was accepted` };
    }
    if (r.action === 'PowerOff') {
      const state = await this.runState(name);
      return state === 'running'
        ? { fenced: false, reason: `${name} is running again` }
        : {
            fenced: true,
            how: 'PoweredOff',
            evidence: `vCPUs stopped by ${actionId}; run state ${state}`,
          };
    }
    return { fenced: false, reason: 'a soft reboot never fences: the guest may ignore it' };
  }

  /**
   * The power state: running is On; shut down from inside (the guest's own poweroff: someone
   * asked) is Off by request; stopped by our PowerOff is Off too, but ours, not someone else's
   * stop, so not byRequest (core's rule: a machine someone else stopped stays off).
   */
  async power(name: string): Promise<PowerAnswer> {
    const m = this.machine(name);
    const state = await this.runState(name);
    if (state === 'running') return { state: 'On', evidence: 'run state running' };
    const shutdown = [...m.events].reverse().find((e) => e.event === 'SHUTDOWN');
    if (state === 'shutdown')
      return {
        state: 'Off',
        byRequest: shutdown?.data['reason'] === 'guest-shutdown',
        evidence: `run state shutdown (${String(shutdown?.data['reason'] ?? 'no SHUTDOWN event seen')})`,
        ...(shutdown ? { since: shutdown.at } : {}),
      };
    const last = this.actions(name).at(-1);
    const byOperator = this.operatorOff.get(name);
    // After stop + system_reset qemu reports `prelaunch` (reset while stopped), else `paused`.
    if ((state === 'paused' || state === 'prelaunch') && byOperator !== undefined)
      return {
        state: 'Off',
        byRequest: true,
        evidence: `powered off by an operator at the hypervisor at ${new Date(byOperator).toISOString()} (no action of this hypervisor's provider)`,
        since: byOperator,
      };
    if ((state === 'paused' || state === 'prelaunch') && last?.action === 'PowerOff')
      return {
        state: 'Off',
        byRequest: false,
        evidence: `powered off by ${last.actionId}: ours (a PowerOff sent through this hypervisor's provider), not someone else's stop`,
        since: last.acceptedAt,
      };
    // Paused by someone else (a frozen VM) is powered, not off: it may resume any moment.
    return { state: 'On', evidence: `run state ${state}` };
  }

  private remember(r: ActionRecord): void {
    this.records.set(r.actionId, r);
  }

  private machine(name: string): Machine {
    const m = this.machines.get(name);
    if (!m) throw new Refused(404, `no machine ${name}`);
    return m;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const parts = (req.url ?? '')
        .split('/')
        .filter((p) => p !== '')
        .map(decodeURIComponent);
      // /machines/{name}/actions[/{id}[/fence]] and /machines/{name}/power
      if (parts[0] !== 'machines' || parts[1] === undefined)
        throw new Refused(404, `no route ${req.url}`);
      const name = parts[1];
      if (req.method === 'POST' && parts[2] === 'actions' && parts.length === 3) {
        const body = JSON.parse(await readBody(req)) as { actionId?: unknown; action?: unknown };
        if (typeof body.actionId !== 'string' || body.actionId === '')
          throw new Refused(400, 'actionId: expected a non-empty string');
        if (
          body.action !== 'SoftReboot' &&
          body.action !== 'HardReboot' &&
          body.action !== 'PowerOff'
        )
          throw new Refused(
            400,
            `action: expected SoftReboot, HardReboot or PowerOff, got ${JSON.stringify(body.action)}`,
          );
        return send(202, await this.execute(name, body.actionId, body.action));
      }
      if (req.method === 'GET' && parts[2] === 'actions' && parts[3] !== undefined) {
        if (parts[4] === 'fence') return send(200, await this.fence(name, parts[3]));
        const r = this.records.get(parts[3]);
        if (!r || r.machine !== name) throw new Refused(404, `no action ${parts[3]} on ${name}`);
        return send(200, r);
      }
      if (req.method === 'GET' && parts[2] === 'power') return send(200, await this.power(name));
      throw new Refused(404, `no route ${req.method} ${req.url}`);
    } catch (e) {
      if (e instanceof Refused) return send(e.status, { message: e.message });
      // qemu refused the command: an answer about the action (e.g. the VM cannot do it now).
      if (e instanceof QmpCommandError) return send(409, { message: e.message });
      return send(500, { message: e instanceof Error ? e.message : String(e) });
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.on('data', (d: Buffer) => (s += d.toString('utf8')));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}
