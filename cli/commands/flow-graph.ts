import {
  assertClean,
  assertCompiled,
  compileFlowFile,
  loadPlanDefinitions,
  renderGraph,
} from '../../engine/flow/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import type { CommandIO } from '../io.js';

export async function run(io: CommandIO, planFile: string, options: { format?: 'mermaid' | 'dot' }): Promise<number> {
  const loaded = await loadPlanDefinitions({ planFile, cwd: io.cwd, home: neoHome(io.env) });
  assertClean(loaded, io.cwd);
  const { plan, problems } = compileFlowFile(loaded.set, loaded.file, { home: neoHome(io.env) });
  assertCompiled(problems, loaded.file);
  io.stdout.write(renderGraph(plan, options.format ?? 'mermaid'));
  return EXIT.ok;
}
