// One definition, two halves: the CRD's OpenAPI schema and the io-ts codec must agree.
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatErrors } from '@noderepair/core/codec';
import { exampleRemediation, exampleRemediationTemplate } from './examples.js';
import {
  crds,
  decodeOpenStackRemediation,
  decodeOpenStackRemediationTemplate,
  DEFAULT_STEPS,
  OpenStackRemediationCodec,
  OpenStackRemediationTemplateCodec,
  openStackRemediationCRD,
  openStackRemediationNode,
  openStackRemediationTemplateNode,
  violations,
  type JSONSchemaProps,
} from './index.js';

/** A fast-check arbitrary of values the OpenAPI schema admits (CEL rules aside). */
function arbitraryOf(s: JSONSchemaProps, depth = 0): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 100_000 });
    case 'string':
      if (s.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().replace(/\.\d+Z$/, 'Z'));
      if (s.pattern)
        return fc
          .stringMatching(new RegExp(s.pattern))
          .filter((x) => x.length >= (s.minLength ?? 0) && x.length <= (s.maxLength ?? Infinity));
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 20, 20) });
    case 'array': {
      const item = arbitraryOf(s.items as JSONSchemaProps, depth + 1);
      const keys = s['x-kubernetes-list-map-keys'];
      const arr = fc.array(item, {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, 4),
      });
      return keys
        ? arr
            .map((xs) =>
              xs.filter(
                (x, i) =>
                  xs.findIndex((y) =>
                    keys.every(
                      (k) =>
                        (y as Record<string, unknown>)[k] === (x as Record<string, unknown>)[k],
                    ),
                  ) === i,
              ),
            )
            .filter((xs) => xs.length >= (s.minItems ?? 0))
        : arr;
    }
    case 'object': {
      if (s.additionalProperties)
        return fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }),
          arbitraryOf(s.additionalProperties, depth + 1),
          { maxKeys: 3 },
        );
      if (!s.properties) return fc.constant({});
      const req = new Set(s.required ?? []);
      const entries = Object.fromEntries(
        Object.entries(s.properties).map(([k, p]) => [k, arbitraryOf(p, depth + 1)]),
      );
      return fc.record(entries, { requiredKeys: [...req] });
    }
    default:
      return fc.constant({});
  }
}

function celMessages(s: JSONSchemaProps): string[] {
  const own = (s['x-kubernetes-validations'] ?? []).map((r) => r.message);
  const kids = [...Object.values(s.properties ?? {}), ...(s.items ? [s.items] : [])];
  return [...own, ...kids.flatMap(celMessages)];
}

