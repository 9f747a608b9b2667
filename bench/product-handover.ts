// The managed product's leaderless time per rolled leader pod, with and without the operator's
// handover (docs/leader-election.md, "The managed product's leader: handing over a dead holder's
// Lease"), on kgateway's real controller.
//
//   npx tsx bench/product-handover.ts [--runs N]       (npm run bench:product-handover -- --runs 5)
//
// Starts its own test control plane, installs kgateway's chart (v2.4.0, 3 controller replicas) with
// Helm, runs kgateway's controller built from its module, one process per pod
// (test/support/product-controller.ts), with the kubelet's end of a deleted pod (the process gets
// SIGTERM; once it exited its containers are reported terminated and only then is the object gone),
// and the operator in process with a KgatewayHA for the install. Each roll deletes the pod that holds
// kgateway-envoy, gracefully, as a drain's eviction or a rollout's scale-down does, and measures from
// that deletion to the new holder's first record of the Lease (its acquire: the moment it starts
// leading). The rolls alternate between the operator with the handover (default) and with
// --product-lease-handover=false, so both variants see the same machine load; the operator is
// restarted between variants, and every roll starts from three warm controller pods. Also
// reported: from the operator's clear to the new holder (the standbys' retry), and the load average.
//
// Why graceful deletions and not `kubectl rollout restart`: kwok reports a new pod Ready at once,
// without the readiness probe, so a rollout on kwok deletes the old pods before their replacements'
// controllers have even started, which measures process start-up, not the handover.
//
// Prints a table (median, p95, min, max) and writes bench/results/product-handover.json.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { GROUP, KGATEWAY_PLURAL, VERSION } from '../src/api/constants.js';
import { KGATEWAY_VERSION } from '../test/env/binaries.js';
import { startControlPlane } from '../test/env/controlplane.js';
import { adminKubeConfig, createNamespace, setControlPlane } from '../test/support/cluster.js';
import { helm } from '../test/support/gloo-chart.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayCrds } from '../test/support/kgateway.js';
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
  variant: 'handover' | 'no handover';
  leader: string;
  /** Deletion → the new holder's first record, seconds. */
  leaderlessSeconds: number;
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

