import { readFileSync } from 'node:fs';
import type {
  V1CustomResourceDefinition,
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
  AdmissionregistrationV1WebhookClientConfig,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

/**
 * In a real installation cert-manager injects the CA and a Service fronts the manager's
 * webhook server. Here the manager runs as a local process, so every client config points
 * straight at https://127.0.0.1:<port> with our CA: the same webhooks, a shorter road.
 */
export interface WebhookEndpoint {
  /** https://127.0.0.1:<port> */
  baseUrl: string;
  caPem: string;
}

const caBundle = (e: WebhookEndpoint) => Buffer.from(e.caPem).toString('base64');

/**
 * Cluster API stores v1beta2 and still serves v1beta1: the API server must call the
 * manager's /convert endpoint to translate, exactly as config/crd/patches/webhook_in_*.yaml
 * arrange in the released manifests. Single-version CRDs need no conversion.
 */
export function withConversionWebhook(crd: V1CustomResourceDefinition, e: WebhookEndpoint): V1CustomResourceDefinition {
  if (crd.spec.versions.length < 2) return crd;
  return {
    ...crd,
    spec: {
      ...crd.spec,
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1', 'v1beta1'],
          clientConfig: { url: `${e.baseUrl}/convert`, caBundle: caBundle(e) },
        },
      },
    },
  };
}

/**
 * Cluster API resolves an infrastructure kind's served version through the CRD label
 * cluster.x-k8s.io/<contract>: <versions joined by _> (the "API version labels" of the
 * provider contract); the released provider manifests add it through kustomize.
 */
export function withContractLabel(
  crd: V1CustomResourceDefinition,
  contract: string,
  versions: readonly string[],
): V1CustomResourceDefinition {
  return {
    ...crd,
    metadata: {
      ...crd.metadata,
      labels: { ...(crd.metadata?.labels ?? {}), [`cluster.x-k8s.io/${contract}`]: versions.join('_') },
    },
  };
}

function pointAt(cfg: AdmissionregistrationV1WebhookClientConfig, e: WebhookEndpoint, where: string): AdmissionregistrationV1WebhookClientConfig {
  const path = cfg.service?.path;
  if (!path) throw new Error(`${where}: clientConfig.service.path is missing (expected the manager's webhook path)`);
  return { url: `${e.baseUrl}${path}`, caBundle: caBundle(e) };
}

export type WebhookConfiguration =
  | (V1MutatingWebhookConfiguration & { kind: 'MutatingWebhookConfiguration' })
  | (V1ValidatingWebhookConfiguration & { kind: 'ValidatingWebhookConfiguration' });

/**
 * The module's config/webhook/manifests.yaml, with each webhook pointed at the local
 * manager and the configuration names prefixed so several harnesses could share a plane.
 */
export function webhookConfigurations(manifestsYaml: string, e: WebhookEndpoint, namePrefix: string): WebhookConfiguration[] {
  const out: WebhookConfiguration[] = [];
  for (const doc of parseAllDocuments(manifestsYaml)) {
    const obj: unknown = doc.toJS();
    if (obj === null || typeof obj !== 'object') continue;
    const o = obj as { kind?: unknown; metadata?: { name?: string }; webhooks?: Array<{ name: string; clientConfig: AdmissionregistrationV1WebhookClientConfig }> };
    if (o.kind !== 'MutatingWebhookConfiguration' && o.kind !== 'ValidatingWebhookConfiguration') {
      throw new Error(`webhook manifests: unexpected kind ${String(o.kind)} (expected Mutating/ValidatingWebhookConfiguration)`);
    }
    const webhooks = (o.webhooks ?? []).map((w) => ({ ...w, clientConfig: pointAt(w.clientConfig, e, `webhook ${w.name}`) }));
    out.push({
      ...(o as object),
      kind: o.kind,
      metadata: { name: `${namePrefix}-${o.metadata?.name ?? 'webhooks'}` },
      webhooks,
    } as WebhookConfiguration);
  }
  return out;
}

export function readWebhookConfigurations(path: string, e: WebhookEndpoint, namePrefix: string): WebhookConfiguration[] {
  return webhookConfigurations(readFileSync(path, 'utf8'), e, namePrefix);
}
