// The image recipe, checked without a Docker engine (there is none in CI): every COPY source exists
// in the repository and survives .dockerignore, or is produced by the earlier stage it is copied from;
// the runtime stage runs the current Node LTS as a numeric non-root user with no package manager, and
// its entry point is the file `npm run build` emits for src/main.ts. `npm run check:image` goes further:
// it builds the image with buildah and runs it against the test control plane (scripts/check-image.ts).
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildOutputOf,
  checkDockerfile,
  dockerignore,
  parseCopy,
  parseDockerfile,
  repoRoot,
} from '../../../scripts/check-dockerfile.js';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
/**
 * The V8 flags the image runs the operator with, measured in docs/scale.md ("Node's flags in the
 * image"; --expose-gc turns on the idle memory release, src/process/memory-release.ts): dropping one gives
 * back the idle RSS it saves, so changing them needs a new measurement.
 */
const IMAGE_NODE_FLAGS = ['--max-semi-space-size=4', '--expose-gc'];
const { stages } = parseDockerfile(dockerfile);
const runtime = stages.at(-1)!;

describe('Dockerfile', () => {
  it('passes every static check (COPY sources, stage products, USER, ENTRYPOINT, no npm at run time)', () => {
    expect(checkDockerfile().problems).toEqual([]);
  });

  it('is multi-stage: npm ci → npm run build, bundle → runtime', () => {
    const runs = (name: string) =>
      stages
        .find((s) => s.name === name)
        ?.instructions.filter((i) => i.keyword === 'RUN')
        .map((i) => i.args);
    expect(stages.map((s) => s.name)).toEqual(['deps', 'build', 'runtime']);
    expect(runs('deps')?.[0]).toMatch(/^npm ci\b/);
    expect(runs('build')).toEqual(['npm run build', 'node scripts/bundle.mjs /app/bundle']);
    expect(stages.find((s) => s.name === 'build')?.base).toBe('deps');
  });

  it('runs on the current Node.js LTS (26, Active LTS since 2026-10-28), slim or distroless', () => {
    expect(runtime.base).toMatch(
      /^(node:26(\.\d+)*-(trixie-)?slim|gcr\.io\/distroless\/nodejs26-debian\d+)(@sha256:[a-f0-9]{64})?$/,
    );
    // Every stage builds with the same Node major, so node_modules and the build match the runtime.
    for (const s of stages) if (!stages.some((t) => t.name === s.base)) expect(s.base).toBe(runtime.base);
  });

  it('runs as the numeric non-root user the chart expects (65532:65532)', () => {
    expect(checkDockerfile().user).toBe('65532:65532');
    const values = readFileSync(join(repoRoot, 'charts/glooha-operator/values.yaml'), 'utf8');
    expect(values).toMatch(/runAsUser: 65532/);
  });

  it('starts `node --max-semi-space-size=4 --expose-gc dist/src/main.js`, the file npm run build emits for src/main.ts', () => {
    expect(checkDockerfile().entrypoint).toEqual(['node', ...IMAGE_NODE_FLAGS, 'dist/src/main.js']);
    expect(buildOutputOf('src/main.ts')).toBe('dist/src/main.js');
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin['glooha-operator']).toBe('dist/src/main.js');
  });

  it('limits glibc to two malloc arenas at run time (MALLOC_ARENA_MAX=2, measured in docs/scale.md)', () => {
    const env = runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => i.args);
    expect(env).toContain('MALLOC_ARENA_MAX=2');
    expect(env).toContain('NODE_ENV=production');
  });

  it('sends only the build inputs as context (.dockerignore)', () => {
    const included = dockerignore(repoRoot);
    for (const p of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'scripts/copy-assets.mjs',
      'scripts/bundle.mjs',
      'scripts/ascii-source.mjs',
      'src/log.ts',
    ])
      expect(included(p), p).toBe(true);
    for (const p of [
      'node_modules/yaml/package.json',
      'dist/src/main.js',
      '.git/config',
      'test/unit/chart/helm.ts',
      'charts/glooha-operator/values.yaml',
      '.env',
      'src/foo.test.ts',
    ])
      expect(included(p), p).toBe(false);
  });

  it('copies into the runtime stage only the bundle: its package.json and dist (no node_modules)', () => {
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map(parseCopy);
    expect(copies.map((c) => `${c.from}:${c.sources.join(',')}`)).toEqual([
      'build:/app/bundle/package.json',
      'build:/app/bundle/dist',
    ]);
  });
});

