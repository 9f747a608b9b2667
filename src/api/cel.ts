// The CRD's CEL rules, evaluated in TypeScript with @bufbuild/cel (a conformance-tested CEL
// implementation), so that `glooha render` and the operator judge an object by the very expressions
// the API server runs, not by hand-written twins of them.
//
// What Kubernetes adds to standard CEL, and how it is met here:
//  - values are typed by the schema: an `integer` node is a CEL int, an int-or-string node is an int
//    or a string (hence `type(x) == int` in the rules), an object is a map of its fields. toCel
//    converts a JSON value so, by its schema; JSON numbers become int only where the schema says so.
//  - the strings extension (lowerAscii, replace, indexOf, ...): the library's own `strings`.
//  - duration(), matches(), size(), has() and the all/exists macros are standard CEL.
// Kubernetes' other libraries (quantity, url, ip, lists, sets, regex find) are not used by any rule;
// a rule that used one would fail to evaluate here and its unit conformance cases would say so.
//
// As the API server does (apiextensions-apiserver's CEL validator): a rule that evaluates to false
// is reported at the node's path plus the rule's fieldPath; a rule whose evaluation fails (no such
// key, integer overflow, no matching overload for a value of the wrong type) is reported at the node's
// path itself.

import { celEnv, isCelError, parse, plan, type CelInput, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from '@bufbuild/re2';
import type { Schema } from './openapi.js';

/**
 * The library's own RE2 (what `matches` uses by default), with each pattern compiled once: the rules'
 * patterns are constants, and compiling one costs more than all the rest of a validation.
 */
const compiled = new Map<string, RE2JS>();
const re2 = {
  compile(pattern: string): RE2JS {
    let re = compiled.get(pattern);
    if (!re) {
      re = RE2JS.compile(pattern);
      compiled.set(pattern, re);
    }
    return re;
  },
};

/** A rule's CEL, planned once on first use. */
type Program = (self: CelInput) => CelResult;

let env: ReturnType<typeof celEnv> | undefined;
const programs = new Map<string, Program>();

function program(expression: string): Program {
  let p = programs.get(expression);
  if (!p) {
    env ??= celEnv({ funcs: strings, re2 });
    const planned = plan(env, parse(expression));
    p = (self) => planned({ self });
    programs.set(expression, p);
  }
  return p;
}

export type CelOutcome = { ok: true } | { ok: false; evaluationError?: string };

/** Converted values of one validation pass, by object: a node's rules, and its ancestors', share them. */
export type CelCache = WeakMap<object, CelInput>;

/**
 * Evaluates one rule's expression with `self` bound to `value` (typed by `schema`). A result other than
 * true fails the rule; an evaluation error fails it with the error's text.
 */
export function evaluateRule(
  expression: string,
  value: unknown,
  schema: Schema,
  cache: CelCache = new WeakMap(),
): CelOutcome {
  let result: CelResult;
  try {
    result = program(expression)(toCel(value, schema, cache));
  } catch (err) {
    // parse() throws on a syntax error: a bug in the rule table, which the unit tests catch.
    return { ok: false, evaluationError: err instanceof Error ? err.message : String(err) };
  }
  if (isCelError(result)) return { ok: false, evaluationError: result.message };
  return result === true ? { ok: true } : { ok: false };
}

/** A JSON value as Kubernetes' CEL sees it under `schema`. */
export function toCel(value: unknown, schema: Schema | undefined, cache?: CelCache): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'bigint') return celNumber(value, schema);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value !== 'object') return null;
  const known = cache?.get(value);
  if (known !== undefined) return known;
  let out: CelInput;
  if (Array.isArray(value)) out = value.map((v) => toCel(v, schema?.items, cache));
  else {
    const map = new Map<string, CelInput>();
    for (const [key, v] of Object.entries(value)) {
      const child =
        schema?.properties && Object.hasOwn(schema.properties, key)
          ? schema.properties[key]
          : schema?.additionalProperties;
      map.set(key, toCel(v, child, cache));
    }
    out = map;
  }
  cache?.set(value, out);
  return out;
}

/**
 * An integer where the schema says integer or int-or-string (CEL int, a bigint here), a double
 * elsewhere: a JSON 2.5 is a double to the API server too, and no rule compares one with an int.
 */
function celNumber(value: number | bigint, schema: Schema | undefined): CelInput {
  const integral = schema?.type === 'integer' || schema?.['x-kubernetes-int-or-string'] === true;
  if (typeof value === 'bigint') return integral ? value : Number(value);
  return integral && Number.isInteger(value) ? BigInt(value) : value;
}
