// The terms of a MachineHealthCheck that both its reader (spec.ts, which decodes and
// normalises a spec) and its admission rules (validate.ts, which spec.ts applies) speak: a
// label selector and one unhealthy-condition check.
//
// They lived in spec.ts, so validate.ts imported spec.ts for them while spec.ts imported
// validate.ts for its rules: two files in a circle. The rules are the lower of the two (they
// judge values and know nothing of decoding), so the terms they judge stand here, below both,
// and the import runs one way: spec.ts -> validate.ts -> terms.ts. @noderepair/core/mhc exports
// LabelSelector and MhcCheck as before.
import * as t from 'io-ts';

const LabelSelector = t.partial({
  matchLabels: t.record(t.string, t.string),
  matchExpressions: t.array(
    t.intersection([
      t.type({ key: t.string, operator: t.string }),
      t.partial({ values: t.array(t.string) }),
    ]),
  ),
});
/** A Kubernetes label selector (matchLabels, matchExpressions) as the MHC spec carries it. */
export type LabelSelector = t.TypeOf<typeof LabelSelector>;
/**
 * The io-ts codec of LabelSelector, for spec.ts's decoders. Under a name of its own: the entry
 * point exports the type LabelSelector, and a value of the same name would go with it.
 */
export const LabelSelectorCodec = LabelSelector;

/**
 * One unhealthy-condition check: unhealthy once the condition has had `status` for longer than the
 * timeout.
 */
export interface MhcCheck {
  /** The condition type (Ready, ...). */
  type: string;
  /** The status that counts as unhealthy. */
  status: 'True' | 'False' | 'Unknown';
  /** Whole seconds in ms (v1beta1 timeouts are truncated to seconds, as the conversion does). */
  timeoutMs: number;
}
