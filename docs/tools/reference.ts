// Generates the reference tables in the root README from the code itself, so they cannot
// drift: the repair policy from its io-ts codec and resolveRepairPolicy (types, defaults), the
// CRD fields from the same schema definitions config/crd/*.yaml is generated from, and the
// metrics from the registries the controllers really create. Pure apart from prettier.
import * as prettier from 'prettier';
import { fileURLToPath } from 'node:url';
import { RepairPolicyInput, resolveRepairPolicy } from '../../packages/core/src/health/policy.js';
import { RuntimeMetrics } from '../../packages/core/src/runtime/manager/metrics.js';
import { AutoRepairMetrics } from '../../packages/core/src/autorepair/metrics.js';
import { RemediationMetrics } from '../../packages/capo-remediation/src/controller/metrics.js';
import {
  openStackRemediationCRD,
  openStackRemediationTemplateCRD,
} from '../../packages/capo-remediation/src/api/index.js';
import { policyFieldMeanings } from './policy-fields.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

// ---- markdown helpers -------------------------------------------------------------------

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string): string => `\`${s}\``;

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Formats generated markdown exactly as `prettier --write` formats the README. */
export async function formatMarkdown(md: string): Promise<string> {
  const config = (await prettier.resolveConfig(`${repoRoot}README.md`)) ?? {};
  return prettier.format(md, { ...config, parser: 'markdown' });
}

// ---- repair policy ------------------------------------------------------------------------

export interface PolicyField {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
}

/** The parts of an io-ts codec the walk reads (its name and, for io-ts's own types, _tag). */
interface Tagged {
  readonly name: string;
  readonly _tag?: string;
}

function describeLeaf(c: Tagged): string {
  switch (c._tag) {
    case 'BooleanType':
      return 'bool';
    case 'StringType':
      return 'string';
    case 'NumberType':
      return 'number';
    case 'KeyofType':
      return Object.keys((c as unknown as { keys: Record<string, unknown> }).keys)
        .map(code)
        .join(' | ');
    case 'UnionType':
      if (c.name === 'IntOrPercent') return 'count or `"N%"`';
      break;
    default:
      if (c.name === 'Duration') return 'duration';
  }
  throw new Error(`policy reference: no description for codec ${c.name} (${c._tag ?? 'untagged'})`);
}

function walkPolicy(c: Tagged, path: string, required: boolean, out: PolicyField[]): void {
  switch (c._tag) {
    case 'PartialType':
    case 'InterfaceType': {
      const props = (c as unknown as { props: Record<string, Tagged> }).props;
      for (const [k, v] of Object.entries(props))
        walkPolicy(v, path ? `${path}.${k}` : k, c._tag === 'InterfaceType', out);
      return;
    }
    case 'IntersectionType':
      for (const part of (c as unknown as { types: Tagged[] }).types)
        walkPolicy(part, path, required, out);
      return;
    case 'ArrayType':
      out.push({ path, type: 'list', required });
      walkPolicy((c as unknown as { type: Tagged }).type, `${path}[]`, required, out);
      return;
    default:
      out.push({ path, type: describeLeaf(c), required });
  }
}

/** Every field of the policy codec, in declaration order. */
export function policyFields(): PolicyField[] {
  const out: PolicyField[] = [];
  walkPolicy(RepairPolicyInput as unknown as Tagged, '', false, out);
  return out;
}

function duration(ms: number): string {
  if (ms === 0) return '0';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}

function formatDefault(v: unknown, isDuration: boolean): string {
  if (v === undefined) return 'none';
  if (isDuration && typeof v === 'number') return code(duration(v));
  if (typeof v === 'boolean' || typeof v === 'number') return code(String(v));
  if (typeof v === 'string') return code(v);
  if (Array.isArray(v)) {
    return v
      .map((item: Record<string, unknown>) =>
        'action' in item
          ? `${String(item['action'])} ${duration(item['timeoutMs'] as number)} ×${String(item['attempts'])}`
          : `${String(item['type'])}=${String(item['status'])} ${duration(item['timeoutMs'] as number)}`,
      )
      .join(', ');
  }
  if (typeof v === 'object' && v !== null) {
    if ('percent' in v) return code(`${String((v as { percent: number }).percent)}%`);
    if ('count' in v) return code(String((v as { count: number }).count));
  }
  throw new Error(`policy reference: cannot format default ${JSON.stringify(v)}`);
}

