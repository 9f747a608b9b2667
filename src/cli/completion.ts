// `glooha completion bash|zsh`: completion scripts generated from the one flag table in args.ts, so
// a new flag is completed without touching this file. GlooHA names come from kubectl when it is on
// PATH (completion runs in the user's shell, where kubectl has the same kubeconfig).
import {
  COMMANDS,
  FLAGS,
  MIGRATE_TARGETS,
  OUTPUTS,
  SHELLS,
  STATUS_OUTPUTS,
  type Command,
  type Shell,
} from './args.js';

function flagsOf(command: Command): string[] {
  const spec = FLAGS[command];
  const names: string[] = [];
  for (const [long, short] of [...Object.entries(spec.values), ...Object.entries(spec.booleans ?? {})]) {
    names.push(long);
    if (short) names.push(short);
  }
  return [...names, '--help'];
}

/** Values a flag takes, where they are a fixed list. */
function valuesOf(command: Command): Record<string, readonly string[]> {
  return command === 'render' || command === 'migrate'
    ? { '-o': OUTPUTS, '--output': OUTPUTS }
    : command === 'status'
      ? { '-o': STATUS_OUTPUTS, '--output': STATUS_OUTPUTS }
      : {};
}

const NAMES_CMD = `kubectl get gloohas.glooha.io -o jsonpath='{.items[*].metadata.name}' 2>/dev/null`;

function bash(): string {
  const cases = COMMANDS.map((c) => {
    const values = Object.entries(valuesOf(c))
      .map(([f, v]) => `      ${f}) COMPREPLY=($(compgen -W "${v.join(' ')}" -- "$cur")); return ;;`)
      .join('\n');
    const positional =
      c === 'completion'
        ? `COMPREPLY=($(compgen -W "${SHELLS.join(' ')}" -- "$cur"))`
        : c === 'migrate'
          ? `COMPREPLY=($(compgen -W "${MIGRATE_TARGETS.join(' ')}" -- "$cur"))`
          : c === 'status' || c === 'helm-values'
            ? `command -v kubectl >/dev/null && COMPREPLY=($(compgen -W "$(${NAMES_CMD})" -- "$cur"))`
            : ':';
    return `    ${c})
      case "$prev" in
${values ? `${values}\n` : ''}        -f|--filename|--install|--kubeconfig) COMPREPLY=($(compgen -f -- "$cur")); return ;;
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
