/**
 * Small pure text helpers for the scripted model server: splitting streamed text into fragments
 * and filling `{{name}}` placeholders.
 */

/**
 * Splits `text` into fragments of at most `size` characters (code points, so a surrogate pair is
 * never cut in half). An empty text yields no fragments.
 */
export function fragments(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  const step = Math.max(1, Math.floor(size));
  for (let i = 0; i < points.length; i += step) out.push(points.slice(i, i + step).join(''));
  return out;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** Fills `{{name}}` from `vars`; an unknown name is left as written so the mistake stays visible. */
export function fillTemplate(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : whole));
}

/** The placeholder names used in `text`. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** Fills placeholders in every string inside a JSON value (keys are left alone). */
export function fillDeep(value: unknown, vars: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return fillTemplate(value, vars);
  if (Array.isArray(value)) return value.map((item) => fillDeep(item, vars));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = fillDeep(inner, vars);
    return out;
  }
  return value;
}

/** A rough token estimate (four characters a token), so scripts without usage still report some. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

const CWD_PATTERNS: readonly RegExp[] = [
  /<cwd>([^<\n]+)<\/cwd>/,
  // droid shows a shell transcript: "% pwd" followed by the directory.
  /(?:^|\n)% pwd\n(\/[^\n]+)/,
  // gemini lists its workspace in a session context: "- **Workspace Directories:**" then "  - /dir".
  /\*\*Workspace Directories:\*\*\n\s*- (\/[^\n]+)/,
  /(?:Primary working directory|Current working directory|Working directory|working directory is|cwd)\s*[:=]?\s*[`"']?(\/[^\s`"'<>]+)/,
];

/**
 * The working directory a CLI announces in its prompt (codex: `<cwd>…</cwd>`; droid: `% pwd` and
 * its output; gemini: its first workspace directory; claude, opencode, copilot: "Working directory: …"),
 * used to fill `{{cwd}}`.
 */
export function detectCwd(texts: readonly string[]): string | undefined {
  for (const pattern of CWD_PATTERNS) {
    for (const text of texts) {
      const match = pattern.exec(text);
      if (match?.[1] !== undefined) return match[1].trim().replace(/[.,;:)]+$/, '');
    }
  }
  return undefined;
}
