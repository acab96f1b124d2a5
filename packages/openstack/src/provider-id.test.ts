import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatProviderID, parseProviderID } from './provider-id.js';

const uuid = '6a5e1c1e-8a4e-4b8e-9a43-0e5d2b3a9c11';

describe('parseProviderID', () => {
  it('reads openstack:///<uuid>', () => {
    expect(parseProviderID(`openstack:///${uuid}`)).toEqual(
      E.right({ serverId: uuid, region: undefined }),
    );
  });

  it('reads openstack://<region>/<uuid>', () => {
    expect(parseProviderID(`openstack://RegionOne/${uuid}`)).toEqual(
      E.right({ serverId: uuid, region: 'RegionOne' }),
    );
  });

  it('lower-cases the uuid as Nova reports it', () => {
    expect(parseProviderID(`openstack:///${uuid.toUpperCase()}`)).toEqual(
      E.right({ serverId: uuid, region: undefined }),
    );
  });

  it.each([
    ['aws:///i-123', 'expected the openstack:// scheme'],
    ['', 'expected the openstack:// scheme'],
    [`openstack://${uuid}`, 'note the three slashes'],
    ['openstack:///not-a-uuid', 'server id "not-a-uuid" is not a UUID'],
    [`openstack://a/b/${uuid}`, 'expected exactly'],
    [`openstack://bad region/${uuid}`, 'region "bad region" contains invalid characters'],
  ])('rejects %j: %s', (input, message) => {
    const r = parseProviderID(input);
    expect(E.isLeft(r) && r.left).toContain(message);
  });

  it('round-trips every valid id', () => {
    const region = fc.option(fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/), { nil: undefined });
    fc.assert(
      fc.property(fc.uuid(), region, (id, r) => {
        const p = { serverId: id.toLowerCase(), region: r };
        expect(parseProviderID(formatProviderID(p))).toEqual(E.right(p));
      }),
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseProviderID(s);
      }),
    );
  });
});
