// A list/watch selection (a label selector and a field selector, in the API server's string syntax)
// evaluated on a cached object: what lets one shared informer watch the union of several selections
// and each reader keep only its own. Label selectors: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
// `k notin (a,b)`, joined by commas (all must hold). Field selectors: metadata.name and
// metadata.namespace with =, == or != (the fields every kind supports).
import type { KubernetesObject } from '@kubernetes/client-node';

export interface Selection {
  labelSelector?: string;
  fieldSelector?: string;
}

type Requirement = (get: (key: string) => string | undefined) => boolean;

/** Splits on the commas that are not inside parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out.map((t) => t.trim()).filter(Boolean);
}

function requirement(term: string, what: string): Requirement {
  let m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in'
      ? (get) => values.has(get(key) ?? '\0absent')
      : (get) => !values.has(get(key) ?? '\0absent');
  }
  m = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (get) => get(key) !== value : (get) => get(key) === value;
  }
  m = /^(!?)([^!=\s()]+)$/.exec(term);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (get) => get(key) === undefined : (get) => get(key) !== undefined;
  }
  throw new Error(`cannot evaluate ${what} term "${term}"`);
}

const FIELDS: Record<string, (o: KubernetesObject) => string | undefined> = {
  'metadata.name': (o) => o.metadata?.name,
  'metadata.namespace': (o) => o.metadata?.namespace,
};

/** A predicate true for the objects `selection` selects. Throws on syntax it cannot evaluate. */
export function selectionMatcher(selection: Selection): (obj: KubernetesObject) => boolean {
  const labels = terms(selection.labelSelector ?? '').map((t) => requirement(t, 'label selector'));
  const fields = terms(selection.fieldSelector ?? '').map((t) => {
    const r = requirement(t, 'field selector');
    const field = /^!?([^!=\s]+)/.exec(t)?.[1] ?? '';
    if (!FIELDS[field])
      throw new Error(`cannot evaluate field selector term "${t}": only ${Object.keys(FIELDS).join(', ')}`);
    return r;
  });
  return (obj) => {
    const l = obj.metadata?.labels ?? {};
    const getLabel = (k: string) => l[k];
    const getField = (k: string) => FIELDS[k]?.(obj);
    return labels.every((r) => r(getLabel)) && fields.every((r) => r(getField));
  };
}
