// @ts-check
// The architecture's layering, as rules the build enforces. This file is the one place they
// are written; two checkers read it:
//
// - `pnpm lint` (eslint.config.js turns the lists below into ESLint's `no-restricted-imports`,
//   one block per folder; CI runs it first): each import that breaks a rule is an error that
//   names the rule and this file.
// - `pnpm exec vitest run --project docs docs/tools/layers.test.ts` (docs/tools/layers.ts, CI):
//   the same order over the resolved imports, plus what a per-file lint rule cannot see:
//   circles of files, folders the lists do not place, known circles that are gone.
//
// The rules, for each layered package below: its src/ folders stand in layers, lowest first. A
// folder may import its own files and the folders of LOWER layers, nothing else: not a higher
// layer, not a folder of its own layer (folders that share a layer are peers that know nothing
// of each other), not a folder missing from the list. A file directly under src/ (the package's
// face, index.ts) is placed like a folder, on top: it may import any folder, and no folder may
// import it. Product code (every .ts file but *.test.ts) never imports a test or a
// *.test-support.* file, nor its own package by name (import the folder by relative path, so
// these rules see it). Tests (*.test.ts, *.int.test.ts) may import any folder of their package
// and test support. Folders must not import each other in a circle (the order already forbids
// it), nor may the files of one folder.
//
// To add a folder, place it here; to let a folder use another, the other must stand lower.
// packages/core/README.md ("Layers") says what each of core's folders is.

/**
 * Lowest layer first; an entry is one folder (or a file directly under src/), or several peer
 * folders that share a layer.
 * @typedef {readonly (string | readonly string[])[]} LayerOrder
 */

/**
 * @noderepair/core: packages/core/src.
 * @type {LayerOrder}
 */
export const coreLayers = [
  'codec', // reading user and wire input: io-ts helpers and their error messages
  'kube', // the Kubernetes API: KubeClient, resources, errors, kubeconfig
  'runtime', // the controller runtime: informers, queue, controllers, leader election, Manager
  'health', // the repair judgement: pure, from what a Node shows to the next state and actions
  ['mhc', 'provider', 'drain'], // MHC semantics; the machine provider port; draining a node
  'autorepair', // the standalone controller: the judgement, the provider and drain wired to kube
  ['cli', 'testing'], // the noderepair command; test doubles for users' tests
  'index.ts', // the package's face
];

/**
 * @noderepair/capo-remediation: packages/capo-remediation/src.
 * @type {LayerOrder}
 */
export const capoLayers = [
  'api', // the OpenStackRemediation CRDs
  'capi', // Cluster API and CAPO objects as this controller reads them
  ['controller', 'manifests'], // the reconciler; the install manifests
  ['openstack', 'testing'], // Nova wiring; test support
  'index.ts',
];

/**
 * The layered packages: name, source folder (relative to the repository root) and order.
 * @type {readonly { readonly name: string; readonly src: string; readonly layers: LayerOrder }[]}
 */
export const layeredPackages = [
  { name: '@noderepair/core', src: 'packages/core/src', layers: coreLayers },
  {
    name: '@noderepair/capo-remediation',
    src: 'packages/capo-remediation/src',
    layers: capoLayers,
  },
];

/**
 * Circles of files in @noderepair/core that stand today, to be broken (issue 43); the docs
 * check fails on any other, and on one of these once it is gone, so the list only shrinks.
 * Each is its files, relative to src, sorted.
 * @type {readonly (readonly string[])[]}
 */
export const coreKnownCircles = [['health/control-plane.ts', 'health/policy.ts']];

/**
 * The @noderepair entry points @noderepair/overlayfs-gen's product code (packages/overlayfs-gen
 * /src, tests aside) may import: what it uses today. It runs on the nodes and needs only
 * core's input decoding; any other @noderepair import there is a lint error, so a new
 * dependency is a deliberate edit of this list.
 * @type {readonly string[]}
 */
export const overlayfsGenUses = ['@noderepair/core/codec'];
