// `npm run check:image`: builds the real image from the Dockerfile (buildah, no Docker engine), inspects
// it, and runs it against the test control plane the way the chart runs it in a pod.
//
//   1. build     scripts/image/build.sh: the offline base image (cached per machine), then
//                `buildah bud --build-arg NODE_IMAGE=<base>` of the unchanged Dockerfile; timed.
//   2. inspect   user 65532:65532, entry point as the Dockerfile says (`node <V8 flags> dist/src/main.js`), OCI labels, size; inside the
//                image: no npm/npx/corepack/yarn, the app files belong to root and the runtime user
//                cannot write them, `--version` prints package.json's version.
//   3. run       the chart's Deployment container (flags derived from the rendered pod spec: read-only
//                root filesystem, user, dropped capabilities, /tmp emptyDir) with the chart
//                ServiceAccount's token, the API server's CA and the namespace mounted at
//                /var/run/secrets/kubernetes.io/serviceaccount and KUBERNETES_SERVICE_HOST/PORT set, as a
//                pod gets them; it must take its Lease and reconcile a GlooHA to Ready; a write to its
//                root filesystem must fail with EROFS.
//   4. helm test the chart's test pod (templates/tests) runs in the image and passes; SIGTERM → the
//                operator exits 0 and releases its Lease; the same test pod then fails (it can fail).
//
// Needs root, buildah, podman and debootstrap (`.ci/run` installs them) and the test control plane
// binaries (test/env/build-testbin.sh). Prints one JSON summary line at the end (sizes, timings).
import { CoordinationV1Api, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from '../test/env/controlplane.js';
import { adminKubeConfig, controlPlane, createNamespace, setControlPlane } from '../test/support/cluster.js';
import { createGlooInstall } from '../test/support/gloo-install.js';
import { createGlooHA, getGlooHA } from '../test/support/glooha.js';
import { boundToPod, installOperatorRbac, metricValue } from '../test/support/operator.js';
import { eventually } from '../test/support/wait.js';
import { find, render } from '../test/unit/chart/helm.js';
import { checkDockerfile } from './check-dockerfile.js';
import { currentLimits, podmanRunArgs, runStreaming, tool } from './image/containers.js';

const repoRoot = join(import.meta.dirname, '..');
const log = (line: string) => console.log(line);
const seconds = (since: number) => Number(((Date.now() - since) / 1000).toFixed(1));
const pkgVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`image check failed: ${what}`);
  log(`  ok: ${what}`);
}

interface ImageConfig {
  User?: string;
  Entrypoint?: string[];
  Cmd?: string[];
  WorkingDir?: string;
  Env?: string[];
  Labels?: Record<string, string>;
  ExposedPorts?: Record<string, unknown>;
}

