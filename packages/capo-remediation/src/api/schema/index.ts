export * as s from './dsl.js';
export type { Node, TypeOf, Field, Rule, ObjectType } from './dsl.js';
export type { JSONSchemaProps, ValidationRule } from './openapi.js';
export { violations } from './violations.js';
export type { Violation } from './violations.js';
