// A leaf of its own: `neo flow logs` prints decision lines without loading the session code.
/** `event key=value …`, values JSON-encoded when they are not plain words. */
export function formatLogLine(event: string, fields: Record<string, unknown> = {}): string {
  const parts = [event];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text =
      typeof value === 'string' && /^[\w./:@-]+$/.test(value)
        ? value
        : JSON.stringify(value instanceof Error ? value.message : value);
    parts.push(`${key}=${text}`);
  }
  return parts.join(' ');
}
