// The scheduler's agenda: timed callbacks of the simulated world (faults beginning and
// ending, kubelets finishing a boot), run in time order, ties in the order they were added.
// Kept apart from the controller's own timers (the ManualClock's) so the loop can jump
// straight to the next thing that happens.

interface Item {
  at: number;
  seq: number;
  fn: () => void;
}

/** A time-ordered list of callbacks (virtual epoch ms). */
export class Agenda {
  private items: Item[] = [];
  private seq = 0;
  /** Runs `fn` when the loop reaches `at`. */
  at(at: number, fn: () => void): void {
    this.items.push({ at, seq: this.seq++, fn });
    this.items.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
  /** When the next callback is due, or Infinity. */
  next(): number {
    return this.items[0]?.at ?? Infinity;
  }
  /** Runs every callback due by `t` (ones they add that are due by `t` too). */
  runUntil(t: number): void {
    while (this.items.length > 0 && this.items[0]!.at <= t) this.items.shift()!.fn();
  }
}
