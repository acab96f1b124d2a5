// The repair policy comes from a ConfigMap, read with KFC's fluent API the way a Pepr
// operator reads its own objects. This example only ever runs the policy in dry-run.
import { resolveRepairPolicy, type RepairPolicy } from '@noderepair/core';
import { K8s, kind } from 'kubernetes-fluent-client';
import { parse } from 'yaml';

export const PolicyKey = 'policy.yaml';

/** Pure: the ConfigMap's data to a dry-run policy, or an error naming what is wrong. */
export function policyFromConfigMap(
  where: string,
  data: Record<string, string> | undefined,
): RepairPolicy {
  const text = data?.[PolicyKey];
  if (text === undefined)
    throw new Error(
      `ConfigMap ${where}: expected the key ${PolicyKey} with the repair policy YAML`,
    );
  let input: unknown;
  try {
    input = parse(text);
  } catch (err) {
    throw new Error(
      `ConfigMap ${where} ${PolicyKey}: not YAML: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  const policy = resolveRepairPolicy(input);
  if (policy._tag === 'Left') throw new Error(`ConfigMap ${where} ${PolicyKey}: ${policy.left}`);
  // An example must never reboot anything: decisions are reported, nothing is changed.
  return { ...policy.right, dryRun: true };
}

export async function loadPolicy(namespace: string, name: string): Promise<RepairPolicy> {
  const cm = await K8s(kind.ConfigMap).InNamespace(namespace).Get(name);
  return policyFromConfigMap(`${namespace}/${name}`, cm.data);
}
