// codec/: reading user and wire input with io-ts. Errors name the field and what was
// expected, never the value (inputs carry passwords and tokens). User documents are decoded
// strictly: an unknown field is an error naming its path and the known fields.
export { formatErrors } from './format-errors.js';
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
