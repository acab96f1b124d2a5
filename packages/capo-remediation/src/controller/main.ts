#!/usr/bin/env node
// The controller process (the image's CMD: dist/controller/main.js). Flags as in
// config/manager/manager.yaml; SIGTERM finishes in-flight reconciles and releases the Lease.
import { realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createKubeClient, inClusterConfig, loadKubeConfig } from '@noderepair/core/kube';
import { Manager } from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import { addRemediationController } from './controller.js';
import { parseFlags, USAGE, type ControllerFlags } from './flags.js';

export async function run(flags: ControllerFlags): Promise<void> {
  // Core's loader: @kubernetes/client-node is imported only for exec/auth-provider plugins.
  const kubeConfig = flags.kubeconfig
    ? await loadKubeConfig({ path: flags.kubeconfig })
    : await inClusterConfig();
  const client = createKubeClient(kubeConfig);
  const manager = new Manager({
    name: 'capo-remediation',
    probes: {
      port: flags.healthProbeBindAddress.port,
      ...(flags.healthProbeBindAddress.host ? { host: flags.healthProbeBindAddress.host } : {}),
    },
    handleSignals: true,
    ...(flags.leaderElect
      ? {
          leaderElection: {
            client,
            namespace: flags.leaderElectionNamespace,
            name: flags.leaderElectionId,
            identity: flags.identity,
          },
        }
      : {}),
  });
  addRemediationController(manager, {
    client,
    namespace: flags.namespace,
    identity: flags.identity,
    concurrency: flags.concurrency,
    workloadClusterAccess: flags.workloadClusterAccess,
    defaultIdentity: flags.defaultIdentitySecret
      ? { secretName: flags.defaultIdentitySecret, cloudName: flags.defaultCloudName }
      : undefined,
  });
  const metricsAddr = flags.metricsBindAddress;
  const metricsServer = metricsAddr
    ? createServer((req, res) => {
        if (req.url !== '/metrics') {
          res.writeHead(404).end();
          return;
        }
        manager.metrics.registry.metrics().then(
          (text) =>
            res.writeHead(200, { 'content-type': manager.metrics.registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      })
    : undefined;
  if (metricsServer && metricsAddr) {
    await new Promise<void>((resolve) =>
      metricsServer.listen(metricsAddr.port, metricsAddr.host, resolve),
    );
    manager.log.info({ port: metricsAddr.port }, 'metrics listening');
  }
  try {
    await manager.start();
  } finally {
    metricsServer?.close();
  }
}

// Through the package bin, argv[1] is a symlink: compare real paths.
const isMain =
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isMain) {
  const parsed = parseFlags(process.argv.slice(2), process.env);
  if (E.isLeft(parsed)) {
    process.stderr.write(`${parsed.left}\n`);
    process.exit(2);
  }
  if (parsed.right === 'help') {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  run(parsed.right).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
