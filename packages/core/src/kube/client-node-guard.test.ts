import { describe, expect, it } from 'vitest';
import { clientNodeProblem } from './client-node-guard.js';

describe('clientNodeProblem: a client-node that cannot load on this Node, and what to install', () => {
  it('refuses client-node 2.x below Node 22.19.0 (undici 8 engines), naming 1.4.0', () => {
    for (const node of ['20.18.0', '20.20.2', 'v22.18.9', '22.0.0']) {
      const problem = clientNodeProblem('2.0.1', node, '@noderepair/core');
      expect(problem, node).toContain(
        `@kubernetes/client-node 2.0.1 needs Node >= 22.19.0 (its undici 8 does); this is Node ${node.replace(/^v/, '')}.`,
      );
      expect(problem).toContain(
        'on Node 20 install 1.4.x (npm install @kubernetes/client-node@~1.4.0)',
      );
      expect(problem).toContain(
        '@noderepair/core works with @kubernetes/client-node ^1.4.0 || ^2.0.0',
      );
    }
  });

  it('lets client-node 2.x load on Node >= 22.19.0, and 1.x on any Node', () => {
    for (const node of ['22.19.0', '22.23.5', '24.1.0', '100.0.0'])
      expect(clientNodeProblem('2.0.0', node, '@noderepair/core'), node).toBeUndefined();
    for (const node of ['20.18.0', '22.0.0'])
      expect(clientNodeProblem('1.4.0', node, '@noderepair/core'), node).toBeUndefined();
    expect(clientNodeProblem('3.0.0-rc.1', '22.18.0', 'x')).toContain('needs Node >= 22.19.0');
  });
});
