import { describe, expect, it } from 'vitest';
import { parseTestbedStatus, testbedProblem, testbedStateDir } from './testbed-check.js';

const status = `mariadb          running (pid 10839)
rabbitmq         running (pid 10871)
nova-api         stopped
nova-compute     running (pid 11305)
`;

describe('the test bed check of --openstack real', () => {
  it('reads testbed.sh status', () => {
    expect(parseTestbedStatus(status)).toEqual({
      running: ['mariadb', 'rabbitmq', 'nova-compute'],
      stopped: ['nova-api'],
    });
  });

  it('uses the state directory testbed.sh uses', () => {
    expect(testbedStateDir({ NODEREPAIR_OPENSTACK_STATE: '/x/os' })).toBe('/x/os');
    expect(testbedStateDir({})).toMatch(/\.cache\/noderepair\/openstack$/);
  });

  it('not installed: names install and start', () => {
    const p = testbedProblem({
      installed: false,
      stateDir: '/s',
      running: [],
      stopped: ['mariadb'],
    });
    expect(p).toContain('not installed (no /s/.installed)');
    expect(p).toContain(
      'bash packages/openstack-testbed/testbed.sh install && bash packages/openstack-testbed/testbed.sh start',
    );
  });

  it('installed but a service stopped: names the services and start', () => {
    const p = testbedProblem({
      installed: true,
      stateDir: '/s',
      ...parseTestbedStatus(status),
    });
    expect(p).toContain('not running (stopped: nova-api)');
    expect(p).toMatch(/\n {2}bash packages\/openstack-testbed\/testbed\.sh start$/);
    expect(testbedProblem({ installed: true, stateDir: '/s', running: [], stopped: [] })).toContain(
      'stopped: every service',
    );
  });

  it('installed and running: no problem', () => {
    expect(
      testbedProblem({ installed: true, stateDir: '/s', running: ['mariadb'], stopped: [] }),
    ).toBeUndefined();
  });
});
