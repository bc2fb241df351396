/**
 * Caps text before it enters the transcript. A tool that prints megabytes would otherwise fill
 * the context window in one call; the head and the tail are usually what matters (the command,
 * the error at the end), so both are kept around a marker saying how much was dropped.
 */

/** `text` within `maxBytes` of UTF-8 (plus the marker), cut on character boundaries. */
export function capText(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most outputs are measured without encoding them.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  const headBytes = boundary(bytes, Math.floor((maxBytes * 2) / 3));
  // The tail starts at or after its budget line, so head + tail never exceed maxBytes.
  let tailStart = bytes.length - (maxBytes - headBytes);
  while (tailStart < bytes.length && ((bytes[tailStart] ?? 0) & 0xc0) === 0x80) tailStart++;
  const omitted = tailStart - headBytes;
  return `${bytes.subarray(0, headBytes).toString('utf8')}\n[… ${omitted} bytes omitted …]\n${bytes.subarray(tailStart).toString('utf8')}`;
}

/** The nearest index at or before `at` that starts a UTF-8 character. */
function boundary(bytes: Buffer, at: number): number {
  let i = Math.max(0, Math.min(at, bytes.length));
  while (i > 0 && i < bytes.length && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  return i;
}
