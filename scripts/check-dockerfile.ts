// Checks the Dockerfile without building it: every COPY source exists and survives .dockerignore or is
// produced by the stage it is copied from, the runtime stage runs a numeric non-root user, an exec-form
// entry point on the file the build emits, and no package manager.
//
//   npx tsx scripts/check-dockerfile.ts     the same checks test/unit/chart/dockerfile.test.ts runs
//
// These catch a broken recipe in a second; `npm run check:image` (scripts/check-image.ts) then builds
// the real image with buildah and runs it.
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Instruction {
  keyword: string; // upper case: FROM, COPY, RUN, ...
  args: string; // the rest of the line, continuations joined
  line: number;
}

export interface Stage {
  name: string; // the AS name, or the index
  base: string; // FROM image or stage name, build args substituted
  instructions: Instruction[];
}

/** Parses a Dockerfile into stages (line continuations, comments, ARG defaults before the first FROM). */
export function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const logical: Instruction[] = [];
  let buffer = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!buffer && (/^\s*#/.test(line) || /^\s*$/.test(line))) return;
    if (buffer && /^\s*#/.test(line)) return; // comment lines inside a continuation are skipped
    if (!buffer) start = i + 1;
    if (line.endsWith('\\')) {
      buffer += line.slice(0, -1) + ' ';
      return;
    }
    buffer += line;
    const m = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(buffer);
    if (m) logical.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start });
    buffer = '';
  });
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  const subst = (s: string) =>
    s.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (all, name: string) => args[name] ?? all);
  for (const ins of logical) {
    if (ins.keyword === 'ARG' && stages.length === 0) {
      const [name, value = ''] = ins.args.split('=', 2);
      args[name!.trim()] = value.trim();
    } else if (ins.keyword === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`Dockerfile:${ins.line}: cannot read FROM ${ins.args}`);
      stages.push({ name: m[2] ?? String(stages.length), base: subst(m[1]!), instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`Dockerfile:${ins.line}: ${ins.keyword} before FROM`);
      stage.instructions.push(ins);
    }
  }
  return { args, stages };
}

export interface Copy {
  from?: string;
  sources: string[];
  dest: string;
  line: number;
}

export function parseCopy(ins: Instruction): Copy {
  let rest = ins.args;
  const flags: Record<string, string> = {};
  for (let m = /^--([a-z-]+)=(\S+)\s+/.exec(rest); m; m = /^--([a-z-]+)=(\S+)\s+/.exec(rest)) {
    flags[m[1]!] = m[2]!;
    rest = rest.slice(m[0].length);
  }
  const parts = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
  if (parts.length < 2) throw new Error(`Dockerfile:${ins.line}: COPY needs a source and a destination`);
  return {
    ...(flags.from ? { from: flags.from } : {}),
    sources: parts.slice(0, -1),
    dest: parts.at(-1)!,
    line: ins.line,
  };
}

/** .dockerignore semantics (last matching pattern wins, `!` re-includes, a match on a directory covers its files). */
export function dockerignore(contextDir: string): (path: string) => boolean {
  const file = join(contextDir, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => {
          const negate = l.startsWith('!');
          const glob = posix.normalize((negate ? l.slice(1) : l).trim()).replace(/^\/+/, '');
          return { negate, re: globToRegExp(glob) };
        })
    : [];
  return (path: string) => {
    const parts = posix.normalize(path).split('/');
    let excluded = false;
    for (const { negate, re } of patterns) {
      // A pattern matches the path itself or any parent directory of it.
      for (let n = 1; n <= parts.length; n++) {
        if (re.test(parts.slice(0, n).join('/'))) {
          excluded = !negate;
          break;
        }
      }
    }
    return !excluded;
  };
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), base) : [relative(base, join(dir, e.name))],
  );
}

/** What the TypeScript build (`npm run build`, tsconfig.build.json) emits for a source file. */
export function buildOutputOf(source: string, root = repoRoot): string {
  const cfg = (file: string) =>
    JSON.parse(readFileSync(join(root, file), 'utf8')) as {
      extends?: string;
      compilerOptions?: Record<string, unknown>;
    };
  const build = cfg('tsconfig.build.json');
  const base = build.extends ? cfg(build.extends) : {};
  const opts = { ...base.compilerOptions, ...build.compilerOptions } as { outDir?: string; rootDir?: string };
  const rel = posix
    .relative(opts.rootDir ?? '.', source)
    .replace(/\.ts$/, '.js')
    .replace(/\.mts$/, '.mjs');
  return posix.join(opts.outDir ?? '.', rel);
}

