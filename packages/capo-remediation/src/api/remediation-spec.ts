// OpenStackRemediation .spec (also a template's .spec.template.spec): the escalation ladder,
// drain options and how long a node must stay Ready to count as repaired.
import { s } from './schema/index.js';

/** The Nova actions a ladder step can take, cheapest first. */
export const STEP_TYPES = ['SoftReboot', 'HardReboot', 'Rebuild'] as const;
/** One of {@link STEP_TYPES}. */
export type StepType = (typeof STEP_TYPES)[number];

/** Schema of one ladder step; Rebuild requires imageRef, other types forbid it. */
export const stepNode = s.object(
  {
    type: s.required(
      s.enumOf(STEP_TYPES, {
        description:
          'SoftReboot: Nova reboot SOFT (ACPI, the guest shuts down cleanly). HardReboot: Nova reboot HARD (power cycle). Rebuild: Nova rebuild from imageRef (reinstalls the root disk).',
      }),
    ),
    timeoutSeconds: s.defaulted(
      s.integer({
        minimum: 30,
        maximum: 86400,
        description:
          'How long to wait after the action for the node to be Ready again before the attempt counts as failed.',
      }),
      600,
    ),
    retries: s.defaulted(
      s.integer({
        minimum: 0,
        maximum: 10,
        description:
          'Further attempts of this step after the first one failed, before escalating to the next step.',
        meaning:
          "the further tries of this step after the first, before the next step (retries: 2 tries it 3 times in all; noderepair's ladder[].attempts counts the first try too)",
      }),
      0,
    ),
    imageRef: s.optional(
      s.string({
        minLength: 1,
        maxLength: 255,
        description: 'Glance image id for Rebuild; required for Rebuild, forbidden otherwise.',
      }),
    ),
  },
  {
    description: 'One rung of the escalation ladder.',
    rules: [
      {
        rule: "self.type == 'Rebuild' ? has(self.imageRef) : !has(self.imageRef)",
        message: 'imageRef is required for Rebuild and not allowed for other step types',
        fieldPath: '.imageRef',
        check: (st) => (st.type === 'Rebuild') === (st.imageRef !== undefined),
      },
    ],
  },
);
/** One ladder step as decoded, defaults applied (timeoutSeconds 600, retries 0). */
export type Step = s.TypeOf<typeof stepNode>;

/** The ladder when spec.steps is absent: one SoftReboot, then HardReboot tried twice. */
export const DEFAULT_STEPS: Step[] = [
  { type: 'SoftReboot', timeoutSeconds: 600, retries: 0 },
  { type: 'HardReboot', timeoutSeconds: 600, retries: 1 },
];

/**
 * Schema of spec.drain; its type is RemediationDrainOptions. (Core's drainNode is the drain
 * itself, so the schema node says Schema.)
 */
export const drainNodeSchema = s.object(
  {
    enabled: s.defaulted(
      s.boolean({
        description:
          'Cordon the node and evict its pods (honouring PodDisruptionBudgets) before the first action.',
      }),
      true,
    ),
    timeoutSeconds: s.defaulted(
      s.integer({
        minimum: 0,
        maximum: 86400,
        description: 'Give up draining after this long and act anyway; 0 waits for ever.',
      }),
      300,
    ),
    outOfServiceTaint: s.defaulted(
      s.boolean({
        description:
          'When the node is unreachable (Ready=Unknown) add node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, so stateful pods and volumes move off it; removed once the node is Ready.',
      }),
      true,
    ),
  },
  { description: 'How to drain the node before acting on the server.' },
);
/** spec.drain as decoded, defaults applied (enabled, timeoutSeconds 300, outOfServiceTaint). */
export type RemediationDrainOptions = s.TypeOf<typeof drainNodeSchema>;

/** Schema of an OpenStackRemediation's spec (also a template's spec.template.spec). */
export const remediationSpecNode = s.object(
  {
    steps: s.defaulted(
      s.array(stepNode, {
        minItems: 1,
        maxItems: 10,
        description:
          'The escalation ladder, cheapest first. When every step is exhausted the Machine is handed to Cluster API for replacement.',
      }),
      DEFAULT_STEPS,
    ),
    drain: s.defaultedToEmpty(drainNodeSchema),
    minHealthySeconds: s.defaulted(
      s.integer({
        minimum: 0,
        maximum: 3600,
        description:
          'The node must stay Ready this long after an action before the remediation counts as successful.',
      }),
      60,
    ),
  },
  {
    description: 'OpenStackRemediationSpec: how to repair the server behind an unhealthy Machine.',
  },
);
/** An OpenStackRemediation's spec as decoded, defaults applied. */
export type RemediationSpec = s.TypeOf<typeof remediationSpecNode>;
