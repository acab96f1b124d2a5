/**
 * Reading user and wire input with io-ts. User documents are decoded strictly: an unknown field is
 * an error naming its path and the known fields. Errors name the field and what was expected, never
 * the value, because inputs carry passwords and tokens. Also the codecs of the Kubernetes and
 * Cluster API objects the libraries read (metav1, finalizers, owner references, events).
 *
 * @packageDocumentation
 */
export { formatErrors } from './format-errors.js';
export { expectedOf, failedType, refineError } from './expected.js';
export { strict, decodeStrict, unknownFieldError } from './strict.js';
export {
  shapeOf,
  withShape,
  anyShape,
  objectShape,
  recordShape,
  arrayShape,
  type Shape,
  type ShapeMember,
} from './shape.js';
export {
  unknownFields,
  closestName,
  formatUnknownField,
  unknownFieldMessage,
  formatPath,
  type UnknownField,
  type PathSegment,
} from './unknown-fields.js';
export {
  parseFlagsStrict,
  describeFlagError,
  parseBindAddress,
  type FlagOptions,
  type BindAddress,
} from './args.js';
