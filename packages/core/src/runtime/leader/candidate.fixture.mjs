// A leader-election candidate in its own process, so the integration test can SIGKILL it
// (no graceful release, exactly like a crashed pod). Run with: node --import tsx <this>
//   <kubeconfig> <namespace> <lease> <identity>
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../kube/index.js';
import { LeaderElector } from './leader-elector.js';

const [kubeconfig, namespace, name, identity] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const elector = new LeaderElector({
  client: createKubeClient(kc),
  namespace,
  name,
  identity,
  leaseDurationMs: 4000,
  renewDeadlineMs: 3000,
  retryPeriodMs: 500,
  onStartedLeading: () => process.stdout.write('LEADING\n'),
});
await elector.run(new AbortController().signal);
