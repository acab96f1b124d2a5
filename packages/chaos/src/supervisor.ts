// What the Deployment's kubelet does for the controller container: when the process exits on
// its own, start it again. An exit after a lost Lease is the designed behaviour (the manager
// stops so a fresh process can rejoin); any other exit of its own counts as a crash.
import type { ControllerProcess } from './controller-process.js';

export class Supervisor {
  readonly history: ControllerProcess[] = [];
  /** Exits after "leadership lost" (designed). */
  leadershipExits = 0;
  #stopped = false;
  #loop: Promise<void>;

  constructor(private readonly start: () => Promise<ControllerProcess>) {
    this.#loop = this.#run();
  }

  get current(): ControllerProcess | undefined {
    return this.history.at(-1);
  }

  /** Exits of its own that were not a lost Lease. */
  get crashes(): number {
    return this.history.filter(
      (p) => p.exitedOnItsOwn && !/leadership lost|leader election lost/.test(p.lines.join('\n')),
    ).length;
  }

  get restarts(): number {
    return Math.max(0, this.history.length - 1);
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const p = await this.start();
      this.history.push(p);
      await p.exited;
      if (this.#stopped) return;
      if (p.exitedOnItsOwn && /leadership lost|leader election lost/.test(p.lines.join('\n')))
        this.leadershipExits += 1;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.current?.stop(5_000);
    await this.#loop;
  }
}
