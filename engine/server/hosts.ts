/** Which Host values name this server, and which bind addresses stay on this machine. */

/** Whether `host` only ever accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The Host values a request may carry for a server listening on `host:port`. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([host, '127.0.0.1', 'localhost', '[::1]']);
  if (host.includes(':') && !host.startsWith('[')) names.add(`[${host}]`);
  const out = new Set<string>();
  for (const name of names) {
    out.add(`${name}:${port}`.toLowerCase());
    // Browsers leave the default port out of Host and Origin.
    if (port === 80) out.add(name.toLowerCase());
  }
  return out;
}
