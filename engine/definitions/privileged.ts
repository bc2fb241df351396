import type { Diagnostic } from './diagnostic.js';
import { toPointer, pointerToFieldPath } from './diagnostic.js';
import type { DefinitionKind } from './kinds.js';
import type { YamlSource } from './source.js';

const TRUST_HINT = 'run `neo trust` in this repository to allow it (recorded under NEO_HOME)';

/**
 * Drops privileged fields from a definition that comes from an untrusted project layer: a
 * `driver: true`, a posture above acceptEdits, and whole backend descriptors and capability
 * entries (they name executables). Each drop is a warning that says how to trust the project.
 * Returns `data: undefined` when the whole definition is ignored.
 */
export function stripUntrusted(
  kind: DefinitionKind,
  data: Record<string, unknown>,
  source: YamlSource,
): { data: Record<string, unknown> | undefined; ignored: string[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const ignored: string[] = [];
  if (kind === 'backend' || kind === 'capability') {
    diagnostics.push({
      code: 'DEF_UNTRUSTED_FIELD',
      severity: 'warning',
      message: `${kind} definitions from an untrusted project are ignored: they name programs to run`,
      span: source.spanOf(source.doc.contents),
      hint: TRUST_HINT,
    });
    return { data: undefined, ignored: ['(whole file)'], diagnostics };
  }
  const copy = structuredClone(data);
  const drop = (segments: Array<string | number>, why: string) => {
    const parent = segments
      .slice(0, -1)
      .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], copy) as
      Record<string | number, unknown> | undefined;
    const last = segments[segments.length - 1]!;
    if (parent === undefined || !(last in parent)) return;
    delete parent[last];
    const pointer = toPointer(segments);
    const field = pointerToFieldPath(pointer);
    ignored.push(field);
    diagnostics.push({
      code: 'DEF_UNTRUSTED_FIELD',
      severity: 'warning',
      message: `\`${field}\` ${why} is ignored: this project is not trusted`,
      span: source.spanOf(source.locate(segments.map(String)).node),
      pointer,
      hint: TRUST_HINT,
    });
  };
  const dropFullPosture = (segments: Array<string | number>, node: Record<string, unknown> | undefined) => {
    if (!node) return;
    for (const key of ['maxPosture', 'initialPosture', 'posture']) {
      if (node[key] === 'full') drop([...segments, key], '(a posture above acceptEdits)');
    }
  };
  if (kind === 'persona') {
    if (copy.driver === true) drop(['driver'], '(a driver persona)');
    if (copy.permissionMode === 'bypassPermissions') drop(['permissionMode'], '(bypassPermissions is posture full)');
    dropFullPosture([], copy);
  } else if (kind === 'policy') {
    dropFullPosture([], copy);
  } else if (kind === 'flow') {
    dropFullPosture(['defaults'], copy.defaults as Record<string, unknown> | undefined);
    for (const list of ['steps', 'finally'] as const) {
      const steps = copy[list];
      if (Array.isArray(steps)) steps.forEach((step, i) => dropFullPosture([list, i], step as Record<string, unknown>));
    }
  }
  return { data: copy, ignored, diagnostics };
}
