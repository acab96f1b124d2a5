// Site steps: ladder steps whose repair is the site's own automation, for sites where a
// replacement (or a repair) is a script or an HTTP endpoint of theirs rather than a cloud API
// call. withSiteSteps(provider, ladder) returns a MachineProvider that runs the ladder's
// `Command` and `Webhook` steps itself and hands every other action to `provider`.
//
// The port's promises, for site steps:
// 1. Exactly once: an id this process has answered is answered again from memory, and a call
//    for an id already running joins it. After a restart the caller re-issues the id with
//    `replay`; the program sees NODEREPAIR_REPLAY=1, the endpoint `replay: true` and the same
//    Idempotency-Key, and must find out from its own records whether the job already exists.
// 2. "Not now" is not "no": exit 75 (EX_TEMPFAIL), 5xx, 408, 429, network errors and timeouts of
//    the request wait without using an attempt. A program that runs past its commandTimeout has
//    failed (it is stopped, and the ladder goes on).
// 3. A lost answer is "maybe done": nothing is re-sent within a call; the Unavailable outcome
//    says maybeSent, and the caller's next call is the replay (same key, `replay: true`).
// 4. Fencing: a site step never fences. An exit status or an HTTP status says the site's
//    automation took the job, not that the machine is off, so a site step never leads to the
//    out-of-service taint or to deleting a Node.
import type { LadderStep } from '../health/policy.js';
import { DefaultCommandTimeoutMs, DefaultRequestTimeoutMs } from '../health/policy.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderContext,
  ProviderOutcome,
} from './port.js';
import { commandEnvironment, commandOutcome, runSiteCommand } from './site-command.js';
import { secretValuesOf } from './site-text.js';
import { callSiteWebhook, webhookOutcome, webhookTarget } from './site-webhook.js';

/**
 * The actions run by the site's own automation rather than the cloud provider: a program (Command)
 * or an HTTP endpoint (Webhook).
 */
export type SiteAction = Extract<ProviderAction, 'Command' | 'Webhook'>;

/** True for Command and Webhook, the site-step actions. */
export function isSiteAction(a: ProviderAction): a is SiteAction {
  return a === 'Command' || a === 'Webhook';
}

/** Options of the site steps (withSiteSteps). */
export interface SiteStepOptions {
  /**
   * The controller's environment (default process.env): the program gets only its PATH, HOME,
   * LANG, LC_*, TZ and what the step's `env` names (commandEnvironment).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** After SIGTERM at the commandTimeout, how long before SIGKILL. Default 10 s. */
  readonly killGraceMs?: number;
}

const DefaultKillGraceMs = 10_000;
/**
 * Answers remembered per process. An attempt is re-issued within minutes or after a restart
 * (which forgets anyway), so the oldest answers can go: memory stays bounded for ever.
 */
const RememberedAnswers = 1000;

/** The NODEREPAIR_* variables a Command step's program gets (with commandEnvironment's few). */
export function siteCommandEnv(req: ActionRequest): Record<string, string> {
  return {
    NODEREPAIR_NODE: req.node,
    NODEREPAIR_PROVIDER_ID: req.providerID,
    NODEREPAIR_ACTION: req.action,
    NODEREPAIR_ACTION_ID: req.actionId,
    NODEREPAIR_REPLAY: req.replay ? '1' : '0',
    NODEREPAIR_ISSUED_AT: new Date(req.issuedAt).toISOString(),
  };
}

/** The JSON a Webhook step POSTs. */
export function siteWebhookBody(req: ActionRequest): Record<string, unknown> {
  return {
    node: req.node,
    providerID: req.providerID,
    action: req.action,
    actionId: req.actionId,
    replay: req.replay,
    issuedAt: new Date(req.issuedAt).toISOString(),
  };
}

/**
 * `provider` plus the ladder's site steps. Without a site step in the ladder this is
 * `provider` itself. The ladder names each action once (health/policy.ts), so the action
 * finds its step.
 */
export function withSiteSteps(
  provider: MachineProvider,
  ladder: readonly LadderStep[],
  opts: SiteStepOptions = {},
): MachineProvider {
  const steps = new Map<SiteAction, LadderStep>();
  for (const s of ladder) if (isSiteAction(s.action)) steps.set(s.action, s);
  if (steps.size === 0) return provider;
  const env = opts.env ?? process.env;
  const secrets = secretValuesOf(env);
  const killGraceMs = opts.killGraceMs ?? DefaultKillGraceMs;
  /** Final answers (Accepted, Rejected) by action id: promise 1 within this process. */
  const answered = new Map<string, ProviderOutcome>();
  const running = new Map<string, Promise<ProviderOutcome>>();

  const runStep = async (
    step: LadderStep,
    req: ActionRequest,
    ctx: ProviderContext,
  ): Promise<ProviderOutcome> => {
    if (step.action === 'Command') {
      const argv = step.command ?? [];
      const timeoutMs = step.commandTimeoutMs ?? DefaultCommandTimeoutMs;
      const end = await runSiteCommand({
        argv,
        env: commandEnvironment(env, step.env ?? [], siteCommandEnv(req)),
        timeoutMs,
        killGraceMs,
        signal: ctx.signal,
      });
      return commandOutcome(argv[0] ?? '(none)', end, timeoutMs, secrets);
    }
    const url = step.url ?? '';
    const target = webhookTarget(url);
    const timeoutMs = step.requestTimeoutMs ?? DefaultRequestTimeoutMs;
    const end = await callSiteWebhook({
      url,
      body: siteWebhookBody(req),
      idempotencyKey: req.actionId,
      timeoutMs,
      signal: ctx.signal,
    });
    return webhookOutcome(target.shown, end, timeoutMs, [...secrets, ...target.secrets]);
  };

  const execute = async (req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome> => {
    if (!isSiteAction(req.action)) return provider.execute(req, ctx);
    const known = answered.get(req.actionId);
    if (known !== undefined) return known;
    const inFlight = running.get(req.actionId);
    if (inFlight !== undefined) return inFlight;
    const step = steps.get(req.action);
    if (step === undefined)
      return { kind: 'Rejected', message: `the ladder has no ${req.action} step` };
    const p = runStep(step, req, ctx).then((r) => {
      if (r.kind !== 'Unavailable') {
        answered.set(req.actionId, r);
        const oldest = answered.keys().next().value;
        if (answered.size > RememberedAnswers && oldest !== undefined) answered.delete(oldest);
      }
      return r;
    });
    running.set(req.actionId, p);
    try {
      return await p;
    } finally {
      running.delete(req.actionId);
    }
  };

  const fence = async (q: FenceQuery, ctx: ProviderContext): Promise<FenceStatus> => {
    if (q.action === 'Command')
      return { kind: 'NotFenced', reason: 'a site command cannot prove the machine is off' };
    if (q.action === 'Webhook')
      return { kind: 'NotFenced', reason: 'a site webhook cannot prove the machine is off' };
    return provider.fence(q, ctx);
  };

  const powerState = provider.powerState;
  return {
    name: provider.name,
    actions: new Set<ProviderAction>([...provider.actions, ...steps.keys()]),
    execute,
    fence,
    ...(powerState !== undefined ? { powerState: powerState.bind(provider) } : {}),
  };
}
