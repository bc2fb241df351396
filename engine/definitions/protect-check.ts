import { didYouMean } from '../util/did-you-mean.js';
import { isProtectPreset, presetGlobs, PROTECT_PRESET_NAMES } from '../posture/index.js';
import type { Diagnostic } from './diagnostic.js';
import { toPointer } from './diagnostic.js';
import type { YamlSource } from './source.js';

/**
 * Each `@preset` of a `protect:` list (a flow step's or a persona's) names a known preset; an
 * unknown one is located where it is written, with the nearest name. A list written as one
 * comma-separated string is located at the string. `source` is asked for only to locate a
 * problem: a persona restored from the packaged snapshot is never parsed when it has none.
 */
export function checkProtect(
  source: () => YamlSource,
  value: string | string[] | undefined,
  segments: ReadonlyArray<string | number>,
): Diagnostic[] {
  if (value === undefined) return [];
  const entries = Array.isArray(value)
    ? value.map((entry, i) => [entry.trim(), [...segments, i]] as const)
    : value.split(',').map((entry) => [entry.trim(), [...segments]] as const);
  const out: Diagnostic[] = [];
  for (const [entry, at] of entries) {
    if (!isProtectPreset(entry) || presetGlobs(entry) !== undefined) continue;
    const suggestion = didYouMean(entry, PROTECT_PRESET_NAMES);
    out.push({
      code: 'DEF_PROTECT_PRESET',
      severity: 'error',
      message: `\`${entry}\` is not a protect preset`,
      span: source().spanOf(source().locate(at.map(String)).node),
      pointer: toPointer([...at]),
      hint: suggestion
        ? `did you mean \`${suggestion}\`?`
        : `presets: ${PROTECT_PRESET_NAMES.join(', ')}; anything else is a glob and does not start with @`,
    });
  }
  return out;
}