export async function inspect(image: string): Promise<{ sizeBytes: number; compressedBytes: number }> {
  log(`inspect ${image}`);
  const info = JSON.parse(await tool('buildah', ['inspect', '--type', 'image', image])) as {
    OCIv1: { config: ImageConfig };
  };
  const config = info.OCIv1.config;
  check(config.User === '65532:65532', `runs as 65532:65532 (USER ${config.User})`);
  // The Dockerfile's ENTRYPOINT as built: node, its V8 flags (docs/scale.md), the bundle's main file.
  const entrypoint = checkDockerfile().entrypoint;
  check(
    JSON.stringify(config.Entrypoint) === JSON.stringify(entrypoint) &&
      config.Entrypoint?.at(-1) === 'dist/src/main.js' &&
      !config.Cmd?.length,
    `entry point ${JSON.stringify(config.Entrypoint)}, no CMD (${JSON.stringify(config.Cmd ?? [])})`,
  );
  check(config.WorkingDir === '/app', `working directory ${config.WorkingDir}`);
  check(config.Env?.includes('NODE_ENV=production') === true, 'NODE_ENV=production');
  check(config.Env?.includes('MALLOC_ARENA_MAX=2') === true, 'MALLOC_ARENA_MAX=2');
  check(Object.keys(config.ExposedPorts ?? {}).join() === '8080/tcp', 'exposes 8080/tcp (metrics)');
  const labels = config.Labels ?? {};
  for (const [k, v] of Object.entries({
    'org.opencontainers.image.title': 'glooha-operator',
    'org.opencontainers.image.source': 'https://github.com/glooha/glooha-operator',
    'org.opencontainers.image.licenses': 'Apache-2.0',
  }))
    check(labels[k] === v, `label ${k}=${labels[k]}`);
  const sizeBytes = Number(
    (await tool('podman', ['image', 'inspect', '--format', '{{.Size}}', image])).trim(),
  );
  // What a registry stores and a node pulls: the layers gzip-compressed, as `podman push` writes them.
  const compressedBytes = await compressedSize(image);
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  check(
    sizeBytes > 0 && compressedBytes > 0,
    `size ${mb(sizeBytes)} uncompressed, ${mb(compressedBytes)} compressed`,
  );

  // Inside the image, as the runtime user, with a writable root: what is there and what may be written.
  const probe = `
    const fs = require('node:fs'), path = require('node:path');
    const onPath = (process.env.PATH ?? '').split(':').flatMap((d) =>
      ['npm', 'npx', 'corepack', 'yarn', 'yarnpkg'].filter((t) => fs.existsSync(path.join(d, t))).map((t) => path.join(d, t)));
    const tryWrite = (f) => { try { fs.appendFileSync(f, ''); return 'written'; } catch (e) { return e.code; } };
    const owners = new Set(), writable = [];
    const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name); const s = fs.lstatSync(p); owners.add(s.uid + ':' + s.gid);
      // A symlink's own mode bits (always 0777) mean nothing; its target is checked where it lies.
      if (!s.isSymbolicLink() && (s.mode & 0o022)) writable.push(p);
      if (e.isDirectory()) walk(p); } };
    walk('/app');
    console.log(JSON.stringify({
      uid: process.getuid(), node: process.version, onPath,
      globalModules: fs.existsSync('/usr/local/lib/node_modules'),
      buildConfig: ['/usr/local/lib/node_modules/npm/npmrc', '/usr/local/lib/node_modules/npm/build-ca.crt', '/usr/local/etc/npmrc', '/root/.npmrc', '/root/.npm'].filter((f) => fs.existsSync(f)),
      owners: [...owners], writable: writable.slice(0, 5),
      writeMain: tryWrite('/app/dist/src/main.js'), writePackage: tryWrite('/app/package.json'),
      newFile: tryWrite('/app/new-file'), newInDist: tryWrite('/app/dist/new-file'),
      appModules: fs.existsSync('/app/node_modules'),
    }));`;
  const seen = JSON.parse(
    await tool('podman', [
      'run',
      '--rm',
      '--network=none',
      ...currentLimits(),
      '--entrypoint=["node"]',
      image,
      '-e',
      probe,
    ]),
  ) as Record<string, unknown>;
  check(seen.uid === 65532, `the process runs as uid ${String(seen.uid)}`);
  check(/^v26\./.test(String(seen.node)), `Node.js ${String(seen.node)}`);
  check((seen.onPath as string[]).length === 0, `no npm/npx/corepack/yarn on PATH (${String(seen.onPath)})`);
  check(seen.globalModules === false, 'no /usr/local/lib/node_modules');
  check(seen.appModules === false, 'no /app/node_modules: the operator runs from its bundle');
  check(
    (seen.buildConfig as string[]).length === 0,
    `nothing of the build's npm configuration or cache left (${String(seen.buildConfig)})`,
  );
  check(
    JSON.stringify(seen.owners) === '["0:0"]',
    `every file under /app belongs to 0:0 (${String(seen.owners)})`,
  );
  check(
    (seen.writable as string[]).length === 0,
    `no file under /app is group- or other-writable (${String(seen.writable)})`,
  );
  for (const k of ['writeMain', 'writePackage', 'newFile', 'newInDist'])
    check(seen[k] === 'EACCES', `the runtime user cannot write the app (${k}: ${String(seen[k])})`);
  const version = (
    await tool('podman', ['run', '--rm', '--network=none', ...currentLimits(), image, '--version'])
  ).trim();
  check(
    version === `glooha-operator ${pkgVersion}`,
    `--version prints "${version}" (package.json ${pkgVersion})`,
  );
  return { sizeBytes, compressedBytes };
}

