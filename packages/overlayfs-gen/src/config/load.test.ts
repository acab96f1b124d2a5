import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { formatConfigError } from './errors.js';
import { parseConfig } from './load.js';

function messages(text: string): string[] {
  const r = parseConfig(text);
  return either.isLeft(r) ? r.left.map(formatConfigError) : [];
}

describe('parseConfig', () => {
  it('reads YAML', () => {
    const r = parseConfig('volatile:\n  - /etc\npersistent: [/etc/kubernetes]\ntmpfsSize: 256M\n');
    expect(either.isRight(r) && r.right).toMatchObject({
      volatile: ['/etc'],
      persistent: ['/etc/kubernetes'],
      tmpfsSize: '256M',
    });
  });

  it('reads JSON', () => {
    const r = parseConfig('{"volatile": ["/opt"], "persistent": [], "healthMonitors": []}');
    expect(either.isRight(r) && r.right).toMatchObject({
      volatile: ['/opt'],
      persistent: [],
      healthMonitors: [],
    });
  });

  it('names an unknown field and lists the known ones', () => {
    expect(messages('persistant: [/etc/kubernetes]')).toEqual([
      'persistant: unknown field "persistant" (did you mean "persistent"?); known fields: volatile, persistent, tmpfsSize, stateDir, containerRuntime, monitorDefaults, healthMonitors [rule: unknown-field]',
    ]);
  });

  it('names a nested unknown field', () => {
    expect(
      messages(
        'healthMonitors: [{name: a, unit: a.service, check: {type: http, url: "http://x/"}, treshold: 3}]',
      )[0],
    ).toMatch(/^healthMonitors\[0\]\.treshold: unknown field/);
  });

  it('names an unknown field inside a health check (the check types were open before)', () => {
    expect(
      messages(
        'healthMonitors: [{name: a, unit: a.service, check: {type: http, url: "http://x/", timeout: 5}}]',
      ),
    ).toEqual([
      'healthMonitors[0].check.timeout: unknown field "timeout"; known fields: type, url [rule: unknown-field]',
    ]);
    expect(
      messages(
        'healthMonitors: [{name: a, unit: a.service, check: {type: exec, comand: [true]}}]',
      )[0],
    ).toBe(
      'healthMonitors[0].check.comand: unknown field "comand" (did you mean "command"?); known fields: type, command [rule: unknown-field]',
    );
  });

  it('says what type was expected where', () => {
    expect(messages('volatile: /etc')).toEqual([
      'volatile: expected Array<string>, got "/etc" [rule: type]',
    ]);
    expect(messages('monitorDefaults: {intervalSeconds: 1.5}')).toEqual([
      'monitorDefaults.intervalSeconds: expected Int, got 1.5 [rule: type]',
    ]);
  });

  // Enum errors list what is allowed (issue 47), as core's decoders do: the check's type (the tag
  // io-ts reports against the whole check), and a YAML boolean or number where a string goes.
  it('a check type that is not one of them lists the allowed ones', () => {
    const monitor = (check: string) =>
      `healthMonitors: [{name: a, unit: a.service, check: ${check}}]`;
    expect(messages(monitor('{type: htp, url: "http://x/"}'))).toEqual([
      'healthMonitors[0].check.type: expected one of http, crictl, exec, got "htp" [rule: type]',
    ]);
    expect(messages(monitor('{url: "http://x/"}'))).toEqual([
      'healthMonitors[0].check.type: expected one of http, crictl, exec, got nothing [rule: type]',
    ]);
    expect(messages(monitor('{type: true, url: "http://x/"}'))).toEqual([
      'healthMonitors[0].check.type: expected the string "http", "crictl" or "exec", got the boolean true [rule: type]',
    ]);
    // Not an object at all: the shape is named, not the union's type name (HealthCheck).
    expect(messages(monitor('http'))).toEqual([
      'healthMonitors[0].check: expected an object with type: one of http, crictl, exec, got "http" [rule: type]',
    ]);
  });

  it('reports YAML syntax errors and duplicate keys', () => {
    expect(messages('volatile: [/etc')[0]).toMatch(/^\(file\): .*\[rule: syntax\]$/);
    expect(messages('volatile: [/etc]\nvolatile: [/usr]')[0]).toMatch(/\[rule: syntax\]$/);
  });

  it('quotes the offending value in semantic errors', () => {
    expect(messages('volatile: [/etc, "/etc/$(reboot)"]')).toEqual([
      'volatile[1] "/etc/$(reboot)": may only contain letters, digits and . _ @ + = - (other characters cannot be quoted safely in shell, mount options and unit files) [rule: safe-characters]',
    ]);
  });
});
