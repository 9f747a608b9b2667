/** `text` with every non-ASCII UTF-16 code unit written as a `\uXXXX` escape. */
export function escapeNonAscii(text: string): string;
