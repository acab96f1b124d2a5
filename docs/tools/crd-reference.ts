// The CRD tables, from the same definitions config/crd/*.yaml is generated from.
import {
  openStackRemediationCRD,
  openStackRemediationTemplateCRD,
} from '../../packages/capo-remediation/src/api/index.js';
import { code, table } from './markdown.js';

export interface Schema {
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
