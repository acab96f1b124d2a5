// Fails fast, saying what to install, when the @kubernetes/client-node installed beside this
// package cannot load on this Node. client-node 2.x depends on undici 8, whose engines say
// Node >= 22.19.0; npm only warns about that (EBADENGINE) and installs it on Node 20 anyway
// (an unpinned install takes the newest version the peer range ^1.4.0 || ^2.0.0 admits), and
// then the first import crashes deep inside undici ("Cannot read properties of undefined
// (reading 'bind')"). Every module of this package that loads client-node at run time imports
// this one first, so ESM evaluates it before client-node's module graph.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT_NODE = '@kubernetes/client-node';
/** The Node client-node 2.x needs: the `engines` of undici 8, its HTTP dependency. */
const NODE_FOR_CLIENT_NODE_2 = [22, 19, 0] as const;

const numbers = (version: string) =>
  version
    .replace(/^v/, '')
    .split(/[.+-]/)
    .slice(0, 3)
    .map((n) => Number.parseInt(n, 10) || 0);

function atLeast(version: string, min: readonly number[]): boolean {
  const v = numbers(version);
  for (let i = 0; i < min.length; i++) if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) > min[i]!;
  return true;
}

/**
 * Why `clientNodeVersion` of @kubernetes/client-node cannot load on Node `nodeVersion`, with
 * what to install instead; undefined when it can.
 */
export function clientNodeProblem(
  clientNodeVersion: string,
  nodeVersion: string,
  dependent: string,
): string | undefined {
  if (numbers(clientNodeVersion)[0]! < 2 || atLeast(nodeVersion, NODE_FOR_CLIENT_NODE_2))
    return undefined;
  const min = NODE_FOR_CLIENT_NODE_2.join('.');
  return (
    `${CLIENT_NODE} ${clientNodeVersion} needs Node >= ${min} (its undici 8 does); ` +
    `this is Node ${nodeVersion.replace(/^v/, '')}. ${dependent} works with ${CLIENT_NODE} ` +
    `^1.4.0 || ^2.0.0: on Node 20 install 1.4.x (npm install ${CLIENT_NODE}@~1.4.0), ` +
    `or run on Node >= ${min}.`
  );
}

/** The version of the client-node this module would import; undefined when none is found. */
function installedClientNode(): string | undefined {
  let manifest: string | undefined;
  try {
    manifest = createRequire(import.meta.url).resolve(`${CLIENT_NODE}/package.json`);
  } catch {
    // A client-node whose "exports" hides package.json: walk up from its entry point.
    try {
      let dir = dirname(fileURLToPath(import.meta.resolve(CLIENT_NODE)));
      while (manifest === undefined && dir !== dirname(dir)) {
        const candidate = join(dir, 'package.json');
        try {
          if (
            (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown }).name === CLIENT_NODE
          )
            manifest = candidate;
        } catch {
          // no package.json here
        }
        dir = dirname(dir);
      }
    } catch {
      return undefined; // not installed: the import itself will say so
    }
  }
  if (manifest === undefined) return undefined;
  try {
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

const version = installedClientNode();
const problem = version && clientNodeProblem(version, process.versions.node, '@noderepair/envtest');
if (problem) throw new Error(problem);
