// The differential test: seeded, generated GlooHA and KgatewayHA inputs (test/support/spec-generator.ts)
// go through `glooha render`'s reader and validator (the operator's, for a KgatewayHA), and through what `kubectl create` does (kubectl's own YAML
// to JSON conversion, then the real API server with the generated CRD, strict field validation). Every
// disagreement fails the test: one accepts and the other rejects, or both reject but name different
// fields. Accepted inputs are then created for real, and the object the API server stores must have
// exactly the spec defaultSpec() (defaultKgatewaySpec()) computes.
//
//   GLOOHA_DIFF_SPECS=3000 GLOOHA_DIFF_SEED=7 npx vitest run --project integration test/integration/differential.test.ts
//
// CI runs the default (seed 1: per kind 300 JSON + 60 YAML cases, 60 cases about the object around
// the spec: status, metadata, integers beyond 2^53, and 100 about ObjectMeta (finalizers, owner
// references, generateName, label and annotation limits), the 3 MiB request limit and raw JSON (float
// literals, duplicate keys)); the summary lines give the counts per kind.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import { KubeYamlError, readKubeYaml, type KubeYamlDocument } from '../../src/api/kube-yaml.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import { defaultKgatewaySpec, validateKgatewayHA } from '../../src/products/kgateway/validate.js';
import { defaultSpec, validateGlooHA } from '../../src/products/gloo/validate.js';
import { send } from '../support/api-request.js';
import { createNamespace, installCrds } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';
import { generateCases, type CaseKind, type GeneratedCase } from '../support/spec-generator.js';

const COUNT = Number(process.env.GLOOHA_DIFF_SPECS ?? 300);
const SEED = Number(process.env.GLOOHA_DIFF_SEED ?? 1);

/** A verdict: accepted (with the spec as stored/validated), or rejected at these field paths. */
type Verdict = { ok: true; spec: unknown; json?: string } | { ok: false; paths: string[]; detail: string };

/**
 * `spec.gatewayProxies[publicGw].x` and `spec.gatewayProxies.publicGw.x` name the same field. The
 * server writes a map key as `.key` in schema errors and `[key]` elsewhere, and `.1` for a map key
 * "1" (a YAML key 1 or 010): every bracket becomes a dot, list indexes too, on both sides.
 */
function normalisePath(path: string): string {
  return path.replace(/\[([^\]]*)\]/g, '.$1');
}

const PLURALS: Record<CaseKind, string> = { GlooHA: PLURAL, KgatewayHA: KGATEWAY_PLURAL };

/** What glooha render concludes from the text (for a KgatewayHA: the operator's validator). */
function tsVerdict(text: string, kind: CaseKind): Verdict {
  let doc: KubeYamlDocument | undefined;
  try {
    doc = readKubeYaml(text)[0];
  } catch (err) {
    if (!(err instanceof KubeYamlError)) throw err;
    return { ok: false, paths: ['<yaml>'], detail: String(err) };
  }
  if (!doc || !doc.ok) {
    const detail = String(doc?.errors[0]);
    return {
      ok: false,
      paths: [/\(413 Request Entity Too Large\)/.test(detail) ? TOO_LARGE : '<yaml>'],
      detail,
    };
  }
  const value = doc.value;
  const result = kind === 'GlooHA' ? validateGlooHA(value) : validateKgatewayHA(value);
  if (result.ok) {
    const spec = (value as GlooHA).spec;
    return { ok: true, spec: kind === 'GlooHA' ? defaultSpec(spec) : defaultKgatewaySpec(spec) };
  }
  return {
    ok: false,
    paths: [...new Set(result.errors.map((e) => normalisePath(e.path)))].sort(),
    detail: result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'),
  };
}

interface Status {
  message?: string;
  details?: { causes?: { field?: string; message?: string }[] };
}

/** The field paths of an API server rejection (422 causes, or 400 strict-decoding errors). */
function serverPaths(code: number, text: string): string[] {
  const status = JSON.parse(text) as Status;
  const paths = new Set<string>();
  for (const c of status.details?.causes ?? []) {
    if (c.field && c.field !== '<nil>') {
      paths.add(normalisePath(c.field));
      continue;
    }
    // A format error names its field only in the message ("... with format int32 in spec.x.y");
    // the other field-less cause is the note that CEL rules were skipped.
    const format = /with format \w+ in (\S+)$/.exec(c.message ?? '');
    if (format) paths.add(normalisePath(format[1] as string));
  }
  for (const m of (status.message ?? '').matchAll(/(?:unknown|duplicate) field "([^"]+)"/g)) {
    paths.add(normalisePath(m[1] as string));
  }
  const meta = objectMetaField(status.message ?? '');
  if (meta) paths.add(meta);
  if (paths.size === 0) paths.add(`<${code}: ${status.message ?? text}>`);
  return [...paths].sort();
}

/**
 * An ObjectMeta field that fails decoding: the API server says "into Go struct field
 * ObjectMeta.generation of type int64", kubectl (decoding before it sends) "ObjectMeta.metadata.generation";
 * in an owner reference "OwnerReference.ownerReferences.controller".
 */
