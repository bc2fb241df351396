/**
 * The reason an ask neo cannot read is denied with: which backend, what it could not read, and the
 * raw shape (clipped), so the adapter can be taught the shape. The posture gate denies an ask
 * carrying one below full (engine/posture decideAsk).
 */
export function unreadableReason(backendId: string, what: string, raw: unknown): string {
  let shape: string;
  try {
    shape = JSON.stringify(raw) ?? String(raw);
  } catch {
    shape = String(raw);
  }
  if (shape.length > 400) shape = `${shape.slice(0, 400)}…`;
  return `${backendId} asked ${what}; the ask was ${shape}`;
}
