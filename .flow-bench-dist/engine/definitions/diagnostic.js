/** True when any diagnostic is an error. */
export function hasErrors(diagnostics) {
    return diagnostics.some((d) => d.severity === 'error');
}
/** Orders diagnostics by file, then position, then code, for stable output. */
export function sortDiagnostics(diagnostics) {
    return [...diagnostics].sort((a, b) => {
        const fileA = a.span?.file ?? '';
        const fileB = b.span?.file ?? '';
        if (fileA !== fileB)
            return fileA < fileB ? -1 : 1;
        const offsetA = a.span?.start.offset ?? -1;
        const offsetB = b.span?.start.offset ?? -1;
        if (offsetA !== offsetB)
            return offsetA - offsetB;
        return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
    });
}
/** `/steps/2/persona` → `steps[2].persona`, the way the YAML reads. */
export function pointerToFieldPath(pointer) {
    if (pointer === '' || pointer === '/')
        return '(document)';
    let out = '';
    for (const raw of pointer.slice(1).split('/')) {
        const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (/^\d+$/.test(segment))
            out += `[${segment}]`;
        else
            out += out === '' ? segment : `.${segment}`;
    }
    return out;
}
/** Splits a JSON Pointer into decoded segments. */
export function pointerSegments(pointer) {
    if (pointer === '')
        return [];
    return pointer
        .slice(1)
        .split('/')
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}
/** Joins segments into a JSON Pointer. */
export function toPointer(segments) {
    return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
