// Every mutant by name, as RunOptions that break the run the way it does (the CLI's
// MUTANT=<name>, to print or shrink a seed a mutant fails), with the invariant meant to
// catch it.
import type { RunOptions } from './run.js';
import { replacePolicyDoc } from './policy.js';
import {
  acceptsButNeverActs,
  blindToPersonStop,
  deleteBeforeFence,
  fenceWithoutLooking,
  outageAsRejection,
  replayUnderNewId,
} from './mutants.js';
import {
  blindToCordon,
  identityByName,
  staleFleetList,
  taintListReplaced,
} from './mutants-kube.js';

/** A mutant: how it breaks a run, and the invariant (its id prefix) that catches it. */
export interface NamedMutant {
  options: Partial<RunOptions>;
  invariant: string;
}

export const mutants: Record<string, NamedMutant> = {
  replayUnderNewId: { options: { wrapProvider: replayUnderNewId }, invariant: 'a' },
  outageAsRejection: { options: { wrapProvider: outageAsRejection }, invariant: 'b' },
  blindToPersonStop: { options: { wrapProvider: blindToPersonStop }, invariant: 'c' },
  staleFleetList: { options: { wrapCache: staleFleetList() }, invariant: 'd' },
  fenceWithoutLooking: { options: { wrapProvider: fenceWithoutLooking }, invariant: 'e' },
  // Needs a ladder with Replace: it runs under POLICY=replace whatever the CLI's POLICY.
  deleteBeforeFence: {
    options: { wrapProvider: deleteBeforeFence, policyDoc: replacePolicyDoc, npd: true },
    invariant: 'e',
  },
  taintListReplaced: { options: { wrapDrainPort: taintListReplaced }, invariant: 'f' },
  blindToCordon: { options: { wrapClient: blindToCordon }, invariant: 'g' },
  acceptsButNeverActs: { options: { wrapProvider: acceptsButNeverActs }, invariant: 'h' },
  identityByName: { options: { wrapDrainPort: identityByName }, invariant: 'i' },
};
