/**
 * The machine provider port: what every infrastructure implements to reboot, rebuild or replace a
 * machine and to say whether it is fenced. Also the fence judgement made before any forceful step
 * (the out-of-service taint, deleting a Node) and the built-in dry-run provider.
 *
 * @packageDocumentation
 */
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
export { commandEnvironment, CommandBaseEnv } from './site-command.js';
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
