import type { AgentSettings } from '../core/plan.js';

/**
 * A step's brief with the lessons block at its end when the step opts in (`lessons: true`). The
 * filter is the step's own backend and task tags; a step whose backend is not known yet gets no
 * backend-scoped lesson (fail closed). The block is data inside an untrusted envelope: it never
 * changes the step's ceiling, its gate or its rules, which were compiled before it was read.
 */
export async function briefWithLessons(home: string, brief: string, settings: AgentSettings): Promise<string> {
  if (settings.lessons !== true) return brief;
  // Loaded here, not at the top: a flow whose steps want no lessons never loads the learning code.
  const { lessonBlock } = await import('../../learning/index.js');
  const block = await lessonBlock(home, {
    backendIds: settings.backend === undefined ? [] : [settings.backend],
    taskTags: settings.taskTags,
  });
  return block === '' ? brief : `${brief}\n\n${block}`;
}
