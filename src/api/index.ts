// The glooha.io API machinery every product's kind is built with: names, shared types, the rule-table
// mechanism, validation against a kind's schema and rules, and the CRD built from a kind's description.
export * from './constants.js';
export type * from './types.js';
export { celRulesFor, type Rule } from './rules.js';
export { validateObject, runRules, type FieldError, type ValidationResult } from './validate.js';
export { parseDuration, durationSeconds, isValidDuration } from './duration.js';
export { scaledValue, isIntOrPercent } from './intstr.js';
export { crdNameOf, type ApiKind, type PrinterColumn } from './kind.js';
export { buildCrd } from './crd.js';
