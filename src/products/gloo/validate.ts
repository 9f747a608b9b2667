// Validating a GlooHA the way the API server would (src/api/validate.ts), and its spec's defaults.

import { applyDefaults } from '../../api/structural.js';
import { validateObject, type ValidationResult } from '../../api/validate.js';
import { GLOO_API } from './api.js';
import { specSchema } from './schema.js';
import type { DefaultedGlooHA, DefaultedSpec, GlooHASpec } from './types.js';

/** The spec with schema defaults filled in (no validation). */
export function defaultSpec(spec: GlooHASpec | undefined): DefaultedSpec {
  return applyDefaults(spec ?? {}, specSchema) as DefaultedSpec;
}

/** Validates a whole GlooHA object, as the API server would on create (src/api/validate.ts). */
export function validateGlooHA(input: unknown): ValidationResult<DefaultedGlooHA> {
  return validateObject<DefaultedGlooHA>(input, GLOO_API);
}
