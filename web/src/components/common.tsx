import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { POSTURES } from '../../../engine/posture/order.js';
import { ApiError, stream, type StreamEvent } from '../api';

const STATUS_TONE: Record<string, string> = {
  running: 'live',
  idle: 'live',
  waiting: 'warn',
  ended: 'ok',
  succeeded: 'ok',
  success: 'ok',
  failed: 'bad',
  orphaned: 'warn',
  interrupted: 'warn',
  cancelled: 'warn',
  skipped: 'dim',
  pending: 'dim',
};

export function Badge({ value, title }: { value: string; title?: string }) {
  return (
    <span class={`badge tone-${STATUS_TONE[value] ?? 'dim'}`} title={title}>
      {value}
    </span>
  );
}

/** The posture now, against the ceiling fixed at start. */
export function PostureBadge({ posture, max }: { posture?: string; max: string }) {
  const now = posture ?? max;
  return (
    <span
      class={`badge posture posture-${POSTURES.indexOf(now as (typeof POSTURES)[number])}`}
      title={`posture ${now}, ceiling ${max}`}
    >
      {now === max ? now : `${now} ≤ ${max}`}
    </span>
  );
}

export function money(usd: number | undefined): string {
  return usd === undefined ? '—' : `$${usd.toFixed(4)}`;
}

export function ago(iso: string): string {
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return `${Math.round(seconds)}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h ago`;
  return new Date(iso).toLocaleDateString();
}

export function ErrorLine({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const e = error as Partial<ApiError>;
  return (
    <div class="error" role="alert">
      <strong>{e.code ?? 'error'}</strong> {e.message ?? String(error)}
      {e.hint ? <div class="hint">{e.hint}</div> : null}
    </div>
  );
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="panel">
      <header class="panel-head">
        <h2>{title}</h2>
        <div class="actions">{actions}</div>
      </header>
      {children}
    </section>
  );
}

/** A live stream for the life of a component. */
export function useStream(path: string | undefined, onEvent: (event: StreamEvent) => void): string {
  const [state, setState] = useState('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (path === undefined) return;
    return stream(path, (e) => handler.current(e), setState);
  }, [path]);
  return state;
}

/** Calls `load` now and whenever `bump` is called (debounced), keeping the last good value. */
export function useReload<T>(
  load: () => Promise<T>,
  deps: unknown[],
): {
  value: T | undefined;
  error: unknown;
  bump: () => void;
} {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const timer = useRef<number | undefined>(undefined);
  const generation = useRef(0);
  const run = () => {
    const mine = ++generation.current;
    load().then(
      (v) => {
        if (mine !== generation.current) return;
        setValue(v);
        setError(undefined);
      },
      (e: unknown) => mine === generation.current && setError(e),
    );
  };
  useEffect(() => {
    setValue(undefined);
    run();
    return () => clearTimeout(timer.current);
  }, deps);
  return {
    value,
    error,
    bump: () => {
      clearTimeout(timer.current);
      timer.current = window.setTimeout(run, 200);
    },
  };
}
