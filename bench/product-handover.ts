// The managed product's leaderless time per rolled leader pod, with and without the operator's
// handover (docs/leader-election.md, "The managed product's leader: handing over a dead holder's
// Lease"), on each product's real controller, side by side in one run.
//
//   npx tsx bench/product-handover.ts [--runs N] [--products kgateway,gloo]
//                                     (npm run bench:product-handover -- --runs 5)
//
// Starts its own test control plane and installs, each in its namespace, with Helm 4 and 3 controller
// replicas: kgateway's chart (v2.4.2, KGATEWAY_VERSION; controller-runtime's fixed 15s/10s/2s) and Gloo's chart (1.22.1,
// managed by a GlooHA, so the operator writes LEADER_ELECTION_* 15s/10s/2s; validation off, see
// test/integration/gloo-controller.test.ts). Each product's controller, built from its module, runs one
// process per pod (test/support/product-controller.ts) with the kubelet's end of a deleted pod (the
// process gets SIGTERM; once it exited its containers are reported terminated and only then is the
// object gone), and the operator runs in process with a KgatewayHA and a GlooHA.
//
// Each roll deletes the pod that holds the product's Lease, gracefully, as a drain's eviction or a
// rollout's scale-down does, or crashes the leader's process (SIGKILL: the pod stays, its container is
// restarted in place and the kubelet reports the end in lastState, as after a panic or an OOM kill),
// and measures from that stop to the new holder's first record of the Lease (its acquire: the moment it
// starts leading). The harness reports container states as the kubelet does (running, terminated,
// lastState, restartCount). The rolls alternate between the operator with the handover (default) and
// with --product-lease-handover=false, and between the products, so every variant sees the same machine
// load; the operator is restarted between variants, and every roll starts from three warm controller
// pods and a holder that has led for more than a second (an end reported within the acquire's own
// second proves nothing: finishedAt has whole seconds). Also reported: from the operator's clear to
// the new holder (the standbys' retry), when the old process exited, and the load average.
//
// Why graceful deletions and not `kubectl rollout restart`: kwok reports a new pod Ready at once,
// without the readiness probe, so a rollout on kwok deletes the old pods before their replacements'
// controllers have even started, which measures process start-up, not the handover.
//
// Prints a table (median, p95, min, max) and writes bench/results/product-handover.json.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { KGATEWAY_VERSION, glooChartVersion, glooController } from '../test/env/binaries.js';
import { startControlPlane } from '../test/env/controlplane.js';
import { adminKubeConfig, createNamespace, setControlPlane } from '../test/support/cluster.js';
import { GLOO_CONTROLLER_POD, installGloo } from '../test/support/gloo-chart.js';
import { createGlooHA, createKgatewayHA } from '../test/support/glooha.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayController } from '../test/support/kgateway.js';
import { ProductControllers } from '../test/support/product-controller.js';
import { LeaseRecorder, podOf } from '../test/support/lease-recorder.js';
import {
  installOperatorRbac,
  repoRoot,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../test/support/operator.js';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

interface Summary {
  n: number;
  median: number;
  /** Nearest rank. */
  p95: number;
  min: number;
  max: number;
}

function summarize(values: number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return {
    n: s.length,
    median,
    p95: s[Math.max(0, Math.ceil(0.95 * s.length) - 1)] ?? NaN,
    min: s[0] ?? NaN,
    max: s.at(-1) ?? NaN,
  };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]) =>
    row
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') + '\n';
}

interface Roll {
  product: string;
  variant: 'handover' | 'no handover';
  /** How the leader was stopped: its pod deleted gracefully, or its process crashed (SIGKILL). */
  stop: 'graceful deletion' | 'crash';
  leader: string;
  /** The stop → the new holder's first record, seconds. */
  leaderlessSeconds: number;
  /** The stop → the old process's exit, seconds. */
  exitSeconds?: number;
  /** The operator's clear → the new holder, seconds (handover only). */
  afterClearSeconds?: number;
  cleared: boolean;
  load1: number;
}

interface Variant {
  label: Roll['variant'];
  args: string[];
}

const VARIANTS: Variant[] = [
  { label: 'handover', args: [] },
  { label: 'no handover', args: ['--product-lease-handover=false'] },
];

/** One product's install, its controllers and its Lease's recorder. */
interface Subject {
  product: string;
  label: string;
  ns: string;
  deployment: string;
  podSelector: string;
  controllers: ProductControllers;
  recorder: LeaseRecorder;
}