/**
 * RUN steps whose products are known: npm ci → node_modules, npm run build → the tsc outDir,
 * `node scripts/bundle.mjs OUT` → OUT (its dist/ and package.json).
 */
function productsOf(run: string, root: string): string[] {
  const out: string[] = [];
  if (/\bnpm ci\b/.test(run)) out.push('node_modules');
  if (/\bnpm run build\b/.test(run)) out.push(buildOutputOf('src/x.ts', root).split('/')[0]!);
  const bundle = /\bnode scripts\/bundle\.mjs\s+(\S+)/.exec(run);
  if (bundle) out.push(bundle[1]!);
  return out;
}

/**
 * A script a RUN step starts with node (`node scripts/x.mjs …`) and the local modules it imports,
 * transitively (relative specifiers), as repository paths: all of them must be in the stage.
 */
function scriptInputs(run: string, root: string): string[] {
  const script = /\bnode\s+(scripts\/\S+\.m?js)\b/.exec(run)?.[1];
  if (!script) return [];
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!existsSync(join(root, file))) return;
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(
      /\bfrom\s+['"](\.\.?\/[^'"]+)['"]|\bimport\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/g,
    ))
      visit(posix.join(posix.dirname(file), m[1] ?? m[2]!));
  };
  visit(script);
  return [...seen];
}

export interface StaticReport {
  problems: string[];
  finalStage: Stage;
  entrypoint: string[];
  /** The flags the ENTRYPOINT passes to node before the operator's file (V8 heap sizing: docs/scale.md). */
  nodeFlags: string[];
  user: string;
  runtimeImage: string;
}

