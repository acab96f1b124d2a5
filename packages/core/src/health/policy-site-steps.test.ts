// The ladder's site steps (Command, Webhook) in the policy: what they need, their defaults,
// and that a field of one kind on another step is an error naming it.
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { resolveRepairPolicy } from './policy.js';

const left = (e: either.Either<string, unknown>): string =>
  either.isLeft(e) ? e.left : `unexpectedly valid: ${JSON.stringify(e.right)}`;

describe('policy: site steps', () => {
  it('Command and Webhook resolve with their own timeouts, defaulted', () => {
    const p = resolveRepairPolicy({
      ladder: [
        { action: 'HardReboot' },
        { action: 'Webhook', url: 'https://ops.example/replace' },
        { action: 'Command', command: ['/usr/local/bin/replace-node', '--fast'], timeout: '30m' },
      ],
    });
    if (either.isLeft(p)) throw new Error(p.left);
    expect(p.right.ladder).toEqual([
      { action: 'HardReboot', timeoutMs: 600_000, attempts: 1 },
      {
        action: 'Webhook',
        url: 'https://ops.example/replace',
        requestTimeoutMs: 30_000,
        timeoutMs: 600_000,
        attempts: 1,
      },
      {
        action: 'Command',
        command: ['/usr/local/bin/replace-node', '--fast'],
        commandTimeoutMs: 300_000,
        timeoutMs: 1_800_000,
        attempts: 1,
      },
    ]);
    const q = resolveRepairPolicy({
      ladder: [
        { action: 'Command', command: ['x'], commandTimeout: '2m' },
        { action: 'Webhook', url: 'http://10.0.0.1:8080/', requestTimeout: 5 },
      ],
    });
    if (either.isLeft(q)) throw new Error(q.left);
    expect(q.right.ladder.map((s) => [s.commandTimeoutMs, s.requestTimeoutMs])).toEqual([
      [120_000, undefined],
      [undefined, 5000],
    ]);
  });

  it('Command needs a non-empty command', () => {
    for (const command of [undefined, [], ['  ']])
      expect(
        left(
          resolveRepairPolicy({ ladder: [{ action: 'Command', ...(command ? { command } : {}) }] }),
        ),
      ).toContain('ladder[0].command: Command needs the program to run and its arguments');
    expect(
      left(resolveRepairPolicy({ ladder: [{ action: 'Command', command: 'replace.sh' }] })),
    ).toMatch(/ladder\[0\]\.command/);
  });

  it('Webhook needs an absolute http(s) url, and the message does not repeat it', () => {
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'Webhook' }] }))).toContain(
      'ladder[0].url: Webhook needs the URL to POST to',
    );
    for (const url of ['ftp://x.example/a', '/relative', 'https://', 'not a url'])
      expect(left(resolveRepairPolicy({ ladder: [{ action: 'Webhook', url }] }))).toContain(
        'ladder[0].url: expected an absolute http:// or https:// URL',
      );
    const secret = 'https://user:pw-very-secret@ops.example/x?token=t0k3n';
    const bad = left(
      resolveRepairPolicy({ ladder: [{ action: 'Webhook', url: secret, requestTimeout: 0 }] }),
    );
    expect(bad).toContain('ladder[0].requestTimeout: expected a duration above 0');
    expect(bad).not.toContain('pw-very-secret');
    expect(bad).not.toContain('t0k3n');
  });

  it('fields of one kind on another step are errors naming the field', () => {
    const msg = left(
      resolveRepairPolicy({
        ladder: [
          { action: 'HardReboot', command: ['x'], commandTimeout: '1m' },
          { action: 'Command', command: ['x'], url: 'https://ops.example/', requestTimeout: '5s' },
          { action: 'Webhook', url: 'https://ops.example/', command: ['x'], image: 'img' },
        ],
      }),
    );
    expect(msg).toContain('ladder[0].command: only a Command step takes command, not HardReboot');
    expect(msg).toContain(
      'ladder[0].commandTimeout: only a Command step takes commandTimeout, not HardReboot',
    );
    expect(msg).toContain('ladder[1].url: only a Webhook step takes url, not Command');
    expect(msg).toContain(
      'ladder[1].requestTimeout: only a Webhook step takes requestTimeout, not Command',
    );
    expect(msg).toContain('ladder[2].command: only a Command step takes command, not Webhook');
    expect(msg).toContain('ladder[2].image: only a Rebuild step takes an image, not Webhook');
  });

  it('unknown fields of a site step are errors (the strict codec)', () => {
    expect(
      left(resolveRepairPolicy({ ladder: [{ action: 'Command', command: ['x'], comand: ['y'] }] })),
    ).toContain('ladder[0].comand: unknown field "comand" (did you mean "command"?)');
    expect(
      left(
        resolveRepairPolicy({
          ladder: [{ action: 'Webhook', url: 'https://a.example/', headers: {} }],
        }),
      ),
    ).toContain('ladder[0].headers: unknown field "headers"');
  });

  it('a site step appears once, like every action', () => {
    expect(
      left(
        resolveRepairPolicy({
          ladder: [
            { action: 'Command', command: ['a'] },
            { action: 'Command', command: ['b'] },
          ],
        }),
      ),
    ).toContain('ladder[1].action: Command is already step 1; use attempts to repeat a step');
  });

  it('a Command step’s env names the controller variables passed through; names only, on Command only', () => {
    const p = resolveRepairPolicy({
      ladder: [{ action: 'Command', command: ['/bin/replace'], env: ['OS_CLOUD', 'HTTPS_PROXY'] }],
    });
    if (either.isLeft(p)) throw new Error(p.left);
    expect(p.right.ladder[0]?.env).toEqual(['OS_CLOUD', 'HTTPS_PROXY']);
    expect(
      left(resolveRepairPolicy({ ladder: [{ action: 'HardReboot', env: ['OS_CLOUD'] }] })),
    ).toContain('ladder[0].env: only a Command step takes env, not HardReboot');
    expect(
      left(
        resolveRepairPolicy({
          ladder: [{ action: 'Command', command: ['/bin/x'], env: ['OS_CLOUD=site'] }],
        }),
      ),
    ).toContain('ladder[0].env[0]: expected the name of an environment variable');
    expect(
      left(
        resolveRepairPolicy({
          ladder: [{ action: 'Command', command: ['/bin/x'], envFrom: ['OS_CLOUD'] }],
        }),
      ),
    ).toContain('envFrom');
  });
});
