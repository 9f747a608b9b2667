// A full garbage collection on request. `glooha render` builds and drops one YAML document at a time;
// each costs about a kilobyte per node while it is built, and V8 collects the old ones only when its
// heap has grown well past what is live (a stream of five 32,000-node documents peaked at 55–100 MB
// from run to run, and at about 30 MB collected after each). V8 offers gc() only behind a flag, which
// can be set at run time; the function is then taken from a fresh context.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
