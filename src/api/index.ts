// The GlooHA API: types, constants, schema, rule table, validation and the CRD built from them.
export * from './constants.js';
export type * from './types.js';
export { DEFAULTS, specSchema, statusSchema, glooHASchema } from '../products/gloo/schema.js';
export { RULES, celRulesFor, type Rule } from './rules.js';
export { validateGlooHA, defaultSpec, type FieldError, type ValidationResult } from './validate.js';
export { parseDuration, durationSeconds, isValidDuration } from './duration.js';
export { scaledValue, isIntOrPercent } from './intstr.js';
export { buildCrd, PRINTER_COLUMNS } from './crd.js';
