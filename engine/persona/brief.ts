/**
 * The turn-1 brief a rules decider sends (seed 004 §2 step 3). A model driver rewrites the brief
 * from each backend's briefingNotes; rules cannot read prose, so they apply what every note
 * asks for in the same words: the goal as given, the exact acceptance command the agent must run
 * before it reports done, and a short report at the end. Pure.
 */

export interface BriefShape {
  /** The verify command, when one decides the verdict. */
  verify?: string;
}

export function shapeBrief(brief: string, shape: BriefShape): string {
  const parts = [brief.trim()];
  if (shape.verify !== undefined)
    parts.push(
      `Acceptance: \`${shape.verify}\` must pass. Run it yourself before you report done, and fix the cause of any failure; do not weaken or skip a test.`,
    );
  parts.push('Report: end with a short summary of what changed, why, and how you checked it.');
  return parts.join('\n\n');
}
