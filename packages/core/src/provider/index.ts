// provider/: the machine provider port (what every infrastructure implements), the fence
// judgement made before any forceful step, and the built-in dry-run provider.
export {
  ProviderActions,
  type ProviderAction,
  type MachineRef,
  type ActionRequest,
  type ProviderOutcome,
  type FenceQuery,
  type FenceHow,
  type FenceStatus,
  type PowerState,
  type ProviderContext,
  type MachineProvider,
} from './port.js';
export { canFence, judgeFence, type FenceEvidence, type FenceVerdict } from './fence.js';
export { DryRunProvider, dryRunProviderModule } from './dry-run.js';
export { machineProviderFromRebootProvider } from './legacy.js';
export {
  withSiteSteps,
  isSiteAction,
  siteCommandEnv,
  siteWebhookBody,
  type SiteAction,
  type SiteStepOptions,
} from './site-steps.js';
export {
  builtinProviderModules,
  providerModuleOf,
  type ProviderModule,
  type ProviderModuleContext,
} from './module.js';
export {
  knownProviderNames,
  loadProviderModule,
  isFileSpec,
  type ProviderChoice,
  type LoadOptions,
} from './load.js';
export { parseProviderOptions, providerOptionsFor, type GivenOption } from './options.js';
