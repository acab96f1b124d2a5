// The subset of Kubernetes' JSONSchemaProps (apiextensions.k8s.io/v1) our CRDs use.
/** A CEL validation rule of a CRD schema (an entry of x-kubernetes-validations). */
export interface ValidationRule {
  /** The CEL expression; `self` is the value the rule is attached to. */
  readonly rule: string;
  /** The error message when the rule is false. */
  readonly message: string;
  /** JSONPath, relative to the value, of the field the error is reported on (e.g. `.imageRef`). */
  readonly fieldPath?: string;
  /** The error's reason (default FieldValueInvalid). */
  readonly reason?:
    | 'FieldValueInvalid'
    | 'FieldValueForbidden'
    | 'FieldValueRequired'
    | 'FieldValueDuplicate';
}

/**
 * An OpenAPI v3 schema as a CRD carries it (apiextensions.k8s.io/v1 JSONSchemaProps), limited
 * to the keywords this package's CRDs use.
 */
export interface JSONSchemaProps {
  /** The JSON type of the value. */
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  /** Shown by `kubectl explain`. */
  description?: string;
  /** Format of a string or integer, e.g. `date-time`, `int32`, `int64`. */
  format?: string;
  /** The only values allowed. */
  enum?: readonly unknown[];
  /** Regular expression a string must match (ECMA-262 dialect, as Kubernetes uses it). */
  pattern?: string;
  /** Minimum string length, in characters. */
  minLength?: number;
  /** Maximum string length, in characters. */
  maxLength?: number;
  /** Smallest number allowed (inclusive). */
  minimum?: number;
  /** Largest number allowed (inclusive). */
  maximum?: number;
  /** Fewest array items allowed. */
  minItems?: number;
  /** Most array items allowed. */
  maxItems?: number;
  /** Value the API server fills in when the field is absent. */
  default?: unknown;
  /** The fields of an object; fields not listed are pruned by the API server. */
  properties?: Record<string, JSONSchemaProps>;
  /** Object fields that must be present. */
  required?: string[];
  /** Schema of each array item. */
  items?: JSONSchemaProps;
  /** Schema of each value of a map (an object with arbitrary keys). */
  additionalProperties?: JSONSchemaProps;
  /** Keep fields the schema does not list instead of pruning them. */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** How server-side apply merges a list: replace whole (atomic), as a set, or by map keys. */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  /** The item fields that identify an entry of a `map` list; unique per list. */
  'x-kubernetes-list-map-keys'?: string[];
  /** How server-side apply merges a map: replace whole (atomic) or per key (granular). */
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** CEL rules the API server checks on the value. */
  'x-kubernetes-validations'?: ValidationRule[];
}
