// The `glooha` executable as users get it: from a checkout (npm run glooha --, node dist/... after a
// build) and from the packed tarball (`npm pack`, then `npx --package ./glooha-operator-*.tgz glooha`),
// which is what `npm i -g` and npx from the registry install.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'glooha-pack-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the glooha executable, packed and from a checkout', () => {
  it(
    'npm pack (prepack builds dist/), then npx --package ./tarball glooha works',
    { timeout: 300_000 },
    async () => {
      await exec('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: repoRoot });
      const tarball = readdirSync(dir).find((f) => /^glooha-operator-.*\.tgz$/.test(f));
      expect(tarball).toBeDefined();
      // --prefer-offline: the dependencies come from npm's cache (filled by npm ci) when they are there.
      const npx = (args: string[]) =>
        exec('npx', ['--yes', '--prefer-offline', '--package', `./${tarball}`, ...args], {
          cwd: dir,
          env: { ...process.env, npm_config_update_notifier: 'false' },
        });
      const help = await npx(['glooha', '--help']);
      expect(help.stdout).toContain('glooha status [NAME]');
      const version = await npx(['glooha', '--version']);
      expect(version.stdout).toMatch(/^glooha \d+\.\d+\.\d+/);
      // The packaged templates are found (render reads them from dist/src, the engine's and kgateway's).
      const render = await npx(['glooha', 'render', '-f', join(repoRoot, 'examples', 'glooha.yaml')]);
      expect(render.stdout).toContain('kind: PodDisruptionBudget');
      // kgateway's own template, in its folder, is packaged too.
      const kgw = await npx(['glooha', 'render', '-f', join(repoRoot, 'examples', 'kgatewayha.yaml')]);
      expect(kgw.stdout).toContain('kind: GatewayParameters');
      // A cluster command with no kubeconfig: exit 3 and one line, from the packed build too.
      const noCluster = await npx(['glooha', 'status', '--kubeconfig', join(dir, 'none')]).catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect('code' in noCluster && noCluster.code).toBe(3);
      expect((noCluster as { stderr: string }).stderr).toBe(
        `glooha: kubeconfig ${join(dir, 'none')} (--kubeconfig) does not exist: give an existing file\n`,
      );
      const operator = await npx(['glooha-operator', '--version']);
      expect(operator.stdout).toMatch(/^glooha-operator \d+\.\d+\.\d+/);

      // From the checkout, after the build prepack ran: both ways the README shows.
      const built = await exec(process.execPath, ['dist/src/cli/glooha.js', '--version'], { cwd: repoRoot });
      expect(built.stdout).toBe(version.stdout);
      const script = await exec('npm', ['run', '--silent', 'glooha', '--', '--version'], { cwd: repoRoot });
      expect(script.stdout).toBe(version.stdout);
    },
  );
});

describe('npx glooha in a fresh checkout', () => {
  it(
    'works without a build (bin/glooha.js builds and caches a bundle of the source), with no npm banner in its output',
    { timeout: 300_000 },
    async () => {
      // The checkout as git has it (tracked and new files, no dist/), and the dependencies npm ci
      // installs; a fresh npm cache, so npx links the package's bins as it does the first time.
      const checkout = join(dir, 'checkout');
      const files = (
        await exec('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: repoRoot })
      ).stdout
        .split('\0')
        .filter((f) => f && !f.startsWith('dist/') && f !== 'node_modules');
      for (const f of files) {
        mkdirSync(join(checkout, dirname(f)), { recursive: true });
        cpSync(join(repoRoot, f), join(checkout, f));
      }
      symlinkSync(join(repoRoot, 'node_modules'), join(checkout, 'node_modules'));
      const env = {
        ...process.env,
        npm_config_cache: join(dir, 'npm-cache'),
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
      };
      const npx = (args: string[]) => exec('npx', args, { cwd: checkout, env });
      const version = await npx(['glooha', '--version']);
      expect(version.stdout).toMatch(/^glooha \d+\.\d+\.\d+\n$/);
      // The bundle it ran, cached under the sources' hash (node_modules here is the repository's).
      const cache = join(checkout, 'node_modules', '.cache', 'glooha-cli');
      expect(readdirSync(cache).some((d) => /^[0-9a-f]{16}$/.test(d))).toBe(true);
      // The output is glooha's alone (what `npx glooha render ... | kubectl apply -f -` reads).
      const render = await npx(['glooha', 'render', '-f', 'examples/glooha-small.yaml']);
      expect(render.stdout).toMatch(/^apiVersion: /);
      // The bundle finds a product's template in its folder (dist/products/<product>/ beside it).
      const kgw = await npx(['glooha', 'render', '-f', 'examples/kgatewayha.yaml']);
      expect(kgw.stdout).toContain('kind: GatewayParameters');
      const unusable = await npx(['glooha', 'status', '--kubeconfig', '/dev/null']).catch(
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect('code' in unusable && unusable.code).toBe(3);
      expect((unusable as { stderr: string }).stderr).toBe(
        'glooha: kubeconfig /dev/null (--kubeconfig) is empty: it must be a kubeconfig (apiVersion: v1, kind: Config, clusters, users, contexts)\n',
      );
    },
  );
});
