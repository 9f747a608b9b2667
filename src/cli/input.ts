// Reading `glooha render`'s input with a size cap. Without one, `-f /dev/zero` or an endless stdin
// grows memory until the process dies, and a large value costs ~40× its size once parsed. A GlooHA
// cannot be larger than the API server accepts in one request (3 MiB, --max-request-bytes), so the
// cap is set just above it: room for a few GlooHAs and comments in one stream, nothing like a heap.

import { open } from 'node:fs/promises';

export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/** Input over the cap, or not readable as text. */
export class UnreadableInput extends Error {
  override name = 'UnreadableInput';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text of `bytes`; kubectl refuses invalid UTF-8 too. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UnreadableInput(`${what} is not UTF-8 text`);
  }
}

export function tooLarge(what: string, maxBytes: number): UnreadableInput {
  return new UnreadableInput(
    `${what} is larger than ${maxBytes / (1024 * 1024)} MiB, the most glooha render reads (a GlooHA cannot exceed the API server's 3 MiB request limit)`,
  );
}

/** Reads at most maxBytes of a file (a FIFO or device too), failing beyond that without reading on. */
export async function readFileCapped(path: string, maxBytes: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length <= maxBytes) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw tooLarge(path, maxBytes);
    return decodeUtf8(buffer.subarray(0, length), path);
  } finally {
    await file.close();
  }
}

/** Reads a stream to its end, at most maxBytes of it. */
export async function readStreamCapped(
  stream: AsyncIterable<Buffer | string>,
  maxBytes: number,
  what: string,
): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    if (length > maxBytes) throw tooLarge(what, maxBytes);
    chunks.push(bytes);
  }
  return decodeUtf8(Buffer.concat(chunks), what);
}