/** The resolved default for a codec path, read from resolveRepairPolicy itself. */
function policyDefault(path: string, durationField: boolean): string {
  // List items get their defaults when an item omits them; resolve one minimal item of each.
  const resolved = resolveRepairPolicy({
    ladder: [{ action: 'SoftReboot' }],
    unhealthyConditions: [{ type: 'Ready', status: 'False' }],
  });
  const empty = resolveRepairPolicy({});
  if (resolved._tag === 'Left' || empty._tag === 'Left')
    throw new Error('policy reference: the default policy does not resolve');
  let node: unknown = path.includes('[]') ? resolved.right : empty.right;
  for (const seg of path.split('.')) {
    const list = seg.endsWith('[]');
    const key = list ? seg.slice(0, -2) : seg;
    const obj = node as Record<string, unknown>;
    node = key in obj ? obj[key] : obj[`${key}Ms`];
    if (list) node = (node as unknown[])[0];
  }
  return formatDefault(node, durationField);
}

export function policyReference(): string {
  const rows = policyFields().map((f) => {
    const meaning = policyFieldMeanings[f.path];
    if (meaning === undefined) throw new Error(`policy reference: no meaning for ${f.path}`);
    const def = f.required ? 'required' : policyDefault(f.path, f.type.startsWith('duration'));
    return [code(f.path), f.type, def, meaning];
  });
  return table(['field', 'type', 'default', 'meaning'], rows);
}

// ---- CRDs ---------------------------------------------------------------------------------

