// The operator's settings, from environment variables (how a Pepr module or a Deployment
// passes them). Pure: takes the environment, returns the settings or every problem found.
export interface OperatorConfig {
  /** Namespace of the policy and status ConfigMaps. */
  namespace: string;
  /** ConfigMap holding the repair policy YAML under the key `policy.yaml`. */
  policyConfigMap: string;
  /** ConfigMap the operator writes the fleet's repair status into. */
  statusConfigMap: string;
  /** Only Nodes matching this selector are judged and counted. */
  labelSelector?: string;
  /** How often the status ConfigMap is refreshed. */
  statusIntervalMs: number;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function readConfig(env: Record<string, string | undefined>): OperatorConfig {
  const problems: string[] = [];
  const namespace = env['NAMESPACE'] ?? env['POD_NAMESPACE'] ?? '';
  if (!DNS_LABEL.test(namespace))
    problems.push(
      `NAMESPACE (or POD_NAMESPACE): expected a namespace name, got ${JSON.stringify(namespace)}`,
    );
  const name = (key: string, fallback: string) => {
    const v = env[key] ?? fallback;
    if (!DNS_SUBDOMAIN.test(v))
      problems.push(`${key}: expected a ConfigMap name, got ${JSON.stringify(v)}`);
    return v;
  };
  const policyConfigMap = name('POLICY_CONFIGMAP', 'noderepair-policy');
  const statusConfigMap = name('STATUS_CONFIGMAP', 'noderepair-status');
  const interval = Number(env['STATUS_INTERVAL_SECONDS'] ?? '10');
  if (!Number.isFinite(interval) || interval <= 0)
    problems.push(
      `STATUS_INTERVAL_SECONDS: expected a positive number of seconds, got ${JSON.stringify(env['STATUS_INTERVAL_SECONDS'])}`,
    );
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  const labelSelector = env['LABEL_SELECTOR'] || undefined;
  return {
    namespace,
    policyConfigMap,
    statusConfigMap,
    statusIntervalMs: interval * 1000,
    ...(labelSelector !== undefined ? { labelSelector } : {}),
  };
}
