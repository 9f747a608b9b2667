// `glooha completion bash|zsh`: completion scripts generated from the one flag table in args.ts, so
// a new flag is completed without touching this file. Object names come from kubectl when it is on
// PATH (completion runs in the user's shell, where kubectl has the same kubeconfig).
import { GROUP } from '../api/constants.js';
import {
  COMMANDS,
  COMMAND_FLAGS,
  FLAGS,
  OUTPUT_VALUES,
  SHELLS,
  flagNames,
  type Command,
  type FlagSpec,
  type Shell,
} from './args.js';
import { CLI_PRODUCTS, PRODUCT_COMMANDS } from './registry.js';

function flagsOf(command: Command): string[] {
  return [...(COMMAND_FLAGS[command] ?? []).flatMap(flagNames), '--help'];
}

/** Values a flag takes, where they are a fixed list. */
function valuesOf(command: Command): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const flag of COMMAND_FLAGS[command] ?? []) {
    const spec = FLAGS[flag] as FlagSpec;
    const values = flag === 'output' ? OUTPUT_VALUES[command] : spec.values;
    if (values) for (const name of flagNames(flag)) out[name] = values;
  }
  return out;
}

/** Flags whose value is a file path. */
function fileFlagsOf(command: Command): string[] {
  return (COMMAND_FLAGS[command] ?? []).filter((f) => (FLAGS[f] as FlagSpec).file).flatMap(flagNames);
}

// Every kind's names, each asked on its own: one CRD missing must not hide the others' names.
const NAMES_CMD = CLI_PRODUCTS.map(
  ({ api }) => `kubectl get ${api.plural}.${GROUP} -o jsonpath='{.items[*].metadata.name} ' 2>/dev/null`,
).join('; ');

/** What a product's command offers for its positional argument, by command. */
const POSITIONAL_VALUES = new Map(PRODUCT_COMMANDS.map((c) => [c.name, c.positionals.values]));

/** Commands whose positional argument is an object's name. */
const POSITIONAL_NAMES: readonly Command[] = ['status', 'helm-values', 'suspend', 'resume', 'reconcile'];

function bash(): string {
  const cases = COMMANDS.map((c) => {
    const values = Object.entries(valuesOf(c))
      .map(([f, v]) => `      ${f}) COMPREPLY=($(compgen -W "${v.join(' ')}" -- "$cur")); return ;;`)
      .join('\n');
    const positional =
      c === 'completion'
        ? `COMPREPLY=($(compgen -W "${SHELLS.join(' ')}" -- "$cur"))`
        : POSITIONAL_VALUES.get(c)
          ? `COMPREPLY=($(compgen -W "${POSITIONAL_VALUES.get(c)?.join(' ')}" -- "$cur"))`
          : POSITIONAL_NAMES.includes(c)
            ? `command -v kubectl >/dev/null && COMPREPLY=($(compgen -W "$(${NAMES_CMD})" -- "$cur"))`
            : ':';
    return `    ${c})
      case "$prev" in
${values ? `${values}\n` : ''}${fileFlagsOf(c).length ? `        ${fileFlagsOf(c).join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;\n` : ''}
      esac
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${flagsOf(c).join(' ')}" -- "$cur")); else ${positional}; fi
      ;;`;
  }).join('\n');
  return `# bash completion for glooha (glooha completion bash)
_glooha() {
  local cur prev cmd
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd="\${COMP_WORDS[1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${COMMANDS.join(' ')} help --help --version" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases}
    help) COMPREPLY=($(compgen -W "${COMMANDS.join(' ')}" -- "$cur")) ;;
  esac
}
complete -F _glooha glooha
`;
}

function zsh(): string {
  // zsh runs bash completion functions through bashcompinit: one script, the same behaviour.
  return `#compdef glooha
# zsh completion for glooha (glooha completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash()}`;
}

export function completionScript(shell: Shell): string {
  return shell === 'bash' ? bash() : zsh();
}
