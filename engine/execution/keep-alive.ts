/**
 * Work that waits on something outside the process (an agent that may answer in ten minutes, a
 * person at an approval) must keep Node running: a promise alone does not, and a process whose
 * event loop empties just ends — with exit code 0 — in the middle of that work. A holder keeps
 * one ref'd timer alive until the last holder lets go.
 */
let holders = 0;
let timer: NodeJS.Timeout | undefined;

/** Keeps the process alive until the returned function is called (idempotent). */
export function keepAlive(): () => void {
  if (holders++ === 0) timer = setInterval(() => undefined, 2 ** 31 - 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (--holders === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
