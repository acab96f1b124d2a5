// OpenStackRemediation .status: everything the controller must remember lives here, so a
// restarted controller resumes where it was and never repeats an action.
import { conditionsNode } from './condition.js';
import { STEP_TYPES } from './remediation-spec.js';
import { s } from './schema/index.js';

/** The phases of a remediation, in the order they usually come; Succeeded and Failed are final. */
export const PHASES = [
  'Pending',
  'Draining',
  'Remediating',
  'Waiting',
  'Succeeded',
  'Failed',
  'Deleting',
] as const;
/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** How an attempt ended; InProgress is an intent persisted before Nova was called. */
export const ATTEMPT_RESULTS = ['InProgress', 'Succeeded', 'TimedOut', 'Failed'] as const;
/** One of {@link ATTEMPT_RESULTS}. */
export type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

/** History is bounded so the object never grows without limit. */
export const MAX_HISTORY = 10;

/** Schema of one status.history entry: one action sent (or about to be sent) to Nova. */
export const attemptNode = s.object(
  {
    step: s.required(
      s.integer({ minimum: 0, maximum: 9, description: 'Index of the step in spec.steps.' }),
    ),
    type: s.required(s.enumOf(STEP_TYPES, { description: 'The step type.' })),
    attempt: s.required(
      s.integer({
        minimum: 1,
        maximum: 11,
        description: '1 for the first try of this step, then 2, ...',
      }),
    ),
    startTime: s.required(s.dateTime({ description: 'When the action was sent to Nova.' })),
    acceptedTime: s.optional(
      s.dateTime({
        description:
          'When Nova accepted the action (the completion of the intent); the step timeout counts from here.',
      }),
    ),
    completionTime: s.optional(s.dateTime({ description: 'When the attempt ended.' })),
    result: s.required(s.enumOf(ATTEMPT_RESULTS, { description: 'How the attempt ended.' })),
    message: s.optional(s.string({ maxLength: 1024, description: 'Detail, e.g. the Nova error.' })),
  },
  { description: 'One action sent to Nova.' },
);
/** One status.history entry as decoded. */
export type Attempt = s.TypeOf<typeof attemptNode>;

/** Schema of an OpenStackRemediation's status. */
export const remediationStatusNode = s.object(
  {
    phase: s.optional(
      s.enumOf(PHASES, {
        description:
          'Pending: not started. Draining: cordon and eviction. Remediating: a Nova action is in flight. Waiting: the node must stay Ready for minHealthySeconds. Succeeded. Failed: the ladder is exhausted and the Machine was handed to Cluster API. Deleting: cleanup after deletion.',
      }),
    ),
    currentStep: s.optional(
      s.integer({
        minimum: 0,
        maximum: 9,
        description: 'Index in spec.steps of the step being tried.',
      }),
    ),
    retryCount: s.optional(
      s.integer({ minimum: 0, maximum: 10, description: 'Retries of the current step so far.' }),
    ),
    lastRemediated: s.optional(
      s.dateTime({ description: 'When the last action was sent to Nova.' }),
    ),
    bootID: s.optional(
      s.string({
        maxLength: 128,
        description:
          "The Node's status.nodeInfo.bootID when the current attempt's action was decided (before Nova was called); a different bootID on the Node proves the server restarted.",
      }),
    ),
    serverID: s.optional(
      s.string({ maxLength: 64, description: 'The Nova server uuid being remediated.' }),
    ),
    observedGeneration: s.optional(
      s.integer({
        minimum: 0,
        format: 'int64',
        description: 'The .metadata.generation last acted upon.',
      }),
    ),
    cloudRetryTime: s.optional(
      s.dateTime({
        description:
          'While the cloud does not answer (CloudReachable=False): when Nova may be asked again, the outage backoff or the provider\'s Retry-After, whichever is later. Every wake-up of the reconcile before then waits; cleared when Nova answers.',
      }),
    ),
    history: s.optional(
      s.array(attemptNode, {
        maxItems: MAX_HISTORY,
        description: `The last ${MAX_HISTORY} attempts, oldest first.`,
      }),
    ),
    conditions: s.optional(conditionsNode),
  },
  { description: 'OpenStackRemediationStatus: progress of the remediation.' },
);
/**
 * An OpenStackRemediation's status as decoded: everything the controller must remember, so a
 * restarted controller resumes and never repeats an action.
 */
export type RemediationStatus = s.TypeOf<typeof remediationStatusNode>;
