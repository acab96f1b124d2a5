import { readFileSync } from 'node:fs';
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import './client-node-guard.js';
import {
  ApiextensionsV1Api,
  loadAllYaml,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { waitFor } from './process/wait.js';

/** A path to a YAML/JSON file (multi-document allowed) or a CRD object. */
export type CRDSource = string | V1CustomResourceDefinition;

function isCRD(o: unknown): o is V1CustomResourceDefinition {
  return typeof o === 'object' && o !== null && (o as { kind?: unknown }).kind === 'CustomResourceDefinition';
}

/**
 * Reads CRD objects from files and passes objects through. Throws when a file holds no
 * CustomResourceDefinition; other documents in a file are ignored.
 */
export function loadCRDs(sources: CRDSource[]): V1CustomResourceDefinition[] {
  const out: V1CustomResourceDefinition[] = [];
  for (const s of sources) {
    if (typeof s !== 'string') {
      out.push(s);
      continue;
    }
    const docs = loadAllYaml(readFileSync(s, 'utf8')) as unknown[];
    const crds = docs.filter(isCRD);
    if (crds.length === 0) throw new Error(`${s}: no CustomResourceDefinition found`);
    out.push(...crds);
  }
  return out;
}

function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Creates (or updates) each CRD and waits until the API server reports it Established, so a
 * test can create custom resources right after this resolves.
 */
export async function installCRDs(kc: KubeConfig, sources: CRDSource[], timeoutMs = 30_000): Promise<string[]> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const crds = loadCRDs(sources);
  const names: string[] = [];
  for (const crd of crds) {
    const name = crd.metadata?.name;
    if (!name) throw new Error('a CustomResourceDefinition has no metadata.name');
    const body = { ...crd, metadata: { ...crd.metadata, resourceVersion: undefined } } as V1CustomResourceDefinition;
    try {
      await api.createCustomResourceDefinition({ body });
    } catch (err) {
      if (statusCode(err) !== 409) throw new Error(`installing CRD ${name}: ${(err as Error).message}`, { cause: err });
      const current = await api.readCustomResourceDefinition({ name });
      body.metadata = { ...body.metadata, resourceVersion: current.metadata?.resourceVersion };
      await api.replaceCustomResourceDefinition({ name, body });
    }
    names.push(name);
  }
  for (const name of names) {
    await waitFor(
      `CRD ${name} Established`,
      async () => {
        const c = await api.readCustomResourceDefinition({ name });
        const est = c.status?.conditions?.find((x) => x.type === 'Established');
        return est?.status === 'True' ? true : undefined;
      },
      timeoutMs,
      100,
    );
  }
  return names;
}
