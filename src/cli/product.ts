// What the CLI asks of a product: its kind (the names kubectl and --kind know it by), how `glooha
// status`, `check` and `helm-values` read its installs and objects, the words its help uses, and the
// commands of its own (`glooha render` for Gloo, `glooha migrate kgateway`). Each product's folder
// exports one; src/products/cli.ts lists them, and src/cli/registry.ts hands that list to the CLI.
import type { ApiKind } from '../api/kind.js';
import type { V1Deployment } from '@kubernetes/client-node';
import type { FlagSpec, FlagValues } from './flags.js';
import type { CliIO } from './io.js';
import type { ProductRender } from './render.js';

/** One line of `glooha check`. */
export type Verdict = 'ok' | 'warn' | 'FAIL';
export interface CheckResult {
  verdict: Verdict;
  check: string;
  detail: string;
}

/** A GET that answers undefined for a 404 and turns other failures into the CLI's errors. */
export type Get = <T>(what: string, path: string) => Promise<T | undefined>;

/** What a product's own command parsed: its command's name, and its own fields beside it. */
export interface ProductArgs {
  command: string;
}

/** A command of a product's own: parsed with the shared flag table and its own flags. */
export interface ProductCommand {
  /** The word after `glooha`. */
  name: string;
  /** Flags of its own, beside the shared ones (flags.ts, args.ts). */
  flags?: Readonly<Record<string, FlagSpec>>;
  /** The flags it takes (besides --help), in the order help and completion list them. */
  commandFlags: readonly string[];
  /** The values of -o, when it takes -o. */
  outputs?: readonly string[];
  /** Its positional arguments; `values` is what completion offers for them. */
  positionals: { min: number; max: number; name?: string; values?: readonly string[] };
  /** Its lines in `glooha --help`'s list of commands. */
  synopsis: string;
  /** `glooha <name> --help`. */
  usage: string;
  /** Its arguments from the flags and positionals given (a UsageError for bad ones). */
  parse(values: FlagValues, positionals: readonly string[]): ProductArgs;
  /** Runs it; resolves to the exit status. */
  run(args: ProductArgs, io: CliIO): Promise<number>;
}

export interface CliProduct {
  api: ApiKind;
  /** The product's name in prose: "Gloo", "kgateway". */
  name: string;
  /** Its leader's Lease in prose, for `glooha status --help`: "Gloo's Lease gloo". */
  leaseInProse: string;
  /**
   * The label selector of the Deployment each install of the product has exactly one of (its control
   * plane): `glooha check` finds the installs by it.
   */
  installSelector: string;
  /** status.components' keys in the order `glooha status` lists them; `each` for a map of components. */
  statusComponents: readonly { key: string; each?: boolean }[];
  /** The Helm values ConfigMap's name is `<NAME><suffix>` until status names it. */
  helmValuesSuffix: string;
  /** `glooha helm-values` and the product's `helm upgrade` with it, for the command's help. */
  helmValuesExample?: string;
  /** A further check of each install `glooha check` finds, and what it checks in prose (for its help). */
  installCheck?: {
    inProse: string;
    run(get: Get, deployment: V1Deployment, now: Date): Promise<CheckResult>;
  };
  /** `glooha render` for objects of its kind (src/cli/render.ts). */
  render?: ProductRender;
  /** Commands of its own. */
  commands: readonly ProductCommand[];
}