function objectMetaField(message: string): string | undefined {
  const m =
    /into Go struct field (ObjectMeta|OwnerReference)\.(?:metadata\.)?(?:ownerReferences\.)?([\w.]+) of type/.exec(
      message,
    );
  if (!m) return undefined;
  return m[1] === 'OwnerReference'
    ? `metadata.ownerReferences.${m[2] as string}`
    : `metadata.${m[2] as string}`;
}

/** The API server refused the request for its size (413), before decoding it. */
const TOO_LARGE = '<413: request over 3 MiB>';

/**
 * JSON text without the white space outside strings: what kubectl sends (Go's compact encoding), made
 * from its `-o json` (indented) output without parsing it (which would round integers beyond 2^53).
 */
function compactJson(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (m) => (m.startsWith('"') ? m : ''));
}

/**
 * What the cluster concludes: the JSON a client (or kubectl, for YAML) sends, through a dry-run
 * create with strict field validation (kubectl's default, --validate=strict).
 */
async function serverVerdict(c: GeneratedCase, namespace: string): Promise<Verdict> {
  let json = c.text;
  if (c.kind === 'file') {
    // kubectl's own YAML → JSON conversion (sigs.k8s.io/yaml); --validate=false keeps it to just that.
    const converted = await kubectl(
      ['create', '--dry-run=client', '--validate=false', '-o', 'json', '-n', namespace, '-f', '-'],
      c.text,
    );
    if (converted.code !== 0) {
      const meta = objectMetaField(converted.stderr);
      return { ok: false, paths: [meta ?? '<yaml>'], detail: converted.stderr };
    }
    json = compactJson(converted.stdout);
  }
  const res = await send(
    'POST',
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURALS[c.object]}?dryRun=All&fieldValidation=Strict`,
    json,
    { 'Content-Type': 'application/json' },
  );
  if (res.code === 201 || res.code === 200) {
    return { ok: true, spec: (JSON.parse(res.text) as GlooHA).spec, json };
  }
  if (res.code === 413) return { ok: false, paths: [TOO_LARGE], detail: res.text.slice(0, 300) };
  if (res.code !== 422 && res.code !== 400) throw new Error(`${c.id}: unexpected ${res.code}: ${res.text}`);
  return {
    ok: false,
    paths: serverPaths(res.code, res.text),
    detail: (JSON.parse(res.text) as Status).message ?? '',
  };
}

interface Disagreement {
  id: string;
  text: string;
  ts: Verdict;
  server: Verdict;
}

const agree = (a: Verdict, b: Verdict): boolean =>
  a.ok && b.ok ? true : !a.ok && !b.ok ? JSON.stringify(a.paths) === JSON.stringify(b.paths) : false;

let namespace: string;
const results: { c: GeneratedCase; ts: Verdict; server: Verdict }[] = [];

beforeAll(async () => {
  await installCrds();
  namespace = await createNamespace('differential');
  const cases = generateCases(SEED, COUNT);
  const queue = [...cases];
  // A few requests in flight: the API server answers dry runs in milliseconds, kubectl in ~100 ms.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        results.push({ c, ts: tsVerdict(c.text, c.object), server: await serverVerdict(c, namespace) });
      }
    }),
  );
  results.sort((a, b) => a.c.id.localeCompare(b.c.id, 'en', { numeric: true }));
}, 600_000);

afterAll(() => {
  for (const kind of ['GlooHA', 'KgatewayHA'] as const) {
    const ofKind = results.filter((r) => r.c.object === kind);
    const accepted = ofKind.filter((r) => r.server.ok).length;
    const agreements = ofKind.filter((r) => agree(r.ts, r.server)).length;
    const raw = ofKind.filter((r) => rawJsonOnly(r.c));
    const rawDiffer = raw.filter((r) => !agree(r.ts, r.server)).length;
    const files = ofKind.filter((r) => r.c.kind === 'file').length;
    const objectCases = ofKind.filter((r) => r.c.id.startsWith('object-'));
    const objectAgreements = objectCases.filter((r) => agree(r.ts, r.server)).length;
    const metaCases = ofKind.filter((r) => r.c.id.startsWith('meta-'));
    const metaAgreements = metaCases.filter((r) => agree(r.ts, r.server)).length;
    console.log(
      `differential ${kind}: seed ${SEED}, ${ofKind.length} objects (${ofKind.length - files} JSON as API clients send it, ${files} files through kubectl), ` +
        `${agreements} agreements, ${ofKind.length - agreements} disagreements (of them about status, metadata and integers: ${objectAgreements} of ${objectCases.length} agree; about ObjectMeta, request size and raw JSON: ${metaAgreements} of ${metaCases.length}; raw JSON only API clients send, judged as kubectl's request: ${rawDiffer} of ${raw.length} differ); ` +
        `the API server accepted ${accepted}, rejected ${ofKind.length - accepted}`,
    );
  }
  if (process.env.GLOOHA_DIFF_DUMP) {
    const lines = results
      .filter((r) => !agree(r.ts, r.server))
      .map((r) => JSON.stringify({ id: r.c.id, text: r.c.text, ts: r.ts, server: r.server }));
    writeFileSync(process.env.GLOOHA_DIFF_DUMP, `${lines.join('\n')}\n`);
  }
});

