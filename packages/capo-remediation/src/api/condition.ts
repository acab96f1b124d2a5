// metav1.Condition, with the validation Kubernetes itself declares for it (apimachinery's
// types.go markers), so conditions we write are accepted by any consumer.
import { s } from './schema/index.js';

/** Schema of one metav1.Condition, with the validation Kubernetes declares for it. */
export const conditionNode = s.object(
  {
    type: s.required(
      s.string({
        description: 'Type of condition in CamelCase or in foo.example.com/CamelCase.',
        maxLength: 316,
        pattern:
          '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      }),
    ),
    status: s.required(
      s.enumOf(['True', 'False', 'Unknown'] as const, { description: 'Status of the condition.' }),
    ),
    observedGeneration: s.optional(
      s.integer({
        minimum: 0,
        format: 'int64',
        description: 'The .metadata.generation the condition was set for.',
      }),
    ),
    lastTransitionTime: s.required(
      s.dateTime({ description: 'When the condition last changed status.' }),
    ),
    reason: s.required(
      s.string({
        description: 'A programmatic identifier for the last transition, in CamelCase.',
        minLength: 1,
        maxLength: 1024,
        pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      }),
    ),
    message: s.required(
      s.string({ description: 'A human readable message about the transition.', maxLength: 32768 }),
    ),
  },
  {
    description:
      'Condition contains details for one aspect of the current state of this API resource (metav1.Condition).',
  },
);

/** A metav1.Condition as decoded (times are RFC 3339 strings). */
export type Condition = s.TypeOf<typeof conditionNode>;

/** Schema of status.conditions: a list map keyed by type, at most 32 entries. */
export const conditionsNode = s.array(conditionNode, {
  description:
    'Conditions (metav1.Condition): TargetResolved, Cordoned, Drained, NodeRecovered, Remediated.',
  maxItems: 32,
  mapKeys: ['type'],
});