describe('OpenStackRemediation API', () => {
  it('decodes the complete examples unchanged', () => {
    expect(decodeOpenStackRemediation(exampleRemediation())).toEqual(E.right(exampleRemediation()));
    expect(decodeOpenStackRemediationTemplate(exampleRemediationTemplate())).toEqual(
      E.right(exampleRemediationTemplate()),
    );
  });

  it('applies the same defaults the schema declares', () => {
    const r = decodeOpenStackRemediation({
      apiVersion: 'remediation.noderepair.dev/v1alpha1',
      kind: 'OpenStackRemediation',
      metadata: { name: 'm' },
    });
    expect(E.isRight(r) && r.right.spec).toEqual({
      steps: DEFAULT_STEPS,
      drain: { enabled: true, timeoutSeconds: 300, outOfServiceTaint: true },
      minHealthySeconds: 60,
    });
    const spec = openStackRemediationNode.openAPI().properties?.spec as JSONSchemaProps;
    expect(spec.default).toEqual({});
    expect(spec.properties?.steps?.default).toEqual(DEFAULT_STEPS);
    expect(spec.properties?.minHealthySeconds?.default).toBe(60);
    expect(spec.properties?.drain?.properties?.timeoutSeconds?.default).toBe(300);
    const step = decodeOpenStackRemediation({ spec: { steps: [{ type: 'HardReboot' }] } });
    expect(E.isRight(step) && step.right.spec.steps).toEqual([
      { type: 'HardReboot', timeoutSeconds: 600, retries: 0 },
    ]);
  });

  it('accepts everything the schema admits, and round-trips it', () => {
    const schema = openStackRemediationNode.openAPI();
    const cel = new Set(celMessages(schema));
    let accepted = 0;
    fc.assert(
      fc.property(arbitraryOf(schema), (x) => {
        const r = OpenStackRemediationCodec.decode(x);
        if (E.isLeft(r)) {
          // Only CEL rules (which OpenAPI cannot express) may reject a schema-valid value.
          for (const e of r.left) expect(cel.has(e.message ?? '')).toBe(true);
          return;
        }
        accepted++;
        const again = OpenStackRemediationCodec.decode(OpenStackRemediationCodec.encode(r.right));
        expect(again).toEqual(E.right(r.right));
      }),
      { numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(30);
  });

  it('round-trips templates the schema admits', () => {
    fc.assert(
      fc.property(arbitraryOf(openStackRemediationTemplateNode.openAPI()), (x) => {
        const r = OpenStackRemediationTemplateCodec.decode(x);
        if (E.isRight(r))
          expect(
            OpenStackRemediationTemplateCodec.decode(JSON.parse(JSON.stringify(r.right))),
          ).toEqual(E.right(r.right));
      }),
      { numRuns: 100 },
    );
  });

  it('rejects every schema violation, naming the field', () => {
    for (const [node, valid] of [
      [openStackRemediationNode, exampleRemediation()],
      [openStackRemediationTemplateNode, exampleRemediationTemplate()],
    ] as const) {
      const vs = violations(node.openAPI(), valid);
      expect(vs.length).toBeGreaterThan(40);
      for (const v of vs) {
        const r = node.codec.decode(v.value);
        expect(E.isLeft(r), `${v.path} ${v.constraint}`).toBe(true);
        if (E.isLeft(r))
          expect(formatErrors(r.left, 'object').join('\n')).toContain(`object.${v.path}`);
      }
    }
  });

  it('enforces the Rebuild/imageRef rule with its CEL twin in the schema', () => {
    const rebuild = decodeOpenStackRemediation({ spec: { steps: [{ type: 'Rebuild' }] } });
    expect(E.isLeft(rebuild) && rebuild.left).toContain(
      'object.spec.steps[0].imageRef: imageRef is required for Rebuild',
    );
    const soft = decodeOpenStackRemediation({
      spec: { steps: [{ type: 'SoftReboot', imageRef: 'x' }] },
    });
    expect(E.isLeft(soft)).toBe(true);
    const step = (openStackRemediationNode.openAPI().properties?.spec?.properties?.steps?.items ??
      {}) as JSONSchemaProps;
    expect(step['x-kubernetes-validations']?.[0]?.rule).toContain("self.type == 'Rebuild'");
  });

  it('rejects duplicate condition types (listType map)', () => {
    const o = exampleRemediation();
    o.status.conditions.push({ ...o.status.conditions[0]! });
    const r = decodeOpenStackRemediation(o);
    expect(E.isLeft(r) && r.left).toContain(
      'object.status.conditions[2]: duplicate entry for key type',
    );
  });

  it('drops unknown fields as structural pruning does (fieldValidation Ignore)', () => {
    const r = decodeOpenStackRemediation(
      { spec: { minHealthySeconds: 5, colour: 'blue' } },
      { fieldValidation: 'Ignore' },
    );
    expect(E.isRight(r) && r.right.spec).not.toHaveProperty('colour');
  });
});

describe('CRDs', () => {
  it('have the group, version, short names, status subresource and printer columns', () => {
    const [template, remediation] = crds();
    expect(template?.metadata.name).toBe(
      'openstackremediationtemplates.remediation.noderepair.dev',
    );
    expect(template?.spec.names.shortNames).toEqual(['osrt']);
    expect(template?.spec.versions[0]?.subresources).toBeUndefined();
    expect(remediation?.spec.names.shortNames).toEqual(['osr']);
    expect(remediation?.spec.versions[0]?.subresources).toEqual({ status: {} });
    expect(remediation?.spec.versions[0]?.additionalPrinterColumns.map((c) => c.name)).toEqual([
      'Phase',
      'Step',
      'Retries',
      'Last Remediated',
      'Server',
      'Age',
    ]);
  });

  it('are structural: every node has a type, objects declare properties or preserve unknown fields', () => {
    const problems: string[] = [];
    const walk = (s: JSONSchemaProps, path: string) => {
      if (!s.type) problems.push(`${path}: no type`);
      if (
        s.type === 'object' &&
        !s.properties &&
        !s.additionalProperties &&
        !s['x-kubernetes-preserve-unknown-fields'] &&
        path !== 'metadata'
      ) {
        problems.push(`${path}: object without properties`);
      }
      if (s.properties && s.additionalProperties)
        problems.push(`${path}: properties and additionalProperties`);
      for (const [k, p] of Object.entries(s.properties ?? {})) walk(p, path ? `${path}.${k}` : k);
      if (s.items) walk(s.items, `${path}[]`);
    };
    for (const crd of crds()) walk(crd.spec.versions[0]!.schema.openAPIV3Schema, '');
    expect(problems).toEqual([]);
  });

  it('printer columns point at fields the schema has', () => {
    const schema = openStackRemediationCRD().spec.versions[0]!.schema.openAPIV3Schema;
    for (const c of openStackRemediationCRD().spec.versions[0]!.additionalPrinterColumns) {
      const parts = c.jsonPath.split('.').filter(Boolean);
      if (parts[0] === 'metadata') continue;
      let s: JSONSchemaProps | undefined = schema;
      for (const p of parts) s = s?.properties?.[p];
      expect(s, c.jsonPath).toBeDefined();
    }
  });
});
