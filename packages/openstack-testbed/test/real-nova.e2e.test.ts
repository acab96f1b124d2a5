// The Nova contract against the REAL Keystone + Nova (fake virt driver) of testbed.sh.
import { computeUrl, issueToken, startOpenStackTestbed } from '../src/index.js';
import { describeNovaContract } from './contract/nova-contract.js';

describeNovaContract('real Nova (testbed)', async () => {
  const tb = await startOpenStackTestbed();
  const token = await issueToken(tb.authUrl, tb.password, tb.region);
  return {
    cloudsYaml: tb.cloudsYaml,
    cloudName: 'testbed',
    appCredCloudName: 'testbed-appcred',
    expectedComputeUrl: computeUrl(token),
    createServer: (name) => tb.createServer(name),
    pauseCompute: () => tb.pauseCompute(),
    resumeCompute: () => tb.resumeCompute(),
    forceError: (uuid) => tb.resetServerState(uuid, 'error'),
    countReboots: async (uuid) =>
      (await tb.novaActions(uuid)).filter((a) => a.action === 'reboot').length,
    // The suite's global setup stops the testbed after the last file.
    close: async () => undefined,
  };
});