const PRODUCTS = ['kgateway', 'gloo'] as const;
type ProductName = (typeof PRODUCTS)[number];

async function waitFor<T>(
  what: string,
  probe: () => Promise<T> | T,
  timeoutMs: number,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function installKgateway(): Promise<Subject> {
  const ns = await createNamespace('bench-kgw-handover');
  log(`installing kgateway ${KGATEWAY_VERSION} into ${ns}`);
  const fx = await installKgatewayController(ns, 3);
  const controllers = await ProductControllers.start({
    ...KGATEWAY_CONTROLLER_POD,
    namespace: ns,
    binary: fx.controller!,
    kubeletTermination: true,
    kubeletStatus: true,
    pollMs: 100,
  });
  await createKgatewayHA(ns, 'kgateway', { controller: { replicas: 3 } });
  return {
    product: 'kgateway',
    label: `kgateway ${KGATEWAY_VERSION}`,
    ns,
    deployment: KGATEWAY_CONTROLLER_POD.deployment,
    podSelector: 'kgateway=kgateway',
    controllers,
    recorder: await LeaseRecorder.start(ns, 'kgateway-envoy'),
  };
}

async function installGlooSubject(): Promise<Subject> {
  const binary = glooController();
  const ns = await createNamespace('bench-gloo-handover');
  log(`installing Gloo ${glooChartVersion()} into ${ns}`);
  await installGloo(4, ns, 'gloo', { gateway: { validation: { enabled: false } } });
  const controllers = await ProductControllers.start({
    ...GLOO_CONTROLLER_POD,
    namespace: ns,
    binary,
    kubeletTermination: true,
    kubeletStatus: true,
    pollMs: 100,
  });
  await createGlooHA(ns, 'gloo', { gloo: { replicas: 3 } });
  return {
    product: 'gloo',
    label: `Gloo ${glooChartVersion()}`,
    ns,
    deployment: GLOO_CONTROLLER_POD.deployment,
    podSelector: 'gloo=gloo',
    controllers,
    recorder: await LeaseRecorder.start(ns, 'gloo'),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      products: { type: 'string', default: PRODUCTS.join(',') },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'usage: npx tsx bench/product-handover.ts [--runs N (per variant and product, default 5)] [--products kgateway,gloo]\n',
    );
    return;
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  const products = values.products.split(',').map((p) => p.trim());
  for (const p of products)
    if (!(PRODUCTS as readonly string[]).includes(p))
      throw new Error(`--products: unknown product "${p}" (known: ${PRODUCTS.join(', ')})`);

  const started = Date.now();
  log('starting the control plane');
  const plane = await startControlPlane({ log });
  const { failures: _f, stop: _s, ...info } = plane;
  setControlPlane(info);
  const subjects: Subject[] = [];
  let operator: InProcessOperator | undefined;
  const cleanup = async () => {
    for (const s of subjects) s.recorder.stop();
    await operator?.shutdown('bench done').catch(() => undefined);
    for (const s of subjects) await s.controllers.stop().catch(() => undefined);
    await plane.stop();
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const rolls: Roll[] = [];
  const loadAtStart = loadavg();
  try {
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    const apps = adminKubeConfig().makeApiClient(AppsV1Api);
    // The operator's RBAC and CRDs first: the installs create their HA objects.
    const id: OperatorIdentity = await installOperatorRbac(await createNamespace('bench-handover-op'));
    for (const p of products as ProductName[])
      subjects.push(p === 'kgateway' ? await installKgateway() : await installGlooSubject());

    const settled = async (s: Subject) =>
      waitFor(
        `${s.label}: its rollout done, three controller pods with a process each, one holding the Lease, the others started ≥ 10 s ago`,
        async () => {
          // The operator's first reconcile rolls the pods (its settings): no roll while that runs.
          const dep = await apps.readNamespacedDeployment({ name: s.deployment, namespace: s.ns });
          const rolled =
            (dep.status?.observedGeneration ?? 0) >= (dep.metadata?.generation ?? 1) &&
            dep.status?.updatedReplicas === 3 &&
            dep.status?.replicas === 3;
          const pods = (
            await core.listNamespacedPod({ namespace: s.ns, labelSelector: s.podSelector })
          ).items.filter((p) => !p.metadata?.deletionTimestamp);
          const running = s.controllers.processes();
          const holder = s.recorder.holder();
          const warm = [...running.values()].every((p) => Date.now() - p.startedAt.getTime() > 10_000);
          const acquired = s.recorder.records.find((r) => r.holder === holder)?.at ?? Infinity;
          return rolled &&
            pods.length === 3 &&
            pods.every((p) => running.has(p.metadata!.name!)) &&
            running.has(podOf(holder)) &&
            running.size === 3 &&
            Date.now() - acquired > 2000 &&
            warm
            ? holder
            : undefined;
        },
        300_000,
      );

    const roll = async (s: Subject, v: Variant, stop: Roll['stop'], i: number) => {
      const holder = await settled(s);
      const leader = podOf(holder);
      const pid = s.controllers.processes().get(leader)?.pid;
      const load1 = loadavg()[0]!;
      const stoppedAt = Date.now();
      if (stop === 'crash') s.controllers.kill(leader, 'SIGKILL');
      else await core.deleteNamespacedPod({ name: leader, namespace: s.ns });
      const next = await waitFor(
        `${s.label}: a new holder after the ${stop} of ${leader}`,
        () => s.recorder.nextHolder(stoppedAt, holder),
        120_000,
      );
      const clear = s.recorder.since(stoppedAt).find((x) => x.holder === '');
      const exited = s.controllers.all().find((p) => p.pid === pid)?.exited;
      const r: Roll = {
        product: s.product,
        variant: v.label,
        stop,
        leader,
        leaderlessSeconds: (next.at - stoppedAt) / 1000,
        ...(exited ? { exitSeconds: (exited.at.getTime() - stoppedAt) / 1000 } : {}),
        ...(clear ? { afterClearSeconds: (next.at - clear.at) / 1000 } : {}),
        cleared: clear !== undefined,
        load1,
      };
      rolls.push(r);
      log(
        `roll ${i + 1}/${runs} ${s.label} ${v.label}, ${stop}: ${r.leaderlessSeconds.toFixed(2)} s leaderless${clear ? ` (${r.afterClearSeconds!.toFixed(2)} s after the clear)` : ''}, old process exited after ${r.exitSeconds?.toFixed(2) ?? '?'} s, load ${load1.toFixed(2)}`,
      );
    };

    for (let i = 0; i < runs; i++) {
      for (const v of VARIANTS) {
        await operator?.shutdown('next variant');
        operator = await startOperatorInProcess(id, { args: v.args, logLevel: 'warn' });
        for (const s of subjects) await roll(s, v, 'graceful deletion', i);
        for (const s of subjects) await roll(s, v, 'crash', i);
      }
    }
  } finally {
    await cleanup();
  }

  const groups = subjects.flatMap((s) =>
    VARIANTS.flatMap((v) =>
      (['graceful deletion', 'crash'] as const).flatMap((stop) => {
        const mine = rolls.filter((r) => r.product === s.product && r.variant === v.label && r.stop === stop);
        if (mine.length === 0) return [];
        return [
          {
            product: s.label,
            variant: v.label,
            stop,
            leaderless: summarize(mine.map((r) => r.leaderlessSeconds)),
            exit: summarize(mine.flatMap((r) => (r.exitSeconds === undefined ? [] : [r.exitSeconds]))),
            afterClear: summarize(
              mine.flatMap((r) => (r.afterClearSeconds === undefined ? [] : [r.afterClearSeconds])),
            ),
            cleared: mine.filter((r) => r.cleared).length,
            load1: summarize(mine.map((r) => r.load1)),
          },
        ];
      }),
    ),
  );
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '—');
  process.stdout.write(
    `\nleaderless time per stopped leader (3 replicas, 15s/10s/2s), ${cpus().length} CPUs\n\n` +
      table(
        [
          'product',
          'variant',
          'stop',
          'rolls',
          'median s',
          'p95 s',
          'min s',
          'max s',
          'exit median s',
          'cleared',
          'clear→holder median s',
          'load1 median',
        ],
        groups.map((g) => [
          g.product,
          g.variant,
          g.stop,
          String(g.leaderless.n),
          f(g.leaderless.median),
          f(g.leaderless.p95),
          f(g.leaderless.min),
          f(g.leaderless.max),
          f(g.exit.median),
          String(g.cleared),
          f(g.afterClear.median),
          f(g.load1.median),
        ]),
      ),
  );
  const out = join(repoRoot, 'bench', 'results', 'product-handover.json');
  mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        products: subjects.map((s) => s.label),
        node: process.version,
        cpus: cpus().length,
        loadavgAtStart: loadAtStart,
        loadavgAtEnd: loadavg(),
        runsPerVariant: runs,
        totalSeconds: Math.round((Date.now() - started) / 1000),
        summaries: groups,
        rolls,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`\nwrote ${out}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench/product-handover: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
