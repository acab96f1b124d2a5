// `noderepair run` runs the ladder's site steps itself (provider/site-steps.ts): a provider
// that cannot execute Command or Webhook still gets a policy with them accepted, while an
// action neither it nor core can run is still refused at start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MachineProvider, ProviderAction } from '../provider/port.js';
import { runCommand } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'run-site-steps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('noderepair run: site steps', () => {
  it('a Command or Webhook step is executable whatever the provider; other actions are still checked', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 'x' } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'c',
      }),
    );
    // FAKE provider that can only soft-reboot.
    const softOnly = (): MachineProvider => ({
      name: 'soft-only-fake',
      actions: new Set<ProviderAction>(['SoftReboot']),
      execute: async () => ({ kind: 'Rejected', message: 'fake' }),
      fence: async () => ({ kind: 'NotFenced', reason: 'fake' }),
    });
    const err: string[] = [];
    const code = await runCommand(
      ['--policy', 'p', '--kubeconfig', kubeconfig, '--provider', 'soft-only'],
      {
        stdout: () => {},
        stderr: (l) => err.push(l),
        readFile: async () =>
          [
            'ladder:',
            '  - { action: SoftReboot }',
            '  - { action: Command, command: [/bin/false] }',
            '  - { action: Webhook, url: "https://ops.example/replace" }',
            '  - { action: HardReboot }',
          ].join('\n'),
        providers: { 'soft-only': { name: 'soft-only-fake', options: {}, create: softOnly } },
      },
    );
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(
      /the policy's ladder uses HardReboot, which provider "soft-only-fake" cannot execute \(it can: SoftReboot, Command, Webhook\)/,
    );
  });
});
