// FAKE machine provider for `noderepair run` processes under test, loaded with
// `--provider-module`: the chaos suite's children run under tsx and load this file as it is;
// the ship suite's containers get it compiled to JavaScript (typescript's transpileModule)
// in a mounted directory. It therefore imports nothing at run time. It behaves like core's
// DryRunProvider (accepts every action once per action id, acts on nothing, never fences),
// but it is not the dry-run provider, which `noderepair run` refuses outside --dry-run: these
// suites need the real cordon, drain and state annotation that only a non-dry run does.
// Every request is recorded as a line of the process log (which the suites keep).
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderModule,
  ProviderOutcome,
} from '@noderepair/core/provider';

const actions: readonly ProviderAction[] = [
  'SoftReboot',
  'HardReboot',
  'PowerOff',
  'Rebuild',
  'Replace',
];

export const providerModule: ProviderModule = {
  name: 'fake-recording',
  options: {},
  create(ctx): MachineProvider {
    const done = new Map<string, ProviderOutcome>();
    return {
      name: 'fake-recording',
      actions: new Set(actions),
      async execute(req: ActionRequest): Promise<ProviderOutcome> {
        ctx.log.info(
          { node: req.node, action: req.action, actionId: req.actionId, replay: req.replay },
          'fake-recording provider: request recorded',
        );
        const prior = done.get(req.actionId);
        if (prior !== undefined) return prior;
        const r: ProviderOutcome = {
          kind: 'Accepted',
          message: `fake-recording: would ${req.action} ${req.node}`,
        };
        done.set(req.actionId, r);
        return r;
      },
      async fence(q: FenceQuery): Promise<FenceStatus> {
        return { kind: 'NotFenced', reason: `fake-recording: ${q.node} was not touched` };
      },
    };
  },
};
