export { formatErrors } from './format-errors.js';
