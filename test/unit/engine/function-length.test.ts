// Readable wiring: no function in the engine's wiring folders (src/controller, src/cli, src/metrics)
// runs over MAX_LINES lines unless its leading comment says why ("Long: <reason>"). A function is
// anything with a body — declarations, methods, arrows, function expressions — measured from its
// first to its last line, nested functions included in their parent's length (a long parent is long
// to read whatever it nests). The folders are walked, so a new file is covered without a change here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CHECKED = ['src/controller', 'src/cli', 'src/metrics'];
export const MAX_LINES = 100;
/** The marker a leading comment uses to justify a long function: "Long: <why>" (the why not empty). */
const REASON = /\bLong:\s*\S/;

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
  justified: boolean;
}

function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  return '(anonymous)';
}

/** The comments before a function, or before the statement that declares it (`const f = () => …`). */
function leadingComments(node: ts.Node, sf: ts.SourceFile): string {
  let at: ts.Node = node;
  while (
    at.parent &&
    (ts.isVariableDeclaration(at.parent) ||
      ts.isVariableDeclarationList(at.parent) ||
      ts.isVariableStatement(at.parent) ||
      ts.isPropertyAssignment(at.parent) ||
      ts.isPropertyDeclaration(at.parent) ||
      ts.isExportAssignment(at.parent))
  )
    at = at.parent;
  const ranges = ts.getLeadingCommentRanges(sf.text, at.getFullStart()) ?? [];
  return ranges.map((r) => sf.text.slice(r.pos, r.end)).join('\n');
}

/** Every function with a body over MAX_LINES lines in one source text. */
export function longFunctions(file: string, text: string): LongFunction[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node;
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES)
        found.push({
          file,
          name: nameOf(fn, sf),
          line: first + 1,
          lines,
          justified: REASON.test(leadingComments(fn, sf)),
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const fn = (name: string, bodyLines: number, comment = '') =>
  `${comment}\nexport function ${name}(): number {\n${'  void 0;\n'.repeat(bodyLines)}  return 1;\n}\n`;

describe('function length', () => {
  it('measures declarations, arrows and methods, and honours only a stated reason', () => {
    const text = [
      fn('short', MAX_LINES - 3),
      fn('long', MAX_LINES),
      fn('justified', MAX_LINES, '/** Long: one table, read top to bottom. */'),
      fn('emptyReason', MAX_LINES, '// Long:'),
      `const arrow = () => {\n${'  void 0;\n'.repeat(MAX_LINES)}};`,
      `class C {\n  method() {\n${'    void 0;\n'.repeat(MAX_LINES)}  }\n}`,
    ].join('\n');
    const found = longFunctions('x.ts', text).map((f) => `${f.name}:${f.justified}`);
    expect(found).toEqual([
      'long:false',
      'justified:true',
      'emptyReason:false',
      'arrow:false',
      'method:false',
    ]);
    // The limit is inclusive: exactly MAX_LINES lines passes.
    expect(longFunctions('x.ts', fn('edge', MAX_LINES - 3)).map((f) => f.lines)).toEqual([]);
    expect(longFunctions('x.ts', fn('over', MAX_LINES - 2)).map((f) => f.lines)).toEqual([MAX_LINES + 1]);
  });

  const all = CHECKED.flatMap(sources).flatMap((file) =>
    longFunctions(relative(ROOT, join(ROOT, file)), readFileSync(join(ROOT, file), 'utf8')),
  );

  it(`no function in ${CHECKED.join(', ')} is over ${MAX_LINES} lines without a reason`, () => {
    const unexplained = all
      .filter((f) => !f.justified)
      .map(
        (f) => `${f.file}:${f.line} ${f.name} is ${f.lines} lines: split it, or say why in a "Long:" comment`,
      );
    expect(unexplained).toEqual([]);
  });
});
