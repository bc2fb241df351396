import { useEffect, useState } from 'preact/hooks';

/** The UI's few routes, on real paths (the server answers index.html for them). */
export type Route =
  | { page: 'sessions' }
  | { page: 'session'; id: string }
  | { page: 'flows' }
  | { page: 'run'; id: string }
  | { page: 'approvals' };

export function parseRoute(path: string): Route {
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'sessions' && parts[1] !== undefined) return { page: 'session', id: decodeURIComponent(parts[1]) };
  if (parts[0] === 'flows' && parts[1] !== undefined) return { page: 'run', id: decodeURIComponent(parts[1]) };
  if (parts[0] === 'flows') return { page: 'flows' };
  if (parts[0] === 'approvals') return { page: 'approvals' };
  return { page: 'sessions' };
}

const listeners = new Set<() => void>();

export function navigate(path: string): void {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  listeners.forEach((f) => f());
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** Props of an in-app link: a real href, and a click that navigates without reloading. */
export function link(path: string) {
  return {
    href: path,
    onClick: (event: MouseEvent) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      navigate(path);
    },
  };
}