interface Schema {
  type?: string;
  format?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  'x-kubernetes-validations'?: Array<{ rule: string; message?: string }>;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

export interface CrdField {
  readonly path: string;
  readonly schema: Schema;
  readonly required: boolean;
}

function walkSchema(s: Schema, path: string, required: boolean, out: CrdField[]): void {
  if (s.type === 'object' && s.properties) {
    // An object gets a row only when it carries a rule of its own; its fields follow.
    if (s['x-kubernetes-validations'] && path) out.push({ path, schema: s, required });
    for (const [k, v] of Object.entries(s.properties))
      walkSchema(v, path ? `${path}.${k}` : k, s.required?.includes(k) ?? false, out);
    return;
  }
  out.push({ path, schema: s, required });
  if (s.type === 'array' && s.items?.type === 'object' && s.items.properties)
    walkSchema(s.items, `${path}[]`, false, out);
}

function schemaType(s: Schema): string {
  if (s.enum) return s.enum.map((e) => code(String(e))).join(' | ');
  if (s.type === 'string' && s.format === 'date-time') return 'date-time';
  if (s.type === 'object' && typeof s.additionalProperties === 'object')
    return `map[string]${s.additionalProperties.type ?? 'any'}`;
  if (s.type === 'array')
    return s.items?.type === 'object' ? 'list of objects' : `list of ${s.items?.type}`;
  return s.type ?? 'any';
}

function schemaRules(s: Schema): string {
  const r: string[] = [];
  if (s.minimum !== undefined && s.maximum !== undefined) r.push(`${s.minimum}-${s.maximum}`);
  else if (s.minimum !== undefined) r.push(`≥ ${s.minimum}`);
  else if (s.maximum !== undefined) r.push(`≤ ${s.maximum}`);
  if (s.minItems !== undefined || s.maxItems !== undefined)
    r.push(`${s.minItems ?? 0}-${s.maxItems ?? '∞'} items`);
  if (s.minLength !== undefined || s.maxLength !== undefined)
    r.push(`length ${s.minLength ?? 0}-${s.maxLength ?? '∞'}`);
  if (s.pattern) r.push('pattern (see the CRD)');
  if (s['x-kubernetes-list-type'] === 'map')
    r.push(`map keyed by ${(s['x-kubernetes-list-map-keys'] ?? []).map(code).join(', ')}`);
  for (const v of s['x-kubernetes-validations'] ?? []) r.push(`CEL: ${v.message ?? v.rule}`);
  return r.join('; ') || '-';
}

function schemaDefault(f: CrdField): string {
  if (f.schema.default !== undefined) {
    const d = f.schema.default;
    if (Array.isArray(d))
      return d
        .map((x) =>
          typeof x === 'object' && x !== null
            ? Object.entries(x)
                .map(([k, v]) => `${k}: ${String(v)}`)
                .join(', ')
            : String(x),
        )
        .map((x) => `{${x}}`)
        .join(', ');
    return code(typeof d === 'object' ? JSON.stringify(d) : String(d));
  }
  return f.required ? 'required' : '-';
}

export function crdFields(schema: Schema): CrdField[] {
  const out: CrdField[] = [];
  const top = schema.properties ?? {};
  for (const key of ['spec', 'status'] as const) {
    const s = top[key];
    if (s) walkSchema(s, key, false, out);
  }
  return out;
}

function crdTable(fields: readonly CrdField[]): string {
  return table(
    ['field', 'type', 'default', 'validation', 'meaning'],
    fields.map((f) => [
      code(f.path),
      schemaType(f.schema),
      schemaDefault(f),
      schemaRules(f.schema),
      f.schema.description ?? '',
    ]),
  );
}

const openAPI = (crd: ReturnType<typeof openStackRemediationCRD>): Schema =>
  crd.spec.versions[0]!.schema.openAPIV3Schema as Schema;

/** Both kinds; the template's spec.template.spec is the remediation's spec, shown once. */
export function crdReference(): string {
  const osr = openAPI(openStackRemediationCRD());
  const osrt = openAPI(openStackRemediationTemplateCRD());
  const osrSpec = osr.properties?.['spec'];
  const tmplSpec = osrt.properties?.['spec']?.properties?.['template']?.properties?.['spec'];
  if (JSON.stringify(osrSpec) !== JSON.stringify(tmplSpec))
    throw new Error(
      'crd reference: the template spec is no longer the remediation spec; list it separately',
    );
  // spec.template.spec has fields, so the walk gave it no row of its own: drop its fields
  // (they are the remediation's spec, listed below) and put one row in their place.
  const tmplFields = crdFields(osrt).filter((f) => !f.path.startsWith('spec.template.spec.'));
  const specRow: CrdField = {
    path: 'spec.template.spec',
    schema: {
      type: 'object',
      description:
        'The OpenStackRemediation `spec` below; Cluster API copies it into every OpenStackRemediation it creates.',
    },
    required: false,
  };
  return [
    '#### OpenStackRemediationTemplate (`osrt`)',
    '',
    crdTable([...tmplFields, specRow]),
    '',
    '#### OpenStackRemediation (`osr`)',
    '',
    crdTable(crdFields(osr)),
  ].join('\n');
}

// ---- metrics --------------------------------------------------------------------------------

export interface MetricDoc {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly help: string;
  readonly source: string;
}

/**
 * Labels of the capo-remediation counters (a prom-client-shaped counter without labelNames);
 * a test checks these against the `.inc({...})` calls in its source.
 */
export const capoCounterLabels: Readonly<Record<string, readonly string[]>> = {
  noderepair_openstack_remediation_actions_total: ['type', 'result'],
  noderepair_openstack_remediation_outcomes_total: ['result'],
};

/** prom-client's default process and Node.js metrics, documented as one row. */
export const isDefaultMetric = (name: string): boolean => /^(process_|nodejs_)/.test(name);

interface RegistryMetric {
  name: string;
  labelNames?: string[];
  get(): { type: string; help: string } | Promise<{ type: string; help: string }>;
}

/** Every metric the controllers register, from real registries (the manager's and ours). */
export async function registeredMetrics(): Promise<MetricDoc[]> {
  const sources: Array<[string, (r: RuntimeMetrics['registry']) => void]> = [
    ['core runtime (`runtime/manager/metrics.ts`)', () => undefined],
    ['core auto-repair (`autorepair/metrics.ts`)', (r) => void new AutoRepairMetrics(r)],
    ['capo-remediation (`controller/metrics.ts`)', (r) => void new RemediationMetrics(r)],
  ];
  const out: MetricDoc[] = [];
  const seen = new Set<string>();
  for (const [source, register] of sources) {
    // One registry per source, each with the runtime's metrics, to attribute every name.
    const runtime = new RuntimeMetrics(undefined, { defaultMetrics: false });
    const before = new Set(runtime.registry.getMetricsAsArray().map((m) => m.name));
    register(runtime.registry);
    const metrics = runtime.registry.getMetricsAsArray() as unknown as RegistryMetric[];
    for (const m of metrics) {
      const own = source.startsWith('core runtime') || !before.has(m.name);
      if (!own || seen.has(m.name)) continue;
      seen.add(m.name);
      const v = await m.get();
      const labels = m.labelNames ?? capoCounterLabels[m.name];
      if (labels === undefined) throw new Error(`metrics reference: labels of ${m.name} unknown`);
      out.push({ name: m.name, type: v.type, labels, help: v.help, source });
    }
  }
  return out;
}

/** Names of prom-client's default metrics, as the manager's registry exposes them. */
export function defaultMetricNames(): string[] {
  const runtime = new RuntimeMetrics();
  return runtime.registry
    .getMetricsAsArray()
    .map((m) => m.name)
    .filter(isDefaultMetric);
}

export async function metricsReference(): Promise<string> {
  const rows = (await registeredMetrics()).map((m) => [
    code(m.name),
    m.type,
    m.labels.map(code).join(', ') || '-',
    m.help.replace(/\.$/, ''),
  ]);
  rows.push([
    '`process_*`, `nodejs_*`',
    'various',
    '-',
    "prom-client's default metrics (CPU, resident memory, open fds, event-loop lag, heap, GC), on every controller's registry",
  ]);
  return table(['metric', 'type', 'labels', 'meaning'], rows);
}

// ---- README sections ---------------------------------------------------------------------

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
