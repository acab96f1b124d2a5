import { describe, expect, it } from 'vitest';
import { defaultLeaderIdentity } from './identity.js';

describe('defaultLeaderIdentity', () => {
  it('is the pod name (or hostname) plus a random suffix, never the PID', () => {
    // Two containers of the same Deployment without POD_NAME: both are PID 1, same image.
    const a = defaultLeaderIdentity({}, () => 'node-repair-7d9f');
    const b = defaultLeaderIdentity({}, () => 'node-repair-7d9f');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^node-repair-7d9f_[0-9a-f-]{36}$/);
    expect(a).not.toContain(String(process.pid));
    expect(
      defaultLeaderIdentity(
        { POD_NAME: 'pod-a' },
        () => 'h',
        () => 'x',
      ),
    ).toBe('pod-a_x');
    expect(
      defaultLeaderIdentity(
        { POD_NAME: '' },
        () => 'h',
        () => 'x',
      ),
    ).toBe('h_x');
  });
});
