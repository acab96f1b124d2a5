// The repair-policy table: fields and types from the io-ts codec, defaults from
// resolveRepairPolicy itself, meanings from policy-fields.ts.
import { RepairPolicyInput, resolveRepairPolicy } from '../../packages/core/src/health/policy.js';
import { code, table } from './markdown.js';
import { policyFieldMeanings } from './policy-fields.js';

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
      if (c.name === 'Attempts') return 'number';
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
      // A list of strings (a Command's argv) or of names (the coordination actors) is one
      // field, not a list of fields.
      if ((c as unknown as { type: Tagged }).type._tag === 'StringType') {
        out.push({ path, type: 'list of string', required });
        return;
      }
      if ((c as unknown as { type: Tagged }).type._tag === 'KeyofType') {
        out.push({
          path,
          type: `list of ${describeLeaf((c as unknown as { type: Tagged }).type)}`,
          required,
        });
        return;
      }
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
  if (Array.isArray(v) && v.every((item) => typeof item === 'string'))
    return v.map((item: string) => code(item)).join(', ');
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
  // A condition rule's own ladder: its steps default as the policy ladder's do.
  const ruleStep = 'unhealthyConditions[].ladder[].';
  if (path.startsWith(ruleStep))
    return policyDefault(`ladder[].${path.slice(ruleStep.length)}`, durationField);
  if (path === 'unhealthyConditions[].ladder') return "the policy's `ladder`";
  // List items get their defaults when an item omits them; resolve one minimal item of each
  // (and of each ladder step kind with fields of its own: the site steps' timeouts).
  const minimal: Record<string, Record<string, unknown>[]> = {
    ladder: [
      { action: 'SoftReboot' },
      { action: 'Command', command: ['x'] },
      { action: 'Webhook', url: 'https://x.example/' },
    ],
    unhealthyConditions: [{ type: 'Ready', status: 'False' }],
  };
  // A section that is off unless written (stormGuard.latch) gets its fields' defaults when
  // written empty.
  const resolved = resolveRepairPolicy({ ...minimal, stormGuard: { latch: {} } });
  const empty = resolveRepairPolicy({});
  if (resolved._tag === 'Left' || empty._tag === 'Left')
    throw new Error('policy reference: the default policy does not resolve');
  let node: unknown =
    path.includes('[]') || path.startsWith('stormGuard.latch.') ? resolved.right : empty.right;
  const segs = path.split('.');
  segs.forEach((seg, i) => {
    const list = seg.endsWith('[]');
    const key = list ? seg.slice(0, -2) : seg;
    const obj = node as Record<string, unknown>;
    node = key in obj ? obj[key] : obj[`${key}Ms`];
    if (!list) return;
    // The first item that got the next field without writing it (a step kind's own default,
    // such as a Command's commandTimeout), else the first item.
    const items = node as Record<string, unknown>[];
    const written = minimal[key] ?? [];
    const next = segs[i + 1];
    const j =
      next === undefined
        ? -1
        : items.findIndex(
            (it, n) => (next in it || `${next}Ms` in it) && !(next in (written[n] ?? {})),
          );
    node = items[j === -1 ? 0 : j];
  });
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