/**
 * Raw JSON only an API client sends (GeneratedCase.rawJson sent as json): render reads files as kubectl
 * does, and kubectl re-encodes what it reads, so render judges these as the request kubectl would send.
 * The API server judges the raw text: a duplicate key fails strict decoding, and a float literal
 * where an integer belongs reaches the CRD's CEL rules as a float64, which fail to evaluate. The same
 * texts as files through kubectl are in the agreement check; docs/api.md lists this class.
 */
const rawJsonOnly = (c: GeneratedCase) => c.rawJson === true && c.kind === 'json';

describe(`glooha render and the API server agree on generated specs (seed ${SEED}, ${COUNT} JSON specs)`, () => {
  it('raw JSON only an API client sends: where render and the API server differ, it is the documented class', () => {
    const raw = results.filter((r) => rawJsonOnly(r.c));
    expect(raw.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.c.rawJson && r.c.kind === 'file').length).toBeGreaterThan(0);
    const unexplained = raw
      .filter((r) => !agree(r.ts, r.server))
      .filter(
        (r) =>
          r.server.ok ||
          !/strict decoding error: duplicate field|expected int, got float64/.test(r.server.detail),
      )
      .map((r) => ({ id: r.c.id, text: r.c.text, ts: r.ts, server: r.server }));
    expect(unexplained).toEqual([]);
  });

  it('the 3 MiB request limit: what the API server refuses with 413, render refuses for its size too', () => {
    const large = results.filter((r) => !r.server.ok && r.server.paths.includes(TOO_LARGE));
    expect(large.length).toBeGreaterThan(0);
    expect(large.filter((r) => !agree(r.ts, r.server)).map((r) => r.c.id)).toEqual([]);
  });

  it('every spec: both accept, or both reject naming the same fields', () => {
    const disagreements: Disagreement[] = results
      .filter((r) => !rawJsonOnly(r.c))
      .filter((r) => !agree(r.ts, r.server))
      .map((r) => ({ id: r.c.id, text: r.c.text, ts: r.ts, server: r.server }));
    expect(results.length).toBeGreaterThanOrEqual(COUNT + COUNT / 5);
    expect(disagreements.slice(0, 10)).toEqual([]);
    expect(disagreements).toHaveLength(0);
  });

  it('the generator reaches both verdicts often, for each kind: at least a quarter accepted, a quarter rejected', () => {
    for (const kind of ['GlooHA', 'KgatewayHA'] as const) {
      const ofKind = results.filter((r) => r.c.object === kind);
      const accepted = ofKind.filter((r) => r.server.ok).length;
      expect(accepted, kind).toBeGreaterThan(ofKind.length / 4);
      expect(ofKind.length - accepted, kind).toBeGreaterThan(ofKind.length / 4);
    }
  });

  it('the object the API server stores has exactly the spec defaultSpec() gives, for every accepted spec of either kind', async () => {
    // Not those with owner references: their owners do not exist, so the garbage collector deletes
    // them as soon as they are stored.
    const accepted = results.filter((r) => r.server.ok && r.ts.ok && !r.c.text.includes('"ownerReferences"'));
    expect(accepted.length).toBeGreaterThan(0);
    const mismatches: string[] = [];
    for (const [i, r] of accepted.entries()) {
      // A fresh name: generated names repeat (the 63-character boundary case). Replaced in the text,
      // not through JSON.parse, which would round an integer beyond 2^53 (metadata.generation).
      const json = (r.server as { json: string }).json;
      const sent = json.replace(/"name"\s*:\s*"[^"]*"/, `"name":"stored-${i}"`);
      const plural = PLURALS[r.c.object];
      const created = await send(
        'POST',
        `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}?fieldValidation=Strict`,
        sent,
        { 'Content-Type': 'application/json' },
      );
      expect(created.code, created.text).toBe(201);
      const name = (JSON.parse(created.text) as GlooHA).metadata.name;
      const got = await send('GET', `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}/${name}`);
      const stored = (JSON.parse(got.text) as GlooHA).spec;
      // Delete it at once: a stored GlooHA is a real one (a fifth target gloo-system), and a later test's
      // cluster-wide operator would reconcile it and take it for the older rival of that test's GlooHA.
      const deleted = await send(
        'DELETE',
        `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}/${name}`,
      );
      expect(deleted.code, deleted.text).toBe(200);
      const expected = (r.ts as { spec: unknown }).spec;
      if (JSON.stringify(sortKeys(stored)) !== JSON.stringify(sortKeys(expected))) {
        mismatches.push(
          `${r.c.id}: stored ${JSON.stringify(stored)}, defaultSpec ${JSON.stringify(expected)}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  }, 600_000);
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, x]) => [k, sortKeys(x)]),
  );
}
