// The outside world of a CLI command: its I/O (so tests run commands in-process) and the error for
// input the user must fix.

export interface CliIO {
  /** The file's text; may stop reading (and throw UnreadableInput) beyond maxBytes. */
  readFile(path: string, maxBytes: number): string | Promise<string>;
  readStdin(maxBytes: number): Promise<string>;
  /** Resolves when the text may be followed by more (stdout's backpressure). */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
}

/** Input the user must fix: printed as a list, exit status 2, no stack trace. */
export class InvalidInput extends Error {
  override name = 'InvalidInput';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is invalid`);
  }
}
