import { describe, expect, it } from 'vitest';
import { buildRecord, sample } from '../testing/record-builder.js';
import { liveView, plainView } from './view.js';

describe('liveView', () => {
  it('draws the screen, then redraws it in place (cursor up over what it drew, clear below)', () => {
    const writes: string[] = [];
    const stream = {
      columns: 120,
      rows: 60,
      write: (s: string) => writes.push(s),
    } as unknown as NodeJS.WriteStream;
    const rec = buildRecord([
      { t: 0, samples: [sample('zone-a-01', 'True'), sample('zone-a-02', 'False', 'Suspect')] },
    ]);
    const view = liveView(stream, { record: rec, now: () => 1000, scenarios: () => [] });
    view.progress('before the screen');
    view.start();
    view.stop();
    expect(writes[0]).toBe('==> before the screen\n');
    expect(writes[1]).toBe('\x1b[?25l');
    const first = writes[2] ?? '';
    expect(first.startsWith('\x1b[J')).toBe(true);
    const lines = first.split('\n').length - 1;
    expect(writes[3]?.startsWith(`\x1b[${lines}F\x1b[J`)).toBe(true);
    expect(writes[4]).toBe('\x1b[?25h');
    expect(first).toContain('zone-a-02');
  });
});

describe('plainView', () => {
  it('prints progress and changes as lines', () => {
    const out: string[] = [];
    const view = plainView((l) => out.push(l));
    view.progress('starting');
    view.change({ type: 'gone', t: 2000, node: 'zone-b-07' });
    view.change({ type: 'node', t: 0, sample: sample('a', 'True'), previous: undefined });
    expect(out).toEqual(['==> starting', '[   2.0s] zone-b-07       Node deleted']);
  });
});
