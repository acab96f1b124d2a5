import { describe, expect, it } from 'vitest';
import {
  doubleActions,
  PROVIDER_REQUEST_MESSAGE,
  recordedRequests,
  type RecordedRequest,
} from './provider-record.js';

const line = (node: string, action: string, actionId: string, replay: boolean) =>
  JSON.stringify({ level: 30, node, action, actionId, replay, msg: PROVIDER_REQUEST_MESSAGE });
const req = (node: string, action: string, actionId: string, replay = false): RecordedRequest => ({
  node,
  action,
  actionId,
  replay,
});

describe('recordedRequests', () => {
  it('reads the provider lines only', () => {
    expect(
      recordedRequests([
        '{"msg":"reconciled"}',
        'not json at all',
        line('n1', 'HardReboot', 'a1', false),
      ]),
    ).toEqual([req('n1', 'HardReboot', 'a1')]);
  });

  it('refuses a provider line it cannot read: a measurement it cannot make is an error', () => {
    expect(() => recordedRequests([`garbage ${PROVIDER_REQUEST_MESSAGE}`])).toThrow(/not JSON/);
    expect(() =>
      recordedRequests([JSON.stringify({ msg: PROVIDER_REQUEST_MESSAGE, node: 'n1' })]),
    ).toThrow(/lacks/);
  });
});

describe('doubleActions', () => {
  it('a replay of the same id is not a double action', () => {
    const d = doubleActions([req('n1', 'HardReboot', 'a1'), req('n1', 'HardReboot', 'a1', true)]);
    expect(d).toEqual({ requests: 2, doubles: 0, details: [] });
  });

  it('the same id sent fresh twice is one double action', () => {
    const d = doubleActions([req('n1', 'HardReboot', 'a1'), req('n1', 'HardReboot', 'a1')]);
    expect(d.doubles).toBe(1);
    expect(d.details).toEqual(['action id a1 sent fresh 2 times']);
  });

  it('a second id of the same kind for one node is a double action, unless allowed', () => {
    const twice = [req('n1', 'HardReboot', 'a1'), req('n1', 'HardReboot', 'a2', true)];
    expect(doubleActions(twice).doubles).toBe(1);
    expect(doubleActions(twice, () => 2).doubles).toBe(0);
    // Different kinds (a ladder's steps) and different nodes are separate.
    expect(
      doubleActions([
        req('n1', 'HardReboot', 'a1'),
        req('n1', 'Replace', 'a2'),
        req('n2', 'HardReboot', 'a3'),
      ]).doubles,
    ).toBe(0);
  });
});
