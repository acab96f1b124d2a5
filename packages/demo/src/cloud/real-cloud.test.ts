import { describe, expect, it } from 'vitest';
import { rebootTypeOf } from './real-cloud.js';
import { serial } from './serial.js';

describe('rebootTypeOf (which server actions the real cloud records)', () => {
  it('reads the reboot type of a Nova server action body', () => {
    expect(rebootTypeOf('{"reboot":{"type":"SOFT"}}')).toBe('SOFT');
    expect(rebootTypeOf('{"reboot":{"type":"HARD"}}')).toBe('HARD');
  });
  it('is undefined for other actions and bodies', () => {
    expect(rebootTypeOf('{"os-stop":null}')).toBeUndefined();
    expect(rebootTypeOf('{"reboot":{"type":"SOFTER"}}')).toBeUndefined();
    expect(rebootTypeOf('not json')).toBeUndefined();
    expect(rebootTypeOf(undefined)).toBeUndefined();
  });
});

describe('serial', () => {
  it('runs one function at a time, in order, and goes on after a failure', async () => {
    const one = serial();
    const log: string[] = [];
    let active = 0;
    let most = 0;
    const job = (name: string, ms: number, fail = false) =>
      one(async () => {
        active++;
        most = Math.max(most, active);
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${name}`);
        active--;
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([job('a', 30), job('b', 5, true), job('c', 1)]);
    expect(most).toBe(1);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
