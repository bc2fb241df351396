/** The diff fallback outside git: paths from file-edit tool calls (seed 004 §6). Pure. */
const PATH_KEYS = ['path', 'file_path', 'filePath', 'notebook_path', 'from', 'to'];
/**
 * The paths a tool call edits, when its tool is one of the backend's editToolNames: its
 * `path`/`file_path`/… inputs (both ends of a rename).
 */
export function editPathsOf(toolName, input, editToolNames) {
    if (!editToolNames.includes(toolName) || typeof input !== 'object' || input === null)
        return [];
    const record = input;
    const paths = [];
    for (const key of PATH_KEYS) {
        const value = record[key];
        if (typeof value === 'string' && value !== '')
            paths.push(value);
    }
    return paths;
}
