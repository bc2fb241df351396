/**
 * At most `max` characters of `text`: a longer text keeps its start and end around an ellipsis
 * that says how much was left out, so a 400 KB value quoted in a message stays one readable line.
 */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = ` … (${text.length - max} more characters) … `;
  const keep = Math.max(2, max - marker.length);
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}${marker}${text.slice(text.length - (keep - head))}`;
}
