// Garbage collected once it has grown, on request. `glooha render` builds and drops one YAML document
// at a time, and the yaml package keeps about a kilobyte per node while it builds one; V8 collects
// the old ones only when its heap has grown well past what is live (a stream of five 32,000-node
// documents peaked at 55–100 MB from run to run; Gloo's chart written back by --merge-into at 75 MB).
// Called after each document read (api/kube-yaml.ts readKubeYaml, which only the CLI uses) and each
// write of the CLI (cli/io.ts collectingGarbage), never by the operator, this keeps the heap within
// GROWTH of what the last collection left: Gloo's chart read and written back peaks at 44–46 MB instead of 59–75 MB, for
// about 0.5 s more CPU (one full collection per GROWTH allocated). V8 offers gc()
// only behind a flag, which can be set at run time; the function is then taken from a fresh context.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const GROWTH = 8 * 1024 * 1024;

let gc: (() => void) | undefined;
let usedAfterLast = 0;

export function collectGarbageIfGrown(): void {
  if (getHeapStatistics().used_heap_size < usedAfterLast + GROWTH) return;
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  usedAfterLast = getHeapStatistics().used_heap_size;
}
