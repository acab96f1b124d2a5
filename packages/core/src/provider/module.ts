// How `noderepair run` finds a machine provider it was not compiled with. Core must not depend
// on any infrastructure package (the layering is one-way: @noderepair/openstack depends on
// core, never the reverse), so a provider is a module loaded at start: `--provider openstack`
// imports the module a built-in name maps to, `--provider-module SPEC` imports a user's npm
// package or file. The module exports `providerModule` (or a default export) of this shape.
// Writing a vSphere or bare-metal provider means: implement MachineProvider (port.ts, with its
// four promises) and export a ProviderModule whose `create` builds it.
import type { ClusterConfig } from '../kube/config/index.js';
import type { RuntimeLogger } from '../runtime/logger.js';
import type { MachineProvider } from './port.js';

/** What `create` gets: everything the CLI knows that a provider may need, nothing more. */
export interface ProviderModuleContext {
  /** The cluster the controller runs against (the kubeconfig in use). */
  readonly cluster: ClusterConfig;
  /**
   * The provider's options: `--provider-opt key=value` (repeatable), and `--cloud NAME` as
   * `cloud`. Only names listed in `ProviderModule.options` arrive here; any other is refused
   * at start with an error naming it (a typo never becomes a default).
   */
  readonly options: Readonly<Record<string, string>>;
  /** The process environment (e.g. OS_CLIENT_CONFIG_FILE, OS_CLOUD). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Logger for the provider's own lines. */
  readonly log: RuntimeLogger;
  /** Cancelled when the controller stops before `create` has finished. */
  readonly signal: AbortSignal;
}

/**
 * What a provider package exports: its name, the options it takes and a factory of its
 * MachineProvider.
 */
export interface ProviderModule {
  /** The provider's name, as `--provider` takes it and as events and metrics show it. */
  readonly name: string;
  /** The option names `create` understands (each with a one-line meaning, for --help). */
  readonly options: Readonly<Record<string, string>>;
  /**
   * Builds the provider. Throws an Error whose message a user can act on (which file, which
   * field, which cloud) when the configuration is wrong; the message never carries a secret.
   */
  create(ctx: ProviderModuleContext): MachineProvider | Promise<MachineProvider>;
}

/**
 * Provider names the CLI knows without --provider-module, and the module each one lives in.
 * `dry-run` is core's own; the others are imported on demand, so an image without them still
 * runs and says which package to install.
 */
export const builtinProviderModules: Readonly<Record<string, string>> = {
  openstack: '@noderepair/openstack/provider',
};

/** Finds the ProviderModule a loaded ES module exports, or says what is wrong with it. */
export function providerModuleOf(mod: unknown, spec: string): ProviderModule {
  const m = mod as { providerModule?: unknown; default?: unknown } | null;
  const candidate = m?.providerModule ?? m?.default;
  const pm = candidate as Partial<ProviderModule> | undefined;
  if (
    pm === undefined ||
    pm === null ||
    typeof pm.name !== 'string' ||
    typeof pm.create !== 'function' ||
    typeof pm.options !== 'object' ||
    pm.options === null
  )
    throw new Error(
      `${spec} does not export a provider module: expected \`export const providerModule = { name, options, create }\` (or a default export of that shape)`,
    );
  return pm as ProviderModule;
}
