/**
 * A flow or persona run attaches to `neo serve` when one runs for its NEO_HOME: its sessions,
 * flow events and metrics stream to the server, and a person's guidance, answers and cancel
 * reach the run from the browser. With no server this is one stat and nothing else.
 */
import type { FlowObservation, RunObserver, SessionHost } from '../../engine/flow/index.js';
import { attachToServer, type ServerAttachment } from '../../engine/server/index.js';

export interface RunAttachment {
  /** The run's observer, also forwarding to the server. */
  observer: RunObserver;
  sessionHost: SessionHost;
  attachment: ServerAttachment;
  close(): Promise<void>;
}

export async function attachRun(
  home: string,
  label: string,
  observer: RunObserver,
  interrupt: (why: string) => void,
): Promise<RunAttachment | undefined> {
  const attachment = await attachToServer(home, label);
  if (attachment === undefined) return undefined;
  attachment.onCancel(() => interrupt('cancelled from the control plane'));
  return {
    observer: (observation: FlowObservation) => {
      observer(observation);
      attachment.observeFlow(observation);
    },
    sessionHost: {
      metrics: attachment.metrics,
      serviceCreated: (service) => attachment.bindSessions(service),
    },
    attachment,
    close: () => attachment.close(),
  };
}
