/**
 * What every `neo` command loads before it does anything: the binary and the chunks it imports
 * statically (and theirs). Neither neo's own agent nor the yaml package may be among them: a
 * static import that drags them in (the learning area once did, through the lessons brief on the
 * flow's path) costs every `neo flow run` tens of milliseconds it never uses. Needs `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';

/** The files a module imports statically (`import … from "./x.js"`, `import "./x.js"`), resolved. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s+(?:[^'";]*?\s+from\s+)?["'](\.[^"']+)["'];?$/gms)].map((m) =>
    join(dirname(file), m[1]!),
  );
}

function startUpClosure(entry: string): string[] {
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const next of staticImports(queue.shift()!)) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return [...seen];
}

describe("the binary's start-up path", () => {
  it("loads neither neo's own agent nor the yaml package", () => {
    const files = startUpClosure(NEO_BIN);
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect({ file, yaml: /^import [^;]*from "yaml";$/m.test(text) }).toEqual({ file, yaml: false });
      expect({ file, agent: text.includes('\n// engine/agent/') }).toEqual({ file, agent: false });
    }
  });
});
