// The README's client example is examples/reboot-with-fake-openstack.ts verbatim, and it runs.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('embeds the runnable example verbatim', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = readFileSync(join(root, 'examples', 'reboot-with-fake-openstack.ts'), 'utf8');
    expect(readme).toContain(example.trim());
  });
});
