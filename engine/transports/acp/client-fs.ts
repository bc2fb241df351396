import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Posture } from '../../definitions/index.js';
import { confinePath } from '../../execution/index.js';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { JsonRpcError, RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS } from '../shared/index.js';
import { readInside, writeInside, type FsBox } from './confined-fs.js';

type Json = Record<string, unknown>;

/**
 * The client half of ACP's file methods, answered within the posture: reads anywhere under
 * the session's cwd, writes there too (never under .git) unless the posture is plan; `full` may
 * touch any path. For a confined agent (`box`) the read or write itself runs in the agent's own
 * sandbox (confined-fs.ts), so neo never reaches further on its behalf than the agent could.
 * Agents that get these methods route their edits through neo instead of their own tools.
 */
export class AcpFileSystem {
  readonly #cwd: string;
  readonly #posture: () => Posture;
  readonly #box: FsBox | undefined;
  readonly #agentConfig: readonly string[];

  /** `agentConfig`: the agent's own configuration in `cwd` (its descriptor's `projectConfig`), never written below full. */
  constructor(cwd: string, posture: () => Posture, box?: FsBox, agentConfig: readonly string[] = []) {
    this.#cwd = resolve(cwd);
    this.#posture = posture;
    this.#box = box;
    this.#agentConfig = agentConfig;
  }

  /** fs/read_text_file {path, line?, limit?} → {content}. */
  async read(params: Json): Promise<Json> {
    const path = await this.#allowed(params.path, 'read');
    let content: string;
    try {
      content = this.#box === undefined ? await readFile(path, 'utf8') : await readInside(this.#box, path);
    } catch (error) {
      // A file that does not exist yet reads as empty, as Zed (the reference ACP client) answers:
      // agents read before they write, and Gemini CLI fails every new file on an error reply.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { content: '' };
      const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      throw new JsonRpcError(RPC_INTERNAL_ERROR, `cannot read ${path}: ${why}`);
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
    if (this.#box === undefined) await writeFileAtomic(path, params.content);
    else
      await writeInside(this.#box, path, params.content).catch((error: unknown) => {
        throw new JsonRpcError(RPC_INTERNAL_ERROR, `cannot write ${path}: ${(error as Error).message}`);
      });
    return {};
  }

  async #allowed(raw: unknown, what: 'read' | 'write'): Promise<string> {
    if (typeof raw !== 'string' || !isAbsolute(raw))
      throw new JsonRpcError(RPC_INVALID_PARAMS, `fs ${what} needs an absolute path`);
    if (this.#posture() === 'full') return resolve(raw);
    // The one containment rule (engine/posture), on real paths: inside the session's folder, and
    // for a write outside .git and the agent's own configuration too.
    const confined = await confinePath(this.#cwd, raw, { refuseGit: what === 'write', agentConfig: this.#agentConfig });
    if ('path' in confined) return confined.path;
    throw new JsonRpcError(RPC_INVALID_PARAMS, `neo: ${what} refused: ${confined.problem.reason}`);
  }
}
