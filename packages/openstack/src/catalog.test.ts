import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { selectEndpoint, type Catalog } from './catalog.js';

const catalog: Catalog = [
  { type: 'identity', endpoints: [{ interface: 'public', region_id: 'R1', url: 'https://k/v3' }] },
  {
    type: 'compute',
    endpoints: [
      { interface: 'public', region_id: 'R1', url: 'https://nova-r1/v2.1/' },
      { interface: 'internal', region_id: 'R1', url: 'http://nova-r1.internal/v2.1' },
      { interface: 'public', region_id: 'R2', url: 'https://nova-r2/v2.1' },
      { interface: 'admin', region: 'R2', region_id: null, url: 'https://nova-r2-admin/v2.1' },
    ],
  },
];

describe('selectEndpoint', () => {
  it('picks by interface and region and drops the trailing slash', () => {
    expect(
      selectEndpoint(catalog, { serviceType: 'compute', interface: 'public', region: 'R1' }),
    ).toEqual(E.right('https://nova-r1/v2.1'));
    expect(
      selectEndpoint(catalog, { serviceType: 'compute', interface: 'internal', region: 'R1' }),
    ).toEqual(E.right('http://nova-r1.internal/v2.1'));
    expect(
      selectEndpoint(catalog, { serviceType: 'compute', interface: 'public', region: 'R2' }),
    ).toEqual(E.right('https://nova-r2/v2.1'));
  });

  it('understands the old "region" field', () => {
    expect(
      selectEndpoint(catalog, { serviceType: 'compute', interface: 'admin', region: 'R2' }),
    ).toEqual(E.right('https://nova-r2-admin/v2.1'));
  });

  it('uses the single region when none is asked for', () => {
    expect(
      selectEndpoint(catalog, { serviceType: 'compute', interface: 'internal', region: undefined }),
    ).toEqual(E.right('http://nova-r1.internal/v2.1'));
  });

  it('refuses to guess between regions', () => {
    const r = selectEndpoint(catalog, {
      serviceType: 'compute',
      interface: 'public',
      region: undefined,
    });
    expect(E.isLeft(r) && r.left).toContain('several regions (R1, R2); set region_name');
  });

  it('explains a missing service, interface or region', () => {
    const miss = (q: Parameters<typeof selectEndpoint>[1]) => {
      const r = selectEndpoint(catalog, q);
      return E.isLeft(r) ? r.left : 'found';
    };
    expect(miss({ serviceType: 'image', interface: 'public', region: 'R1' })).toBe(
      'no "image" service in the catalog (services: compute, identity)',
    );
    expect(miss({ serviceType: 'identity', interface: 'admin', region: 'R1' })).toBe(
      'service "identity" has no admin endpoint (interfaces: public)',
    );
    expect(miss({ serviceType: 'compute', interface: 'internal', region: 'R2' })).toBe(
      'service "compute" has no internal endpoint in region "R2" (regions: R1)',
    );
  });

  it('reports two different URLs for the same region and interface', () => {
    const dup: Catalog = [
      {
        type: 'compute',
        endpoints: [
          { interface: 'public', region_id: 'R', url: 'https://a' },
          { interface: 'public', region_id: 'R', url: 'https://b' },
        ],
      },
    ];
    const r = selectEndpoint(dup, { serviceType: 'compute', interface: 'public', region: 'R' });
    expect(E.isLeft(r) && r.left).toContain('2 different public endpoints');
  });
});
