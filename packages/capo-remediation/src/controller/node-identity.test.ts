import { describe, expect, it } from 'vitest';
import { nodeIdentityMismatch } from './node-identity.js';

const server = '6a5e1c1e-8a4e-4b8e-9a43-0e5d2b3a9c11';

describe('nodeIdentityMismatch', () => {
  it('accepts a Node whose providerID names the server (either form, any case)', () => {
    for (const providerID of [
      `openstack:///${server}`,
      `openstack://RegionOne/${server}`,
      `openstack:///${server.toUpperCase()}`,
    ])
      expect(nodeIdentityMismatch({ name: 'w1', providerID }, server, 'x')).toBeUndefined();
  });

  it('refuses another server, a missing providerID and another scheme, saying which', () => {
    expect(
      nodeIdentityMismatch(
        { name: 'w1', providerID: 'openstack:///00000000-0000-4000-8000-00000000dec0' },
        server,
        'management cluster',
      ),
    ).toBe(
      `node w1 in the management cluster is server 00000000-0000-4000-8000-00000000dec0 (spec.providerID openstack:///00000000-0000-4000-8000-00000000dec0), not the Machine's server ${server}; not touching it`,
    );
    expect(nodeIdentityMismatch({ name: 'w1', providerID: undefined }, server, 'm')).toMatch(
      /has no spec.providerID/,
    );
    expect(
      nodeIdentityMismatch({ name: 'w1', providerID: `aws:///${server}` }, server, 'm'),
    ).toMatch(/openstack:\/\/ scheme/);
  });
});
