import { readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Posture } from '../../definitions/index.js';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { JsonRpcError, RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS } from '../shared/index.js';

type Json = Record<string, unknown>;

/**
 * The client half of ACP's file methods, answered within the posture: reads anywhere under
 * the session's cwd, writes there too unless the posture is plan; `full` may touch any path.
 * Agents that get these methods route their edits through neo instead of their own tools.
 */
export class AcpFileSystem {
  readonly #cwd: string;
  readonly #posture: () => Posture;

  constructor(cwd: string, posture: () => Posture) {
    this.#cwd = resolve(cwd);
    this.#posture = posture;
  }

  /** fs/read_text_file {path, line?, limit?} → {content}. */
  async read(params: Json): Promise<Json> {
    const path = await this.#allowed(params.path, 'read');
    let content: string;
    try {
      content = await readFile(path, 'utf8');
    } catch (error) {
      // A file that does not exist yet reads as empty, as Zed (the reference ACP client) answers:
      // agents read before they write, and Gemini CLI fails every new file on an error reply.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { content: '' };
      throw new JsonRpcError(
        RPC_INTERNAL_ERROR,
        `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
    const line = typeof params.line === 'number' && params.line >= 1 ? params.line : 1;
    const limit = typeof params.limit === 'number' && params.limit >= 0 ? params.limit : undefined;
    if (line === 1 && limit === undefined) return { content };
    const lines = content.split('\n');
    return { content: lines.slice(line - 1, limit === undefined ? undefined : line - 1 + limit).join('\n') };
  }

  /** fs/write_text_file {path, content} → {}. */
  async write(params: Json): Promise<Json> {
    if (this.#posture() === 'plan')
      throw new JsonRpcError(RPC_INVALID_PARAMS, 'neo: posture plan forbids writing files');
    const path = await this.#allowed(params.path, 'write');
    if (typeof params.content !== 'string')
      throw new JsonRpcError(RPC_INVALID_PARAMS, 'fs/write_text_file needs string content');
    await writeFileAtomic(path, params.content);
    return {};
  }

  async #allowed(raw: unknown, what: 'read' | 'write'): Promise<string> {
    if (typeof raw !== 'string' || !isAbsolute(raw))
      throw new JsonRpcError(RPC_INVALID_PARAMS, `fs ${what} needs an absolute path`);
    const path = resolve(raw);
    if (this.#posture() === 'full') return path;
    const real = await realOrNearest(path);
    const root = await realOrNearest(this.#cwd);
    const rel = relative(root, real);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))) return path;
    throw new JsonRpcError(
      RPC_INVALID_PARAMS,
      `neo: ${what} outside the session's working directory is not allowed (${path})`,
    );
  }
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
async function realOrNearest(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return resolve(await realOrNearest(parent), relative(parent, path));
  }
}
