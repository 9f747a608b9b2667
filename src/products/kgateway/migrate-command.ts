// `glooha migrate kgateway` (registered in cli.ts): reads GlooHA YAML, validates it like `glooha
// render`, and prints what carries its HA settings over to kgateway (migrate.ts): the values overlay
// for kgateway's chart and the GatewayParameters, PodDisruptionBudgets and HPAs of its gateway
// proxies. Notes (what does not carry over, what is left to do) go to stderr and into the values'
// header.

import { stringifyKubeYaml } from '../../api/kube-yaml.js';
import { validateGlooHA } from '../gloo/validate.js';
import { formatFinding, type Finding } from '../../core/findings.js';
import { KGATEWAY_HELM_CHART, KGATEWAY_VERSION } from './facts.js';
import { migrateToKgateway, type KgatewayMigration } from './migrate.js';
import { EXIT, type Output } from '../../cli/flags.js';
import { readOrFail } from '../../cli/input.js';
import type { CliIO } from '../../cli/io.js';
import { KIND } from '../gloo/api.js';
import { parseGlooHAs } from '../gloo/render.js';
import { escapeControl } from '../../cli/escape.js';

/** Products `glooha migrate` carries a GlooHA's settings to. */
export const MIGRATE_TARGETS = ['kgateway'] as const;
export type MigrateTarget = (typeof MIGRATE_TARGETS)[number];

export interface MigrateArgs {
  command: 'migrate';
  target: MigrateTarget;
  filename: string;
  output: Output;
  /** The Helm release name of kgateway's chart (its controller pods' labels carry it). */
  release: string;
  namespace?: string;
}

/** The chart users install kgateway from (kgateway's release notes). */
export const KGATEWAY_CHART = KGATEWAY_HELM_CHART.reference;

export async function migrate(args: MigrateArgs, io: CliIO): Promise<number> {
  const source = args.filename === '-' ? 'stdin' : args.filename;
  const glooHAs = parseGlooHAs(
    await readOrFail(io, args.filename, KIND),
    source,
    args.namespace ?? 'default',
  );
  let first = true;
  const emit = async (doc: string) => {
    await io.stdout(first ? doc : `---\n${doc}`);
    first = false;
  };
  for (const raw of glooHAs) {
    const validated = validateGlooHA(raw);
    if (!validated.ok) throw new Error('a GlooHA that validated once failed again'); // unreachable
    const g = validated.value;
    const who = `${g.metadata.namespace ?? 'default'}/${g.metadata.name}`;
    const m = migrateToKgateway(g, { release: args.release });
    for (const n of m.notes) io.stderr(`note: ${escapeControl(who)}: ${escapeControl(formatFinding(n))}\n`);
    if (args.output !== 'manifests') await emit(valuesDocument(m, who, args.release));
    if (args.output !== 'helm-values') {
      await emit(stringifyKubeYaml(m.kgatewayHA));
      for (const o of m.objects) await emit(stringifyKubeYaml(o));
    }
  }
  return EXIT.OK;
}

function valuesDocument(m: KgatewayMigration, who: string, release: string): string {
  const header = [
    `# Helm values for kgateway's chart (install/helm/kgateway, ${KGATEWAY_VERSION}), carried over by glooha from GlooHA ${who}.`,
    `# Install: helm install ${release} ${KGATEWAY_CHART} --version ${KGATEWAY_VERSION} -n ${m.namespace} -f values.yaml`,
    `# Upgrade: helm upgrade ${release} ${KGATEWAY_CHART} --version ${KGATEWAY_VERSION} -n ${m.namespace} --reset-then-reuse-values -f values.yaml`,
    ...notesHeader(m.notes),
  ];
  return `${header.join('\n')}\n${stringifyKubeYaml(m.helmValues)}`;
}

function notesHeader(notes: Finding[]): string[] {
  if (notes.length === 0) return [];
  return ['# Notes:', ...notes.map((n) => `#   ${formatFinding(n).replace(/\n/g, ' ')}`)];
}