/** Every check that needs no Docker engine. `problems` is empty when the Dockerfile is sound. */
export function checkDockerfile(root = repoRoot): StaticReport {
  const problems: string[] = [];
  const { stages } = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const included = dockerignore(root);
  const finalStage = stages.at(-1);
  if (!finalStage) throw new Error('Dockerfile has no stage');

  // What each stage's filesystem holds, as container paths (directories end up as prefixes).
  const holds = new Map<string, Set<string>>();
  const workdirs = new Map<string, string>();
  const stageNames = new Set<string>();
  for (const stage of stages) {
    const have = new Set<string>(holds.get(stage.base) ?? []);
    let workdir = workdirs.get(stage.base) ?? '/';
    for (const ins of stage.instructions) {
      if (ins.keyword === 'WORKDIR') workdir = posix.resolve(workdir, ins.args);
      if (ins.keyword === 'RUN') {
        for (const file of scriptInputs(ins.args, root)) {
          const inStage = posix.resolve(workdir, file);
          if (![...have].some((p) => inStage === p || inStage.startsWith(p + '/')))
            problems.push(
              `Dockerfile:${ins.line}: RUN ${ins.args}: needs ${file}, which no COPY before it brings into the stage`,
            );
        }
        for (const p of productsOf(ins.args, root)) have.add(posix.resolve(workdir, p));
      }
      if (ins.keyword !== 'COPY') continue;
      const copy = parseCopy(ins);
      const dest = posix.resolve(workdir, copy.dest);
      for (const src of copy.sources) {
        const target = copy.dest.endsWith('/') ? posix.join(dest, posix.basename(src)) : dest;
        if (copy.from) {
          if (!stageNames.has(copy.from)) {
            problems.push(`Dockerfile:${copy.line}: COPY --from=${copy.from}: no earlier stage of that name`);
            continue;
          }
          const there = holds.get(copy.from)!;
          const produced = [...there].some(
            (p) => src === p || src.startsWith(p + '/') || p.startsWith(src + '/'),
          );
          if (!produced) {
            problems.push(
              `Dockerfile:${copy.line}: COPY --from=${copy.from} ${src}: stage ${copy.from} does not produce it (it holds ${[...there].join(', ')})`,
            );
          }
        } else {
          const local = join(root, src);
          if (!existsSync(local)) {
            problems.push(`Dockerfile:${copy.line}: COPY ${src}: not in the repository`);
            continue;
          }
          const files = statSync(local).isDirectory()
            ? filesUnder(local).map((f) => posix.join(src, f))
            : [src];
          if (files.filter((f) => included(f)).length === 0)
            problems.push(`Dockerfile:${copy.line}: COPY ${src}: excluded by .dockerignore`);
        }
        have.add(target);
      }
    }
    holds.set(stage.name, have);
    workdirs.set(stage.name, workdir);
    stageNames.add(stage.name);
  }

  // The runtime stage: numeric non-root USER, exec-form ENTRYPOINT on a file the build produces, no npm.
  const last = (kw: string) => finalStage.instructions.filter((i) => i.keyword === kw).at(-1);
  const user = last('USER')?.args ?? '';
  const [uid, gid] = user.split(':');
  if (!/^[0-9]+$/.test(uid ?? '') || Number(uid) === 0)
    problems.push(`final stage USER must be a numeric non-root uid (got "${user}")`);
  if (gid !== undefined && (!/^[0-9]+$/.test(gid) || Number(gid) === 0))
    problems.push(`final stage USER group must be numeric non-root (got "${gid}")`);

  let entrypoint: string[] = [];
  try {
    entrypoint = JSON.parse(last('ENTRYPOINT')?.args ?? 'null') as string[];
  } catch {
    problems.push('final stage ENTRYPOINT must be in exec form (a JSON array)');
  }
  // ["node", ...flags, file]: node's own flags first (each --name[=value]), then the operator's file.
  const entry = Array.isArray(entrypoint) ? entrypoint.at(-1) : undefined;
  const nodeFlags = Array.isArray(entrypoint) ? entrypoint.slice(1, -1) : [];
  if (
    !Array.isArray(entrypoint) ||
    entrypoint[0] !== 'node' ||
    entrypoint.length < 2 ||
    entry === undefined ||
    entry.startsWith('-')
  ) {
    problems.push(
      `final stage ENTRYPOINT must be ["node", "--flag", ..., "<file>"] (got ${JSON.stringify(entrypoint)})`,
    );
  } else if (nodeFlags.some((f) => !/^--[a-z][a-z0-9-]*(=\S+)?$/.test(f))) {
    problems.push(
      `final stage ENTRYPOINT: node flags must each be one --name[=value] before the file (got ${JSON.stringify(nodeFlags)})`,
    );
  } else {
    const file = posix.resolve(workdirs.get(finalStage.name)!, entry);
    const have = holds.get(finalStage.name)!;
    if (![...have].some((p) => file === p || file.startsWith(p + '/')))
      problems.push(`ENTRYPOINT ${entry}: the final stage does not contain it`);
    const built = buildOutputOf('src/main.ts', root);
    if (entry !== built) problems.push(`ENTRYPOINT ${entry}: npm run build emits src/main.ts as ${built}`);
    if (!existsSync(join(root, 'src', 'main.ts')))
      problems.push('ENTRYPOINT: src/main.ts (the operator entry point) does not exist yet');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    if (pkg.bin?.['glooha-operator'] !== entry)
      problems.push(
        `package.json bin.glooha-operator (${pkg.bin?.['glooha-operator']}) differs from the ENTRYPOINT file`,
      );
  }

  // No package manager or build tooling in the runtime image.
  const runs = finalStage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const distroless = finalStage.base.includes('distroless');
  if (!distroless) {
    for (const tool of [
      '/usr/local/bin/npm',
      '/usr/local/bin/npx',
      '/usr/local/bin/corepack',
      '/usr/local/lib/node_modules',
    ]) {
      if (!runs.some((r) => /\brm\b/.test(r) && r.includes(tool)))
        problems.push(`final stage keeps ${tool}: remove it`);
    }
  }
  if (runs.some((r) => /(^|&&|;|\|\|?)\s*(npm|npx|yarn|corepack|apt-get|apt)\s/.test(r)))
    problems.push('final stage runs a package manager');
  const copiedModules = finalStage.instructions
    .filter((i) => i.keyword === 'COPY')
    .map(parseCopy)
    .filter((c) => c.sources.some((s) => s.endsWith('node_modules')));
  for (const c of copiedModules) {
    const from = stages.find((s) => s.name === c.from);
    const prodOnly = from?.instructions.some(
      (i) => i.keyword === 'RUN' && /npm ci\b.*--omit=dev/.test(i.args),
    );
    if (!prodOnly)
      problems.push(
        `Dockerfile:${c.line}: node_modules in the final stage must come from an \`npm ci --omit=dev\` stage`,
      );
  }
  return { problems, finalStage, entrypoint, nodeFlags, user, runtimeImage: finalStage.base };
}

function main(): void {
  const report = checkDockerfile();
  console.log(
    `Dockerfile: runtime ${report.runtimeImage}, USER ${report.user}, ENTRYPOINT ${JSON.stringify(report.entrypoint)}`,
  );
  if (report.problems.length > 0) {
    console.error(`Dockerfile problems:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log('static checks: ok (npm run check:image builds and runs the image)');
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main();
}
