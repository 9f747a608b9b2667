// One version, from package.json, everywhere a user sees one:
//   package.json version → Chart.yaml version and appVersion → the image tag the chart defaults to
//   (values image.tag empty = appVersion) → the image in deploy/install.yaml → a CHANGELOG.md section.
// `npm run sync:chart` writes the chart and install.yaml from package.json; this check fails when any of
// them (or the changelog) disagrees. The release workflow adds `--tag vX.Y.Z`: the tag must match too.
//
//   npx tsx scripts/check-versions.ts [--tag v0.1.0]
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from './sync-chart.js';

interface Versions {
  problems: string[];
  version: string;
  image: string;
}

export function checkVersions(root = repoRoot, tag?: string): Versions {
  const read = (p: string) => readFileSync(join(root, p), 'utf8');
  const problems: string[] = [];
  const version = (JSON.parse(read('package.json')) as { version: string }).version;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    problems.push(`package.json version ${version} is not a semantic version (MAJOR.MINOR.PATCH)`);

  const chart = parse(read('charts/glooha-operator/Chart.yaml')) as { version: string; appVersion: string };
  if (chart.version !== version)
    problems.push(`Chart.yaml version ${chart.version} ≠ package.json ${version}`);
  if (chart.appVersion !== version)
    problems.push(`Chart.yaml appVersion ${chart.appVersion} ≠ package.json ${version}`);

  const values = parse(read('charts/glooha-operator/values.yaml')) as {
    image: { repository: string; tag: string; digest: string };
  };
  if (values.image.tag !== '' || values.image.digest !== '')
    problems.push('values.yaml image.tag and image.digest must stay empty: the image tag is the appVersion');
  const image = `${values.image.repository}:${version}`;

  const images = parseAllDocuments(read('deploy/install.yaml'))
    .map(
      (d) =>
        d.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: { image: string }[] } } } },
    )
    .filter((o) => o?.kind === 'Deployment')
    .flatMap((o) => o.spec?.template?.spec?.containers?.map((c) => c.image) ?? []);
  if (images.length === 0) problems.push('deploy/install.yaml has no Deployment container image');
  for (const i of images)
    if (i !== image) problems.push(`deploy/install.yaml runs ${i}, want ${image} (run npm run sync:chart)`);

  if (!new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm').test(read('CHANGELOG.md')))
    problems.push(`CHANGELOG.md has no "## [${version}]" section`);
  if (tag !== undefined && tag !== `v${version}`)
    problems.push(
      `the tag ${tag} ≠ v${version} (package.json): bump package.json, npm run sync:chart, then tag`,
    );
  return { problems, version, image };
}

function main(): void {
  const i = process.argv.indexOf('--tag');
  const tag = i >= 0 ? process.argv[i + 1] : undefined;
  const { problems, version, image } = checkVersions(repoRoot, tag);
  if (problems.length > 0) {
    console.error(`versions disagree:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(
    `versions: ${version} in package.json, Chart.yaml, CHANGELOG.md; image ${image} in deploy/install.yaml${tag ? `; tag ${tag}` : ''}`,
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
