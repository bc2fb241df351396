/** A 1-based line and column plus the 0-based character offset in the file. */
export interface SourcePosition {
  line: number;
  column: number;
  offset: number;
}

export interface SourceSpan {
  file: string;
  start: SourcePosition;
  end: SourcePosition;
}

/** One problem found in a definition, positioned where the user wrote it. */
export interface Diagnostic {
  /** Stable UPPER_SNAKE code, e.g. DEF_UNKNOWN_KEY. */
  code: string;
  severity: 'error' | 'warning';
  /** Names the field as the user wrote it (`steps[2].persona`). */
  message: string;
  span?: SourceSpan;
  /** JSON Pointer into the document. */
  pointer?: string;
  /** What to do: a did-you-mean, the allowed values, an example. */
  hint?: string;
  /** Other places involved ("first defined here"). */
  related?: Array<{ message: string; span: SourceSpan }>;
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Orders diagnostics by file, then position, then code, for stable output. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => {
    const fileA = a.span?.file ?? '';
    const fileB = b.span?.file ?? '';
    if (fileA !== fileB) return fileA < fileB ? -1 : 1;
    const offsetA = a.span?.start.offset ?? -1;
    const offsetB = b.span?.start.offset ?? -1;
    if (offsetA !== offsetB) return offsetA - offsetB;
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}

/** `/steps/2/persona` → `steps[2].persona`, the way the YAML reads. */
export function pointerToFieldPath(pointer: string): string {
  if (pointer === '' || pointer === '/') return '(document)';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** Splits a JSON Pointer into decoded segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Joins segments into a JSON Pointer. */
export function toPointer(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
