// Every node no scenario touches: noderepair must leave it alone.
import { actionsOf, isSettledHealthy, novaReboots, type DemoRecord } from '../record/timeline.js';
import { verdict, type Scenario } from './scenario.js';

export function bystanders(nodes: readonly string[]): Scenario {
  return {
    id: 'bystanders',
    title: `${nodes.length} healthy nodes`,
    expectation: 'never cordoned, never rebooted',
    nodes,
    startAt: 0,
    async play() {},
    settled: () => true,
    verify(rec: DemoRecord) {
      const touched = nodes.filter(
        (n) =>
          actionsOf(rec, n, undefined, 'noderepair').length > 0 || novaReboots(rec, n).length > 0,
      );
      const unwell = nodes.filter((n) => !isSettledHealthy(rec, n));
      return verdict([
        [
          touched.length === 0,
          `noderepair acted on none of them (acted on: ${touched.join(', ') || 'none'})`,
        ],
        [
          unwell.length === 0,
          `all Ready and schedulable at the end (not: ${unwell.join(', ') || 'none'})`,
        ],
      ]);
    },
  };
}
