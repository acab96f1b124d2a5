/**
 * A real etcd + kube-apiserver (+ kube-controller-manager) for tests, in the spirit of
 * controller-runtime's envtest, plus a fake kubelet per node and the download of the pinned
 * binaries. Subpaths: `/vitest` (a test file's handle on its worker's shared control plane) and
 * `/vitest/global-setup` (the vitest global setup that starts one control plane per worker).
 *
 * @packageDocumentation
 */
export { ControlPlane, startControlPlane } from './control-plane.js';
export type { ControlPlaneOptions, ControllerManagerOptions } from './control-plane.js';
export {
  ensureAssets,
  ensureKubelet,
  findAssets,
  cacheDir,
  KUBERNETES_VERSION,
  ETCD_VERSION,
  NO_ASSETS_HELP,
} from './assets.js';
export type { Assets } from './assets.js';
export { installCRDs, loadCRDs } from './crds.js';
export type { CRDSource } from './crds.js';
export { FakeKubelet, startFakeKubelet, KubeletNotReadyMessages } from './fake-kubelet.js';
export type { FakeKubeletOptions } from './fake-kubelet.js';
// loadKubeConfigFile: core's loadKubeConfig is the kubeconfig/in-cluster loader of a controller;
// this one reads a file into a @kubernetes/client-node KubeConfig.
export {
  loadKubeConfig as loadKubeConfigFile,
  kubeConfigFor,
  writeKubeconfig,
} from './kubeconfig.js';
export { ManagedProcess, liveProcesses } from './process/managed-process.js';
export { freePort } from './process/ports.js';
export { GaveUp, waitFor } from './process/wait.js';
