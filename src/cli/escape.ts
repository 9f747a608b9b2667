// Text glooha echoes back from its input (field names, values, YAML error snippets) goes to a
// terminal. Control characters there could forge extra lines (a key with a newline that looks like a
// second error), move the cursor or recolour the screen (ANSI escapes), or reorder what is shown
// (bidirectional overrides). They are written as \u escapes instead, so one problem stays one line.

// C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
