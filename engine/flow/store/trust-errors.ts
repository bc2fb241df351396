import { NeoError } from '../../util/errors.js';

/**
 * The store's answers when a file of a run cannot be believed. Both mean the same to a caller
 * that would act on the run (resume it, settle it, answer it, take a sub-flow's outcome): it
 * does not. A reader that only shows the run shows it as such.
 */

/** A file whose MAC fails, a chain that breaks, a plan that is not the one pinned, a planted link. */
export function tamperedError(where: string, what: string): NeoError {
  return new NeoError('STORE_TAMPERED', `${where}: ${what}`, {
    hint: "something that could write this run's folder changed it, so neo will not act on the run; start the flow again (`neo flow run`) and keep the folder as evidence",
  });
}

/** A file with no MAC at all: written before neo authenticated its runs, or stripped of its MACs. */
export function unauthenticatedError(where: string): NeoError {
  return new NeoError(
    'STORE_UNAUTHENTICATED',
    `${where} carries no MAC: the run was recorded before neo authenticated its runs, or its MACs were removed`,
    {
      hint: '`neo flow show` still shows it, but neo will not resume it or act on its approvals; start the flow again (`neo flow run`)',
    },
  );
}

/** Whether `error` says a run's store cannot be believed. */
export function isTrustError(error: unknown): error is NeoError {
  return error instanceof NeoError && (error.code === 'STORE_TAMPERED' || error.code === 'STORE_UNAUTHENTICATED');
}
