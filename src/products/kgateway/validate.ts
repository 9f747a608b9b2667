// Validating a KgatewayHA the way the API server would (src/api/validate.ts), and its spec's defaults.

import { applyDefaults } from '../../api/structural.js';
import { validateObject, type ValidationResult } from '../../api/validate.js';
import { KGATEWAY_API } from './api.js';
import { kgatewaySpecSchema } from './schema.js';
import type { DefaultedKgatewayHA, DefaultedKgatewaySpec, KgatewayHASpec } from './types.js';

/** A KgatewayHA spec with schema defaults filled in (no validation). */
export function defaultKgatewaySpec(spec: KgatewayHASpec | undefined): DefaultedKgatewaySpec {
  return applyDefaults(spec ?? {}, kgatewaySpecSchema) as DefaultedKgatewaySpec;
}

/** Validates a whole KgatewayHA object, as the API server would on create (src/api/validate.ts). */
export function validateKgatewayHA(input: unknown): ValidationResult<DefaultedKgatewayHA> {
  return validateObject<DefaultedKgatewayHA>(input, KGATEWAY_API);
}