async function waitFor<T>(
  what: string,
  probe: () => Promise<T> | T,
  timeoutMs: number,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write('usage: npx tsx bench/product-handover.ts [--runs N (per variant, default 5)]\n');
    return;
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);

  const started = Date.now();
  log('starting the control plane');
  const plane = await startControlPlane({ log });
  const { failures: _f, stop: _s, ...info } = plane;
  setControlPlane(info);
  let controllers: ProductControllers | undefined;
  let operator: InProcessOperator | undefined;
  let recorder: LeaseRecorder | undefined;
  const cleanup = async () => {
    recorder?.stop();
    await operator?.shutdown('bench done').catch(() => undefined);
    await controllers?.stop().catch(() => undefined);
    await plane.stop();
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const rolls: Roll[] = [];
  const loadAtStart = loadavg();
  try {
    const admin = adminKubeConfig();
    const core = admin.makeApiClient(CoreV1Api);
    const fx = (await installKgatewayCrds(KGATEWAY_VERSION, { controller: true })).fx;
    const ns = await createNamespace('bench-kgw-handover');
    log(`installing kgateway ${KGATEWAY_VERSION} into ${ns}`);
    const r = await helm(4, [
      'install',
      'kgateway',
      fx.chart,
      '-n',
      ns,
      '--set',
      'controller.replicaCount=3',
      '--set',
      'controller.resources.limits.cpu=1',
    ]);
    if (!r.ok) throw new Error(`helm install failed: ${r.stderr}`);
    controllers = await ProductControllers.start({ ...KGATEWAY_CONTROLLER_POD,
      namespace: ns,
      binary: fx.controller!,
      kubeletTermination: true,
      pollMs: 100,
    });
    const id: OperatorIdentity = await installOperatorRbac(await createNamespace('bench-kgw-op'));
    await admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: KGATEWAY_PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'KgatewayHA',
        metadata: { name: 'kgateway', namespace: ns },
        spec: { controller: { replicas: 3 } },
      },
    });
    recorder = await LeaseRecorder.start(ns, 'kgateway-envoy');

    const settled = async () =>
      waitFor(
        'three controller pods with a process each, one holding kgateway-envoy, the others started ≥ 10 s ago',
        async () => {
          const pods = (
            await core.listNamespacedPod({ namespace: ns, labelSelector: 'kgateway=kgateway' })
          ).items.filter((p) => !p.metadata?.deletionTimestamp);
          const running = controllers!.processes();
          const holder = recorder!.holder();
          const warm = [...running.values()].every((p) => Date.now() - p.startedAt.getTime() > 10_000);
          return pods.length === 3 &&
            pods.every((p) => running.has(p.metadata!.name!)) &&
            running.has(podOf(holder)) &&
            warm
            ? holder
            : undefined;
        },
        240_000,
      );

    for (let i = 0; i < runs; i++) {
      for (const v of VARIANTS) {
        await operator?.shutdown('next variant');
        operator = await startOperatorInProcess(id, { args: v.args, logLevel: 'warn' });
        const holder = await settled();
        const leader = podOf(holder);
        const load1 = loadavg()[0]!;
        const deletedAt = Date.now();
        await core.deleteNamespacedPod({ name: leader, namespace: ns });
        const next = await waitFor('a new holder', () => recorder!.nextHolder(deletedAt, holder), 90_000);
        const clear = recorder!.since(deletedAt).find((x) => x.holder === '');
        const roll: Roll = {
          variant: v.label,
          leader,
          leaderlessSeconds: (next.at - deletedAt) / 1000,
          ...(clear ? { afterClearSeconds: (next.at - clear.at) / 1000 } : {}),
          cleared: clear !== undefined,
          load1,
        };
        rolls.push(roll);
        log(
          `roll ${i + 1}/${runs} ${v.label}: ${roll.leaderlessSeconds.toFixed(2)} s leaderless${clear ? ` (${roll.afterClearSeconds!.toFixed(2)} s after the clear)` : ''}, load ${load1.toFixed(2)}`,
        );
      }
    }
  } finally {
    await cleanup();
  }

  const summaries = VARIANTS.map((v) => {
    const mine = rolls.filter((r) => r.variant === v.label);
    return {
      variant: v.label,
      leaderless: summarize(mine.map((r) => r.leaderlessSeconds)),
      afterClear: summarize(
        mine.flatMap((r) => (r.afterClearSeconds === undefined ? [] : [r.afterClearSeconds])),
      ),
      cleared: mine.filter((r) => r.cleared).length,
      load1: summarize(mine.map((r) => r.load1)),
    };
  });
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '—');
  process.stdout.write(
    `\nkgateway ${KGATEWAY_VERSION}: leaderless time per gracefully deleted leader pod (3 replicas, controller-runtime 15s/10s/2s), ${cpus().length} CPUs\n\n` +
      table(
        [
          'variant',
          'rolls',
          'median s',
          'p95 s',
          'min s',
          'max s',
          'cleared',
          'clear→holder median s',
          'load1 median',
        ],
        summaries.map((s) => [
          s.variant,
          String(s.leaderless.n),
          f(s.leaderless.median),
          f(s.leaderless.p95),
          f(s.leaderless.min),
          f(s.leaderless.max),
          String(s.cleared),
          f(s.afterClear.median),
          f(s.load1.median),
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
        product: `kgateway ${KGATEWAY_VERSION}`,
        node: process.version,
        cpus: cpus().length,
        loadavgAtStart: loadAtStart,
        loadavgAtEnd: loadavg(),
        runsPerVariant: runs,
        totalSeconds: Math.round((Date.now() - started) / 1000),
        summaries,
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
