/**
 * How the person invoked neo, so that every command neo suggests (a hint, the summary's `neo flow
 * clean …`, `neo flow resume …`) is one they can paste: `npx neo` under npx or an npm script,
 * the path they ran (`node_modules/.bin/neo`) when it was a local install run directly, else
 * `neo`. One rule here; engine text says `neo <command>` and the CLI says it as invoked.
 */
import { isAbsolute, relative, sep } from 'node:path';

/** neo's top-level commands: `neo <one of these>` in a text is a command to rewrite. */
const COMMANDS = [
  'flow',
  'session',
  'sessions',
  'serve',
  'validate',
  'schema',
  'init',
  'dev',
  'trust',
  'persona',
  'personas',
  'backends',
  'doctor',
  'capabilities',
  'script',
  'model',
  'learn',
  'memory',
];

const COMMAND = new RegExp(`(^|[\\s\`'"(])neo (?=(?:${COMMANDS.join('|')})\\b)`, 'g');

let prefix = 'neo';

/**
 * The prefix for this process, from the script it was started as and npm's environment: a
 * package's bin link (`…/node_modules/.bin/neo`) run by npx, `npm exec` or an npm script
 * (`npm_command` set; outside the script the person types npx) is `npx neo`, run directly it is
 * the path (relative to the working folder); anything else (a global install, `node
 * dist/bin/neo.js`) is `neo`. npm's variables alone say nothing: a tool npx started passes them to
 * whatever it runs.
 */
export function invocationOf(env: NodeJS.ProcessEnv, script: string | undefined, cwd: string): string {
  if (script === undefined || !isAbsolute(script)) return 'neo';
  const parts = script.split(sep);
  const bin = parts.length - 2;
  if (parts[bin] !== '.bin' || parts[bin - 1] !== 'node_modules' || parts[bin + 1] !== 'neo') return 'neo';
  if (env.npm_command !== undefined && env.npm_command !== '') return 'npx neo';
  const path = relative(cwd, script);
  return path.startsWith('..') ? script : path;
}

/** Sets the prefix once, when neo starts (cli/bin.ts). */
export function setInvocation(value: string): void {
  prefix = value;
}

/** `text` with each `neo <command>` said as this process was invoked (`npx neo flow clean …`). */
export function asInvoked(text: string): string {
  return prefix === 'neo' ? text : text.replace(COMMAND, (_, before: string) => `${before}${prefix} `);
}
