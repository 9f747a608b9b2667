// V8 keeps a script's source in the heap for the life of the process, at one byte per character only
// if every character is Latin-1; a single other character makes the whole source two bytes per
// character. esbuild already escapes non-ASCII characters in strings, templates, regular expressions
// and identifiers (its default `charset: 'ascii'`), but it keeps some comments verbatim, and a ’ in
// one of undici's doubled the image's 3 MB bundle in memory. What is left is only in comments, where a
// \uXXXX escape means nothing and is harmless.

/** `text` with every non-ASCII UTF-16 code unit written as a `\uXXXX` escape. */
export function escapeNonAscii(text) {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
