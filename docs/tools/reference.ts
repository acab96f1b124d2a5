// Generates the reference tables in the root README from the code, so they cannot drift:
// the repair policy from its io-ts codec and resolveRepairPolicy (types, defaults), the CRD
// fields from the same schema definitions config/crd/*.yaml is generated from, and the
// metrics from the registries the controllers really create. This file places them between
// the README's markers; each table has its own file.
import { crdReference } from './crd-reference.js';
import { formatMarkdown } from './markdown.js';
import { metricsReference } from './metrics-reference.js';
import { policyReference } from './policy-reference.js';

export { repoRoot } from './markdown.js';
export { policyFields, policyReference, type PolicyField } from './policy-reference.js';
export { crdFields, crdReference, type CrdField, type Schema } from './crd-reference.js';
export {
  capoCounterLabels,
  defaultMetricNames,
  isDefaultMetric,
  metricsReference,
  registeredMetrics,
  type MetricDoc,
} from './metrics-reference.js';

export const sections = {
  'policy-reference': async () => policyReference(),
  'crd-reference': async () => crdReference(),
  'metrics-reference': async () => metricsReference(),
} as const;
export type SectionName = keyof typeof sections;

const begin = (n: string) => `<!-- BEGIN GENERATED: ${n} (pnpm docs:reference) -->`;
const end = (n: string) => `<!-- END GENERATED: ${n} -->`;

/** The current text between a section's markers, or undefined when the markers are missing. */
export function readSection(readme: string, name: string): string | undefined {
  const a = readme.indexOf(begin(name));
  const b = readme.indexOf(end(name));
  if (a === -1 || b === -1 || b < a) return undefined;
  return readme.slice(a + begin(name).length, b).trim();
}

/** A generated section as it must appear in the README (prettier-formatted). */
export async function renderSection(name: SectionName): Promise<string> {
  return (await formatMarkdown(await sections[name]())).trim();
}

/** Replaces every generated section in the README text; throws when markers are missing. */
export async function updateReadme(readme: string): Promise<string> {
  let out = readme;
  for (const name of Object.keys(sections) as SectionName[]) {
    if (readSection(out, name) === undefined)
      throw new Error(
        `README.md: markers for ${name} are missing: ${begin(name)} ... ${end(name)}`,
      );
    const a = out.indexOf(begin(name)) + begin(name).length;
    const b = out.indexOf(end(name));
    out = `${out.slice(0, a)}\n\n${await renderSection(name)}\n\n${out.slice(b)}`;
  }
  return out;
}
