// `noderepair run`'s machine provider: which module, with which options, and which ladder it
// can carry out. Loading and create() are the only I/O; the checks are pure.
import * as either from 'fp-ts/lib/Either.js';
import type { LadderStep, RepairPolicy } from '../health/policy.js';
import {
  knownProviderNames,
  loadProviderModule,
  type LoadOptions,
  type ProviderChoice,
} from '../provider/load.js';
import {
  builtinProviderModules,
  type ProviderModule,
  type ProviderModuleContext,
} from '../provider/module.js';
import { providerOptionsFor, type GivenOption } from '../provider/options.js';
import type { MachineProvider } from '../provider/port.js';
import { splitPackageSpec } from '../provider/resolve-package.js';

export interface ProviderFailure {
  /** 2: the command line is wrong; 1: the environment is (not installed, create failed). */
  readonly code: 1 | 2;
  readonly message: string;
}

/** Why the dry-run provider alone would be harmful: it acts on nothing yet reports success. */
export const dryRunProviderRefusal =
  'the dry-run provider reboots nothing, yet outside a dry run nodes would be cordoned and drained for real and then left waiting: add --dry-run (or dryRun: true in the policy) to rehearse, or choose a provider that repairs: --provider openstack, or --provider-module SPEC';

/** The module and the options its create() gets. */
export async function chooseProvider(
  choice: ProviderChoice,
  given: Readonly<Record<string, GivenOption>>,
  o: LoadOptions,
): Promise<
  either.Either<
    ProviderFailure,
    { module: ProviderModule; options: Readonly<Record<string, string>> }
  >
> {
  if (choice.kind === 'name' && !knownProviderNames(o.modules).includes(choice.name))
    return either.left({
      code: 2,
      message: `--provider: unknown provider "${choice.name}" (known: ${knownProviderNames(o.modules).join(', ')}; or --provider-module SPEC)`,
    });
  const loaded = await loadProviderModule(choice, o);
  if (either.isLeft(loaded)) {
    const flag = choice.kind === 'name' ? `--provider ${choice.name}` : '--provider-module';
    return either.left({ code: 1, message: `${flag}: ${loaded.left}` });
  }
  const options = providerOptionsFor(loaded.right, given);
  if (either.isLeft(options)) return either.left({ code: 2, message: options.left });
  return either.right({ module: loaded.right, options: options.right });
}

/** Runs the module's create(); a throw is the user's to fix (its message says what). */
export async function createProvider(
  module: ProviderModule,
  ctx: ProviderModuleContext,
): Promise<either.Either<string, MachineProvider>> {
  try {
    return either.right(await module.create(ctx));
  } catch (e) {
    const m = e instanceof Error ? e.message : String(e);
    return either.left(`provider ${module.name}: ${m.split('\n')[0] ?? m}`);
  }
}

/**
 * The ladder the controller runs. A ladder the user wrote must be executable as written (a
 * step silently dropped would change what the user asked for); the default one is cut to the
 * steps this provider can do, because the user did not choose it. Pure.
 */
export function ladderFor(
  policy: RepairPolicy,
  ladderWritten: boolean,
  provider: Pick<MachineProvider, 'name' | 'actions'>,
): either.Either<string, LadderStep[]> {
  const can = [...provider.actions].join(', ') || 'nothing';
  if (ladderWritten) {
    const unsupported = [
      ...new Set(policy.ladder.map((s) => s.action).filter((a) => !provider.actions.has(a))),
    ];
    return unsupported.length > 0
      ? either.left(
          `the policy's ladder uses ${unsupported.join(', ')}, which provider "${provider.name}" cannot execute (it can: ${can})`,
        )
      : either.right(policy.ladder);
  }
  const ladder = policy.ladder.filter((s) => provider.actions.has(s.action));
  return ladder.length > 0
    ? either.right(ladder)
    : either.left(
        `provider "${provider.name}" can execute none of the default ladder's steps (${policy.ladder.map((s) => s.action).join(', ')}; it can: ${can}): write a ladder in the policy`,
      );
}

/**
 * What is wrong with the condition rules' own ladders for this provider: each was written by
 * the user, so, as a written top-level ladder, it must be executable as written. Pure.
 */
export function ruleLaddersFor(
  policy: RepairPolicy,
  provider: Pick<MachineProvider, 'name' | 'actions'>,
): either.Either<string, void> {
  const can = [...provider.actions].join(', ') || 'nothing';
  const problems = policy.unhealthyConditions.flatMap((c, i) => {
    const unsupported = [
      ...new Set((c.ladder ?? []).map((s) => s.action).filter((a) => !provider.actions.has(a))),
    ];
    return unsupported.length > 0
      ? [
          `unhealthyConditions[${i}].ladder uses ${unsupported.join(', ')}, which provider "${provider.name}" cannot execute (it can: ${can})`,
        ]
      : [];
  });
  return problems.length > 0 ? either.left(problems.join('; ')) : either.right(undefined);
}

/** The provider part of `run --help`: every name, and the chosen module's options. Pure. */
export function providerHelp(
  names: readonly string[],
  chosen: either.Either<string, ProviderModule>,
): string {
  const lines = [
    'providers (--provider NAME):',
    ...names.map((n) => {
      const spec = builtinProviderModules[n];
      const note =
        n === 'dry-run'
          ? 'built in; records, repairs nothing; only with --dry-run'
          : spec !== undefined
            ? `from ${spec} (npm i ${splitPackageSpec(spec).name})`
            : 'given by the embedding program';
      return `  ${n.padEnd(28)}  ${note}`;
    }),
    '  --provider-module SPEC        any other: a file (./my-provider.js) or an npm package',
  ];
  if (either.isLeft(chosen))
    return [...lines, '', `(cannot list the options: ${chosen.left})`].join('\n');
  const opts = Object.entries(chosen.right.options);
  return [
    ...lines,
    '',
    `options of provider "${chosen.right.name}" (--provider-opt key=value; --cloud NAME is cloud=NAME):`,
    ...(opts.length > 0 ? opts.map(([k, v]) => `  ${k.padEnd(28)}  ${v}`) : ['  (none)']),
  ].join('\n');
}
