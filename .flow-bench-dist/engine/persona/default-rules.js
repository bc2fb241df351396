/** Edit tool names across backends (neo and script, Claude Code, codex, ACP agents). */
export const EDIT_TOOL_NAMES = ['write', 'edit', 'delete', 'rename', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'apply_patch', 'fileChange', 'create', 'Create', 'replace', 'write_file', 'edit_file'];
export const DEFAULT_RULES = {
    clarify: [{ decision: 'allow', tool: EDIT_TOOL_NAMES, path: '**' }],
    otherwise: 'deny',
};
/** A persona's rules, filled with the defaults for what it leaves out. */
export function rulesWithDefaults(rules) {
    if (rules === undefined)
        return DEFAULT_RULES;
    return { ...rules, clarify: rules.clarify ?? DEFAULT_RULES.clarify, otherwise: rules.otherwise ?? 'deny' };
}
