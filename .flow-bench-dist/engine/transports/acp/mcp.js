/**
 * Converts provisioned MCP servers (Claude-style `{command, args, env}` or `{type: http|sse,
 * url, headers}` keyed by name) into ACP's McpServer list. Transports the agent did not
 * advertise (mcpCapabilities.http / .sse) are left out and reported as ignored.
 */
export function acpMcpServers(servers, capabilities) {
    const list = [];
    const applied = [];
    const ignored = [];
    for (const [name, raw] of Object.entries(servers ?? {})) {
        const server = (typeof raw === 'object' && raw !== null ? raw : {});
        const type = server.type ?? (typeof server.url === 'string' ? 'http' : 'stdio');
        if (type === 'stdio' && typeof server.command === 'string') {
            list.push({ name, command: server.command, args: Array.isArray(server.args) ? server.args.map(String) : [], env: pairs(server.env, 'name') });
            applied.push(`mcp:${name}`);
        }
        else if ((type === 'http' || type === 'sse') && typeof server.url === 'string' && capabilities[type] === true) {
            list.push({ type, name, url: server.url, headers: pairs(server.headers, 'name') });
            applied.push(`mcp:${name}`);
        }
        else {
            ignored.push(`mcp:${name}`);
        }
    }
    return { list, applied, ignored };
}
function pairs(record, key) {
    if (typeof record !== 'object' || record === null)
        return [];
    return Object.entries(record).map(([name, value]) => ({ [key]: name, value: String(value) }));
}
