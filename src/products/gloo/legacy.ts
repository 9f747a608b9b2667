// Values earlier versions of the CRD admitted and the current one does not, read as their new
// spelling. Only for objects already stored: new input (a file, an apply) is validated as it is.
//
// driftPolicy "off": the enum was enforce | warn | off. kubectl and Helm read the generated CRD as
// YAML 1.1, where an unquoted off is the boolean false, so a CRD installed that way could never store
// it; one installed through a YAML 1.2 or JSON client could. Such an object keeps working (the API
// server's validation ratcheting lets an unchanged field through on update) and means ignore.

import type { GlooHA } from './types.js';

export interface LegacyUpgrade {
  glooHA: GlooHA;
  /** One line per value read under its new name, saying what to write instead. */
  notes: { path: string; message: string }[];
}

export function upgradeLegacyValues(glooHA: GlooHA): LegacyUpgrade {
  if ((glooHA.spec?.driftPolicy as string | undefined) !== 'off') return { glooHA, notes: [] };
  return {
    glooHA: { ...glooHA, spec: { ...glooHA.spec, driftPolicy: 'ignore' } },
    notes: [
      {
        path: 'spec.driftPolicy',
        message:
          'driftPolicy "off" was renamed ignore and is read as ignore; write driftPolicy: ignore (YAML 1.1, which kubectl and Helm read, turns an unquoted off into false)',
      },
    ],
  };
}
