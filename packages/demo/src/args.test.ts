import { describe, expect, it } from 'vitest';
import { parseCli, usage } from './args.js';

describe('parseCli', () => {
  it('defaults', () => {
    expect(parseCli([])).toEqual({
      report: undefined,
      plain: false,
      timeoutSeconds: 300,
      logDir: undefined,
      openstack: 'fake',
    });
  });
  it('reads every flag', () => {
    expect(
      parseCli([
        '--report',
        'out.html',
        '--plain',
        '--timeout',
        '120',
        '--log-dir',
        '/tmp/x',
        '--openstack',
        'real',
      ]),
    ).toEqual({
      report: 'out.html',
      plain: true,
      timeoutSeconds: 120,
      logDir: '/tmp/x',
      openstack: 'real',
    });
  });
  it('names the flag and what was expected', () => {
    expect(parseCli(['--report', 'out.txt'])).toBe(
      '--report: expected a file name ending in .html, got "out.txt"',
    );
    expect(parseCli(['--timeout', '5'])).toBe(
      '--timeout: expected a whole number of seconds >= 30, got "5"',
    );
    expect(parseCli(['--timeout', 'soon'])).toBe(
      '--timeout: expected a whole number of seconds >= 30, got "soon"',
    );
    expect(parseCli(['--openstack', 'devstack'])).toBe(
      '--openstack: expected "fake" or "real", got "devstack"',
    );
    expect(parseCli(['--colour'])).toMatch(/Unknown option '--colour'/);
    expect(parseCli(['--help'])).toBe(usage);
  });
});
