// The fake's server state machine against Nova's documented preconditions.
import { describe, expect, it } from 'vitest';
import { FakeCompute, novaStatus } from './fake-compute.js';

function setup(delay = 1000) {
  let t = 0;
  const compute = new FakeCompute(delay, undefined, () => t);
  return { compute, advance: (ms: number) => (t += ms) };
}

describe('FakeCompute', () => {
  it('SOFT reboot: ACTIVE -> REBOOT -> ACTIVE after the delay, counting a boot', () => {
    const { compute, advance } = setup();
    const s = compute.add({}, 'p');
    expect(compute.act(s, { reboot: { type: 'SOFT' } })).toEqual({ status: 202 });
    expect(novaStatus(compute.get(s.id)!)).toBe('REBOOT');
    advance(999);
    expect(novaStatus(compute.get(s.id)!)).toBe('REBOOT');
    advance(1);
    expect(compute.get(s.id)).toMatchObject({ vmState: 'active', taskState: null, boots: 1 });
  });

  it('SOFT reboot needs ACTIVE and no task', () => {
    const { compute } = setup();
    const stopped = compute.add({ status: 'SHUTOFF' }, 'p');
    expect(compute.act(stopped, { reboot: { type: 'SOFT' } }).status).toBe(409);
    const error = compute.add({ status: 'ERROR' }, 'p');
    expect(compute.act(error, { reboot: { type: 'SOFT' } }).status).toBe(409);
    const busy = compute.add({}, 'p');
    compute.act(busy, { 'os-stop': null });
    expect(compute.act(busy, { reboot: { type: 'SOFT' } }).status).toBe(409);
  });

  it('HARD reboot from ACTIVE, SHUTOFF and ERROR; not while a HARD one is pending', () => {
    const { compute, advance } = setup();
    for (const status of ['ACTIVE', 'SHUTOFF', 'ERROR'] as const) {
      const s = compute.add({ status }, 'p');
      expect(compute.act(s, { reboot: { type: 'HARD' } }).status).toBe(202);
      expect(compute.act(s, { reboot: { type: 'HARD' } }).status).toBe(409);
      advance(1000);
      expect(compute.get(s.id)).toMatchObject({ vmState: 'active', taskState: null });
    }
    expect(novaStatus({ vmState: 'active', taskState: 'reboot_started_hard' })).toBe('HARD_REBOOT');
  });

  it('PAUSED and SUSPENDED servers: SOFT reboot 409, HARD reboot accepted', () => {
    const { compute, advance } = setup();
    for (const status of ['PAUSED', 'SUSPENDED'] as const) {
      const s = compute.add({ status }, 'p');
      expect(novaStatus(s)).toBe(status);
      expect(compute.act(s, { reboot: { type: 'SOFT' } }).status).toBe(409);
      expect(compute.act(s, { reboot: { type: 'HARD' } }).status).toBe(202);
      expect(novaStatus(s)).toBe('HARD_REBOOT');
      advance(1000);
      expect(novaStatus(compute.get(s.id)!)).toBe('ACTIVE');
    }
  });

  it('admins may act on locked servers', () => {
    const { compute } = setup();
    const s = compute.add({ locked: true }, 'p');
    expect(compute.act(s, { reboot: { type: 'HARD' } }).status).toBe(409);
    expect(compute.act(s, { reboot: { type: 'HARD' } }, { admin: true }).status).toBe(202);
  });

  it('locked servers answer 409 to every action; policy denial 403; bad bodies 400', () => {
    const { compute } = setup();
    const locked = compute.add({ locked: true }, 'p');
    expect(compute.act(locked, { reboot: { type: 'HARD' } })).toMatchObject({
      status: 409,
      message: expect.stringContaining('locked'),
    });
    const denied = compute.add({}, 'p');
    denied.policyDenied = true;
    expect(compute.act(denied, { reboot: { type: 'HARD' } }).status).toBe(403);
    const s = compute.add({}, 'p');
    expect(compute.act(s, { reboot: { type: 'MEDIUM' } }).status).toBe(400);
    expect(compute.act(s, { migrate: null }).status).toBe(400);
    expect(compute.act(s, {}).status).toBe(400);
    expect(compute.act(s, { rebuild: {} }).status).toBe(400);
  });

  it('os-stop needs ACTIVE or ERROR; os-start needs SHUTOFF', () => {
    const { compute, advance } = setup();
    const s = compute.add({}, 'p');
    expect(compute.act(s, { 'os-start': null }).status).toBe(409);
    expect(compute.act(s, { 'os-stop': null }).status).toBe(202);
    advance(1000);
    expect(novaStatus(compute.get(s.id)!)).toBe('SHUTOFF');
    expect(compute.act(s, { 'os-stop': null }).status).toBe(409);
    expect(compute.act(s, { 'os-start': null }).status).toBe(202);
    advance(1000);
    expect(novaStatus(compute.get(s.id)!)).toBe('ACTIVE');
  });

  it('rebuild shows REBUILD and keeps a stopped server stopped', () => {
    const { compute, advance } = setup();
    const s = compute.add({ status: 'SHUTOFF' }, 'p');
    expect(compute.act(s, { rebuild: { imageRef: 'img' } }).status).toBe(202);
    expect(novaStatus(compute.get(s.id)!)).toBe('REBUILD');
    advance(1000);
    expect(compute.get(s.id)).toMatchObject({ vmState: 'stopped', imageRef: 'img' });
  });
});
