// The example configs in examples/overlay/ must stay valid and generate cleanly.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { cloudInit, generate, kubeadmConfigTemplate, parseConfig } from './index.js';

const dir = fileURLToPath(new URL('../../../examples/overlay/', import.meta.url));
const configs = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('examples/overlay', () => {
  it('has the kubeadm and Cluster API examples', () => {
    expect(configs.sort()).toEqual(['cluster-api-workers.yaml', 'kubeadm-node.yaml']);
  });

  it.each(configs)('%s is valid and renders both snippet formats', (file) => {
    const c = parseConfig(readFileSync(`${dir}${file}`, 'utf8'));
    if (either.isLeft(c)) throw new Error(JSON.stringify(c.left));
    const b = generate(c.right);
    expect(either.isRight(cloudInit(b))).toBe(true);
    expect(either.isRight(kubeadmConfigTemplate(b, 'my-cluster-md-0'))).toBe(true);
    expect(b.files.length).toBeGreaterThan(2);
  });
});
