import { AnchorHTMLAttributes, MouseEvent, createContext, useContext, useEffect, useState } from 'react';
import { config } from './config';

/**
 * The console's routes are paths below `{base}/admin` (the server answers the page for all of them), switched in
 * the browser with the History API: links work with the keyboard, open in new tabs and survive a reload.
 */
const PREFIX = () => `${config.base}/admin`;

/** The path below `/admin`: '' for the start page, else e.g. `/org/…/users`. */
export function routePath(): string {
  const path = location.pathname.startsWith(PREFIX()) ? location.pathname.slice(PREFIX().length) : '';
  return path.replace(/\/$/, '');
}

const RouteContext = createContext<{ path: string; search: URLSearchParams }>({ path: '', search: new URLSearchParams() });

/** Whether the user has moved within the app since it loaded (then a new page's heading takes the focus). */
let moved = false;
export const hasNavigated = () => moved;

export function navigate(to: string, replace = false): void {
  moved = true;
  const url = `${PREFIX()}${to}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event('admin:navigate'));
}

export function RouteProvider({ children }: { children: React.ReactNode }) {
  const read = () => ({ path: routePath(), search: new URLSearchParams(location.search) });
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => {
      moved = true;
      setRoute(read());
      window.scrollTo(0, 0);
    };
    window.addEventListener('popstate', update);
    window.addEventListener('admin:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('admin:navigate', update);
    };
  }, []);
  return <RouteContext.Provider value={route}>{children}</RouteContext.Provider>;
}

export const useRoute = () => useContext(RouteContext);

/** Matches `pattern` (segments, `:name` for a parameter) against the path; answers the decoded parameters. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** A link to a console route (`to` below /admin); a plain click navigates in the page. */
export function Link({ to, children, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { path } = useRoute();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  const current = path === to ? { 'aria-current': 'page' as const } : {};
  return (
    <a href={`${PREFIX()}${to}`} onClick={onClick} {...current} {...rest}>
      {children}
    </a>
  );
}

/** A path segment, encoded. */
export const seg = (value: string) => encodeURIComponent(value);
