import type { IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { NeoError } from '../util/errors.js';

/** Requests larger than this are refused (real CLI requests are a few hundred kB). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Reads a request body, undoing gzip/deflate/br content encoding. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES)
      throw new NeoError('MODEL_BODY_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  const raw = Buffer.concat(chunks);
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (encoding) {
    case 'identity':
    case '':
      return raw;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(raw);
    case 'deflate':
      return inflateSync(raw);
    case 'br':
      return brotliDecompressSync(raw);
    default:
      throw new NeoError('MODEL_BODY_ENCODING', `unsupported content-encoding ${encoding}`, {
        hint: 'turn request compression off in the client',
      });
  }
}

/** The body as JSON when it parses, else its text (null when empty). */
export function parseBody(raw: Buffer): { value: unknown; json: boolean } {
  if (raw.length === 0) return { value: null, json: false };
  const text = raw.toString('utf8');
  try {
    return { value: JSON.parse(text), json: true };
  } catch {
    return { value: text, json: false };
  }
}
