import type { InputProblem } from './input-problem.js';

/** Deepest list/object nesting an input value may have (as for definitions). */
export const MAX_INPUT_DEPTH = 64;

/**
 * What makes an input value unusable later, found before the run starts: a NUL byte (in a
 * string or a key) can never reach a command's environment or an agent's arguments, and nesting
 * past {@link MAX_INPUT_DEPTH} would overflow the stack when the value is turned into JSON.
 * Walks without recursion, so the check itself cannot overflow.
 */
export function inputValueProblem(name: string, value: unknown): InputProblem | undefined {
  const stack: Array<[unknown, string, number]> = [[value, name, 0]];
  while (stack.length > 0) {
    const [item, path, depth] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return nulByte(name, path);
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      return {
        code: 'FLOW_INPUT_TOO_DEEP',
        message: `input \`${name}\` nests lists and objects more than ${MAX_INPUT_DEPTH} levels deep (at \`${path}\`)`,
        hint: 'flatten the value',
      };
    }
    if (Array.isArray(item)) {
      item.forEach((inner, i) => stack.push([inner, `${path}[${i}]`, depth + 1]));
      continue;
    }
    for (const [key, inner] of Object.entries(item)) {
      const at = `${path}.${key}`;
      if (key.includes('\u0000')) return nulByte(name, at);
      stack.push([inner, at, depth + 1]);
    }
  }
  return undefined;
}

function nulByte(name: string, path: string): InputProblem {
  return {
    code: 'FLOW_INPUT_NUL_BYTE',
    message: `input \`${name}\` holds a NUL byte${path === name ? '' : ` (at \`${JSON.stringify(path).slice(1, -1)}\`)`}: no command or agent can receive it`,
    hint: 'remove the \\0 from the value (a file path or text never contains one)',
  };
}