describe('the checker itself', () => {
  it('catches a missing COPY source, an unknown stage, a root user and a shell-form entry point', () => {
    const bad = parseDockerfile(`FROM node:26-slim AS a
WORKDIR /app
COPY nope.txt ./
FROM node:26-slim
COPY --from=zzz /x /y
USER root
ENTRYPOINT node x.js
`);
    expect(bad.stages).toHaveLength(2);
    expect(parseCopy(bad.stages[0]!.instructions[1]!)).toEqual({
      sources: ['nope.txt'],
      dest: './',
      line: 3,
    });
    expect(parseCopy(bad.stages[1]!.instructions[0]!).from).toBe('zzz');
  });

  /** Runs `fn` on a copy of the repository's build inputs, for a Dockerfile of its own. */
  function withBuildInputs(fn: (root: string) => void): void {
    const root = mkdtempSync(join(tmpdir(), 'glooha-dockerfile-'));
    try {
      for (const f of [
        '.dockerignore',
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
      ])
        cpSync(join(repoRoot, f), join(root, f));
      cpSync(join(repoRoot, 'scripts'), join(root, 'scripts'), { recursive: true });
      symlinkSync(join(repoRoot, 'src'), join(root, 'src'));
      fn(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }

  it('refuses a RUN of a script whose local imports no COPY brought into the stage', () => {
    withBuildInputs((root) => {
      writeFileSync(
        join(root, 'Dockerfile'),
        dockerfile.replace(
          /^COPY scripts\/copy-assets\.mjs .*$/m,
          'COPY scripts/copy-assets.mjs scripts/bundle.mjs ./scripts/',
        ),
      );
      expect(checkDockerfile(root).problems).toEqual([
        expect.stringMatching(
          /RUN node scripts\/bundle\.mjs \/app\/bundle: needs scripts\/ascii-source\.mjs, which no COPY before it brings/,
        ),
      ]);
    });
  });

  it('takes node flags before the file in the ENTRYPOINT, and refuses a flag after it or a bare word', () => {
    withBuildInputs((root) => {
      const check = (entrypoint: string[]) => {
        writeFileSync(
          join(root, 'Dockerfile'),
          dockerfile.replace(/^ENTRYPOINT .*$/m, `ENTRYPOINT ${JSON.stringify(entrypoint)}`),
        );
        return checkDockerfile(root);
      };
      const ok = check(['node', '--max-semi-space-size=1', '--optimize-for-size', 'dist/src/main.js']);
      expect(ok.problems).toEqual([]);
      expect(ok.nodeFlags).toEqual(['--max-semi-space-size=1', '--optimize-for-size']);
      expect(check(['node', 'dist/src/main.js']).nodeFlags).toEqual([]);
      expect(check(['node', 'dist/src/main.js', '--max-semi-space-size=1']).problems.join()).toMatch(
        /ENTRYPOINT must be \["node", "--flag", \.\.\., "<file>"\]/,
      );
      expect(check(['node', 'max-semi-space-size=1', 'dist/src/main.js']).problems.join()).toMatch(
        /node flags must each be one --name\[=value\] before the file/,
      );
    });
  });

  it('reads ARG defaults and line continuations', () => {
    const parsed = parseDockerfile('ARG IMG=node:26-slim\nFROM ${IMG} AS x\nRUN a \\\n  # comment\n  && b\n');
    expect(parsed.stages[0]?.base).toBe('node:26-slim');
    expect(parsed.stages[0]?.instructions[0]?.args).toBe('a    && b');
  });
});
