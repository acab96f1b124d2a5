// Core's own kubeconfig loader: no @kubernetes/client-node unless a plugin needs it.
export {
  type ClusterConfig,
  type ClusterAuth,
  type Material,
  isClusterConfig,
} from './cluster-config.js';
export { Secret } from './secret.js';
export {
  loadKubeConfig,
  parseKubeConfig,
  inClusterConfig,
  KubeConfigError,
  SERVICE_ACCOUNT_DIR,
  type LoadKubeConfigOptions,
  type ParseKubeConfigOptions,
} from './load.js';