/** What a registry stores and a node pulls: the layers gzip-compressed, as `podman push` writes them. */
async function compressedSize(image: string): Promise<number> {
  const oci = mkdtempSync(join(tmpdir(), 'glooha-oci-'));
  try {
    await tool('podman', ['push', '--quiet', '--compression-format=gzip', image, `oci:${oci}`], {
      timeoutMs: 600_000,
    });
    const blobs = join(oci, 'blobs', 'sha256');
    return readdirSync(blobs).reduce((n, f) => n + statSync(join(blobs, f)).size, 0);
  } finally {
    rmSync(oci, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

interface RunResult {
  readySeconds: number;
  sigtermExitSeconds: number;
  helmTestOutput: string;
}

/** Step 3 and 4: the image against the test control plane, as the chart deploys it. */
async function runAgainstControlPlane(image: string): Promise<RunResult> {
  const plane = await startControlPlane({ log: (l) => log(`  [testenv] ${l}`) });
  const { failures: _f, stop: _s, ...info } = plane;
  setControlPlane(info);
  const secrets = mkdtempSync(join(tmpdir(), 'glooha-sa-'));
  const containers: string[] = [];
  try {
    const namespace = await createNamespace('glooha-image');
    const release = 'glooha-operator';
    // As the chart deploys it: with its fencing admission policy (on by default), which the operator
    // requires before it reconciles (LEADER_ELECT_REQUIRE_FENCING_POLICY=true in the chart's env).
    const rbac = await installOperatorRbac(namespace, { release, fencingPolicy: true });
    const objects = await render({ release, namespace, includeTests: true });
    const deployment = find<V1Deployment>(objects, 'Deployment');
    const testPod = find<V1Pod>(objects, 'Pod', `${release}-test`);
    const podSpec = deployment.spec!.template.spec!;
    const container = podSpec.containers.find((c) => c.name === 'operator')!;

    // What the kubelet mounts for a pod's ServiceAccount: a token bound to the pod (the fencing policy
    // reads the pod's name from it), the cluster CA, the namespace, readable by the pod's user (mkdtemp
    // makes the directory 0700, root's only).
    const podName = `${release}-5d8f7c9b4-x7k2p`;
    const id = await boundToPod(rbac, podName);
    chmodSync(secrets, 0o755);
    const user = id.kubeConfig.getCurrentUser();
    writeFileSync(join(secrets, 'token'), user?.token ?? '', { mode: 0o644 });
    writeFileSync(join(secrets, 'ca.crt'), readFileSync(join(controlPlane().pkiDir, 'ca.crt')), {
      mode: 0o644,
    });
    writeFileSync(join(secrets, 'namespace'), namespace, { mode: 0o644 });
    const apiPort = new URL(controlPlane().server).port;
    const metricsPort = await freePort();
    const clusterEnv = {
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: apiPort,
      // Host network on a shared machine: the chart's ":8080" would collide; same server, free port.
      GLOOHA_METRICS_BIND_ADDRESS: `127.0.0.1:${metricsPort}`,
    };
    const run = podmanRunArgs(podSpec, container, {
      podName,
      namespace,
      serviceAccountDir: secrets,
      env: clusterEnv,
    });
    const name = `glooha-check-${process.pid}`;
    log(`podman run ${run.options.join(' ')} ${image} ${run.argv.join(' ')}`);
    const started = Date.now();
    await tool('podman', ['run', '-d', '--name', name, ...run.options, image, ...run.argv]);
    containers.push(name);
    const operatorLog = () =>
      tool('podman', ['logs', '--tail', '40', name], { withStderr: true }).catch((e: Error) => e.message);

    const base = `http://127.0.0.1:${metricsPort}`;
    const leases = adminKubeConfig().makeApiClient(CoordinationV1Api);
    try {
      await eventually(
        '/readyz 200',
        async () => (await fetch(`${base}/readyz`)).status,
        (s) => s === 200,
        { timeoutMs: 60_000 },
      );
      log(`  ok: /readyz answers 200 after ${seconds(started)}s`);
      const lease = await eventually(
        'the operator holds its Lease',
        () => leases.readNamespacedLease({ name: 'glooha-operator', namespace }),
        (l) => l.spec?.holderIdentity?.startsWith(`${podName}_`) === true,
      );
      log(`  ok: Lease ${namespace}/glooha-operator held by ${lease.spec?.holderIdentity}`);

      await createGlooInstall(adminKubeConfig(), { namespace });
      await createGlooHA(namespace, 'gloo', { gloo: { replicas: 2 } });
      await eventually(
        'GlooHA Ready',
        () => getGlooHA(namespace, 'gloo'),
        (g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
        { timeoutMs: 60_000 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\noperator log:\n${await operatorLog()}`, { cause: err });
    }
    const readySeconds = seconds(started);
    log(`  ok: the image reconciled a GlooHA to Ready ${readySeconds}s after start`);
    const missing = await metricValue(base, 'glooha_fencing_policy_missing');
    check(
      missing === 0,
      `the API server enforces the fencing policy (glooha_fencing_policy_missing ${missing})`,
    );

    // The read-only root filesystem, from inside the running container (as its user).
    const writes = JSON.parse(
      await tool('podman', [
        'exec',
        name,
        'node',
        '-e',
        `const fs = require('node:fs'); const t = (f) => { try { fs.writeFileSync(f, 'x'); return 'written'; } catch (e) { return e.code; } };
         console.log(JSON.stringify({ root: t('/probe'), app: t('/app/probe'), etc: t('/etc/probe'), tmp: t('/tmp/probe') }))`,
      ]),
    ) as Record<string, string>;
    for (const where of ['root', 'app', 'etc'])
      check(
        writes[where] === 'EROFS',
        `read-only root filesystem: a write to /${where === 'root' ? '' : where} fails (${writes[where]})`,
      );
    check(writes.tmp === 'written', `/tmp (the chart's emptyDir) is writable (${writes.tmp})`);

    // The chart's helm test pod, in the same image, against the running operator.
    const testSpec = testPod.spec!;
    const testEnv = { ...clusterEnv, OPERATOR_URL: base };
    const helmTest = async (suffix: string) => {
      const t = podmanRunArgs(testSpec, testSpec.containers[0]!, {
        podName: `${release}-test`,
        namespace,
        serviceAccountDir: secrets,
        env: testEnv,
      });
      const testName = `${name}-test-${suffix}`;
      containers.push(testName);
      await tool('podman', ['run', '--name', testName, ...t.options, image, ...t.argv]).catch(
        () => undefined,
      );
      const code = Number(
        (await tool('podman', ['inspect', '--format', '{{.State.ExitCode}}', testName])).trim(),
      );
      return { code, output: (await tool('podman', ['logs', testName], { withStderr: true })).trim() };
    };
    const passed = await helmTest('pass');
    log(passed.output.replace(/^/gm, '    [helm test] '));
    check(
      passed.code === 0,
      `the chart's helm test passes against the running operator (exit ${passed.code})`,
    );

    // SIGTERM, as the kubelet sends it: exit 0, Lease released.
    const stopping = Date.now();
    await tool('podman', ['kill', '--signal', 'TERM', name]);
    const code = Number((await tool('podman', ['wait', name], { timeoutMs: 30_000 })).trim());
    const sigtermExitSeconds = seconds(stopping);
    if (code !== 0) log(await operatorLog());
    check(code === 0, `SIGTERM → exit ${code} after ${sigtermExitSeconds}s`);
    const released = await leases.readNamespacedLease({ name: 'glooha-operator', namespace });
    check(
      !released.spec?.holderIdentity,
      `the Lease is released on SIGTERM (holder ${JSON.stringify(released.spec?.holderIdentity ?? null)})`,
    );

    const failed = await helmTest('fail');
    log(failed.output.replace(/^/gm, '    [helm test] '));
    check(failed.code !== 0, `the helm test fails once the operator is gone (exit ${failed.code})`);
    return { readySeconds, sigtermExitSeconds, helmTestOutput: passed.output };
  } finally {
    for (const c of containers) await tool('podman', ['rm', '-f', c]).catch(() => undefined);
    rmSync(secrets, { recursive: true, force: true });
    setControlPlane(undefined);
    await plane.stop();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  log('build: scripts/image/build.sh');
  const image = (await runStreaming('bash', [join(repoRoot, 'scripts/image/build.sh')], (l) => log(`  ${l}`)))
    .trim()
    .split('\n')
    .at(-1)!;
  const buildSeconds = seconds(started);
  const { sizeBytes, compressedBytes } = await inspect(image);
  log('run against the test control plane, as the chart deploys it');
  const run = await runAgainstControlPlane(image);
  console.log(
    JSON.stringify({
      image,
      buildSeconds,
      sizeMB: Number((sizeBytes / 1e6).toFixed(1)),
      compressedMB: Number((compressedBytes / 1e6).toFixed(1)),
      readySeconds: run.readySeconds,
      sigtermExitSeconds: run.sigtermExitSeconds,
      totalSeconds: seconds(started),
    }),
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
