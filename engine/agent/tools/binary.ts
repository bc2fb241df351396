/** Binary detection: a NUL byte in the first 8 KB, or bytes that are not UTF-8. */
import { isUtf8 } from 'node:buffer';

const SNIFF_BYTES = 8192;

export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return true;
  // Cut back to a character boundary so a multi-byte character split at the sniff edge passes.
  let end = head.length;
  if (bytes.length > SNIFF_BYTES) while (end > 0 && ((head[end - 1] ?? 0) & 0xc0) === 0x80) end--;
  if (bytes.length > SNIFF_BYTES && end > 0 && ((head[end - 1] ?? 0) & 0x80) !== 0) end--;
  return !isUtf8(head.subarray(0, end));
}
