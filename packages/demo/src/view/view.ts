// The two faces of the view. On a terminal: the whole screen (scenarios and every node)
// redrawn in place twice a second with ANSI cursor movement. Anywhere else (CI logs, a
// pipe, a file): one plain line per change, as it happens.
import type { DemoRecord, RecordChange } from '../record/timeline.js';
import { changeLine, screen, type ScenarioLine } from './format.js';

export interface View {
  /** Progress before the scenarios start (both modes print it as a line). */
  progress(line: string): void;
  change(c: RecordChange): void;
  start(): void;
  /** Final redraw (live) and release of the terminal. */
  stop(): void;
}

export interface ViewSource {
  record: DemoRecord;
  now(): number;
  scenarios(): ScenarioLine[];
}

export function plainView(out: (line: string) => void): View {
  let stopped = false;
  return {
    progress: (line) => out(`==> ${line}`),
    change: (c) => {
      if (stopped) return; // the summary is the last word; teardown is not news
      const line = changeLine(c);
      if (line !== undefined) out(line);
    },
    start: () => {},
    stop: () => {
      stopped = true;
    },
  };
}

export function liveView(stream: NodeJS.WriteStream, source: ViewSource): View {
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    const width = stream.columns ?? 140;
    const lines = screen(
      source.record,
      source.now(),
      source.scenarios(),
      true,
      width,
      stream.rows ?? Infinity,
    );
    // Up to the first line we drew, clear to the end of the screen, draw again.
    const up = drawn > 0 ? `\x1b[${drawn}F` : '';
    stream.write(`${up}\x1b[J${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  return {
    progress: (line) => {
      if (timer === undefined) stream.write(`==> ${line}\n`);
    },
    change: () => {},
    start: () => {
      stream.write('\x1b[?25l'); // hide the cursor while redrawing
      draw();
      timer = setInterval(draw, 500);
    },
    stop: () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      draw();
      stream.write('\x1b[?25h');
    },
  };
}
