// codec/: reading user and wire input with io-ts. Errors name the field and what was
// expected, never the value (inputs carry passwords and tokens).
export { formatErrors } from './format-errors.js';
