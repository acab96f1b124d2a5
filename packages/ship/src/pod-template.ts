// A Deployment's pod template, as the install bundles ship it, turned into the `podman run`
// that plays its Pod: the same image, args, env, user, read-only root file system, dropped
// capabilities, no privilege escalation, emptyDir volumes as tmpfs, ConfigMap/Secret volumes
// as read-only bind mounts, and the service account token where the kubelet mounts it (the
// controllers then load the in-cluster config, as in a cluster). Pure: returns the arguments.
import YAML from 'yaml';

export interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  securityContext?: {
    runAsUser?: number;
    runAsGroup?: number;
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  [k: string]: unknown;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: {
    serviceAccountName?: string;
    terminationGracePeriodSeconds?: number;
    securityContext?: { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean };
    containers: Container[];
    volumes?: Array<{
      name: string;
      emptyDir?: { sizeLimit?: string };
      configMap?: { name: string };
      secret?: { secretName: string };
    }>;
    [k: string]: unknown;
  };
}

export interface KubeDoc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  spec?: { template?: PodTemplate; [k: string]: unknown };
  [k: string]: unknown;
}

export function parseDocs(text: string): KubeDoc[] {
  return YAML.parseAllDocuments(text)
    .map((d) => d.toJS() as KubeDoc | null)
    .filter((d): d is KubeDoc => d !== null && typeof d === 'object');
}

/** The one Deployment of a bundle. */
export function deploymentOf(
  docs: readonly KubeDoc[],
): KubeDoc & { spec: { template: PodTemplate } } {
  const ds = docs.filter((d) => d.kind === 'Deployment');
  if (ds.length !== 1 || !ds[0]?.spec?.template)
    throw new Error(`expected one Deployment with a pod template, found ${ds.length}`);
  return ds[0] as KubeDoc & { spec: { template: PodTemplate } };
}

export interface PodRun {
  /** Container name (podman) and the pod's name (POD_NAME, the Lease identity). */
  podName: string;
  namespace: string;
  image: string;
  /** Host paths for the pod's ConfigMap and Secret volumes, by volume name. */
  volumeSources: Record<string, string>;
  /** Directory holding token, ca.crt, namespace (the projected service account volume). */
  serviceAccountDir: string;
  apiServer: { host: string; port: number };
  /** Loopback ports for the listeners: replaces the template's `--*-bind-address` values. */
  metricsPort: number;
  probePort: number;
}

const bindFlag = /^--(metrics-bind-address|health-probe-bind-address)(=|$)/;

/** The container's args with the listeners on loopback ports (both replicas share the host's network). */
export function argsOnLoopback(
  args: readonly string[],
  r: Pick<PodRun, 'metricsPort' | 'probePort'>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const m = bindFlag.exec(a);
    if (!m) {
      out.push(a);
      continue;
    }
    if (m[2] === '') i++; // "--flag value" form
    const port = m[1] === 'metrics-bind-address' ? r.metricsPort : r.probePort;
    out.push(`--${m[1]}=127.0.0.1:${port}`);
  }
  for (const [flag, port] of [
    ['metrics-bind-address', r.metricsPort],
    ['health-probe-bind-address', r.probePort],
  ] as const)
    if (!out.some((a) => a.startsWith(`--${flag}`))) out.push(`--${flag}=127.0.0.1:${port}`);
  return out;
}

function tmpfsSize(limit: string | undefined): string {
  const m = /^(\d+)(Mi|Gi)?$/.exec(limit ?? '');
  if (!m) return '64m';
  return `${m[1]}${m[2] === 'Gi' ? 'g' : 'm'}`;
}

/** `podman run` arguments (after `run`) for one replica of the template's first container. */
export function podmanRunArgs(t: PodTemplate, r: PodRun): string[] {
  const c = t.spec.containers[0];
  if (!c) throw new Error('the pod template has no container');
  const podSc = t.spec.securityContext ?? {};
  const sc = c.securityContext ?? {};
  const uid = sc.runAsUser ?? podSc.runAsUser;
  const gid = sc.runAsGroup ?? podSc.runAsGroup ?? uid;
  const args = ['--name', r.podName, '--hostname', r.podName];
  if (uid !== undefined) args.push('--user', `${uid}:${gid}`);
  if (sc.readOnlyRootFilesystem) args.push('--read-only', '--read-only-tmpfs=false');
  if (sc.capabilities?.drop?.includes('ALL')) args.push('--cap-drop', 'all');
  if (sc.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
  for (const e of c.env ?? []) {
    const path = e.valueFrom?.fieldRef?.fieldPath;
    const value =
      e.value ??
      (path === 'metadata.name'
        ? r.podName
        : path === 'metadata.namespace'
          ? r.namespace
          : undefined);
    if (value === undefined)
      throw new Error(`env ${e.name}: no value the test can give (${JSON.stringify(e.valueFrom)})`);
    args.push('--env', `${e.name}=${value}`);
  }
  // What the kubelet gives every Pod: the API server's address and the account's token.
  args.push('--env', `KUBERNETES_SERVICE_HOST=${r.apiServer.host}`);
  args.push('--env', `KUBERNETES_SERVICE_PORT=${r.apiServer.port}`);
  args.push('--volume', `${r.serviceAccountDir}:/var/run/secrets/kubernetes.io/serviceaccount:ro`);
  const volumes = new Map((t.spec.volumes ?? []).map((v) => [v.name, v]));
  for (const m of c.volumeMounts ?? []) {
    const v = volumes.get(m.name);
    if (!v) throw new Error(`volumeMount ${m.name}: no such volume`);
    if (v.emptyDir)
      args.push(
        '--tmpfs',
        `${m.mountPath}:rw,nosuid,nodev,size=${tmpfsSize(v.emptyDir.sizeLimit)},mode=1777`,
      );
    else {
      const src = r.volumeSources[m.name];
      if (!src) throw new Error(`volume ${m.name}: the test gave no host directory for it`);
      // ConfigMap and Secret volumes are read-only whatever the mount says.
      args.push('--volume', `${src}:${m.mountPath}:ro`);
    }
  }
  args.push(r.image, ...argsOnLoopback(c.args ?? [], r));
  return args;
}
