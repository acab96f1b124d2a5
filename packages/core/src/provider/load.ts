// Loads the ProviderModule `noderepair run` was asked for: a built-in name (`dry-run` is
// core's own; `openstack` and the other names of builtinProviderModules are imported on
// demand), or `--provider-module SPEC` (a file path, or an npm package). A package is looked
// for next to core first (an image that installs both), then from the user's working
// directory (a project that installed the provider itself). When it cannot be found the
// message says what to install, because that is the only thing the user can do about it.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as either from 'fp-ts/lib/Either.js';
import { dryRunProviderModule } from './dry-run.js';
import { builtinProviderModules, providerModuleOf, type ProviderModule } from './module.js';
import { resolvePackageFrom, splitPackageSpec } from './resolve-package.js';

/**
 * What `--provider` named: a provider by name (built-in or injected), or a module to import (a
 * package name or a file path).
 */
export type ProviderChoice =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'module'; readonly spec: string };

/** Where loadProviderModule looks for modules. */
export interface LoadOptions {
  /** Where a relative file path and a package installed by the user are looked for. */
  readonly cwd: string;
  /** Modules by name that take precedence over the built-in ones (tests, embedders). */
  readonly modules?: Readonly<Record<string, ProviderModule>>;
  /** import() as seen from core (tests may replace it). */
  readonly importer?: (specifier: string) => Promise<unknown>;
}

/** Every name `--provider` accepts, in the order --help lists them. */
export function knownProviderNames(modules: LoadOptions['modules'] = {}): string[] {
  return [...new Set(['dry-run', ...Object.keys(builtinProviderModules), ...Object.keys(modules)])];
}

/** A file path rather than a package name: "./x.js", "../x.js", "/abs/x.js", "file:///...". */
export function isFileSpec(spec: string): boolean {
  return spec.startsWith('.') || spec.startsWith('file:') || isAbsolute(spec);
}

const defaultImporter = (specifier: string): Promise<unknown> => import(specifier);

function errorCode(e: unknown): string | undefined {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : undefined;
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}

/** True when `e` says the package `name` itself is missing (not one of its dependencies). */
function packageMissing(e: unknown, name: string): boolean {
  return (
    (errorCode(e) === 'ERR_MODULE_NOT_FOUND' ||
      /Cannot find (package|module)/.test(firstLine(e))) &&
    // Node quotes the package name, vite's runner (tests) the whole specifier.
    (firstLine(e).includes(`'${name}'`) || firstLine(e).includes(`'${name}/`))
  );
}

async function importModule(
  url: string,
  label: string,
  importer: (s: string) => Promise<unknown>,
): Promise<either.Either<string, ProviderModule>> {
  let mod: unknown;
  try {
    mod = await importer(url);
  } catch (e) {
    return either.left(`cannot load ${label}: ${firstLine(e)}`);
  }
  try {
    return either.right(providerModuleOf(mod, label));
  } catch (e) {
    return either.left(firstLine(e));
  }
}

async function loadPackage(
  spec: string,
  o: LoadOptions,
): Promise<either.Either<string, ProviderModule>> {
  const importer = o.importer ?? defaultImporter;
  const { name, subpath } = splitPackageSpec(spec);
  const notExported = (where: string) =>
    either.left(
      `${name} is installed (${where}) but does not export "${subpath}": install a version that does (npm i ${name}@latest)`,
    );
  let mod: unknown;
  try {
    mod = await importer(spec);
  } catch (e) {
    if (errorCode(e) === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return notExported('next to noderepair');
    if (!packageMissing(e, name)) return either.left(`cannot load ${spec}: ${firstLine(e)}`);
    const found = resolvePackageFrom(spec, o.cwd);
    if (found.kind === 'NotExported') return notExported(found.packageDir);
    if (found.kind === 'NotInstalled')
      return either.left(
        `cannot find the package ${name} (looked next to noderepair and from ${o.cwd}): install it, e.g. npm i ${name}`,
      );
    return importModule(pathToFileURL(found.file).href, spec, importer);
  }
  try {
    return either.right(providerModuleOf(mod, spec));
  } catch (e) {
    return either.left(firstLine(e));
  }
}

/**
 * The module for `choice`. Left is a message for the user (without the "noderepair run:"
 * prefix); an unknown --provider name is the caller's to check first (knownProviderNames).
 */
export async function loadProviderModule(
  choice: ProviderChoice,
  o: LoadOptions,
): Promise<either.Either<string, ProviderModule>> {
  if (choice.kind === 'name') {
    const injected = o.modules?.[choice.name];
    if (injected !== undefined) return either.right(injected);
    if (choice.name === 'dry-run') return either.right(dryRunProviderModule);
    const spec = builtinProviderModules[choice.name];
    if (spec === undefined)
      return either.left(
        `unknown provider "${choice.name}" (known: ${knownProviderNames(o.modules).join(', ')})`,
      );
    return loadPackage(spec, o);
  }
  if (!isFileSpec(choice.spec)) return loadPackage(choice.spec, o);
  const path = choice.spec.startsWith('file:')
    ? fileURLToPath(choice.spec)
    : resolve(o.cwd, choice.spec);
  const url = pathToFileURL(path).href;
  if (!existsSync(path)) return either.left(`cannot find the provider module file ${path}`);
  return importModule(url, choice.spec, o.importer ?? defaultImporter);
}
