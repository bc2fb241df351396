/** A schema string list — `"Read, Grep"` or `["Read","Grep"]` — as an array (`undefined` stays). */
export function toList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : value.split(',');
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
