/**
 * The frame of every page: the runtime's name, the menu (pages the caller's scopes cannot
 * use are left out) and who is signed in.
 */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { canAny } from '../auth/scopes';
import { useSession } from '../auth/session';

interface NavItem {
  href: string;
  label: string;
  /** Any of these grants makes the page useful. */
  needs: string[];
}

const NAV: NavItem[] = [
  { href: '/ui/chat', label: 'Chat', needs: ['agents:read', 'teams:read', 'workflows:read'] },
  { href: '/ui/knowledge', label: 'Knowledge', needs: ['knowledge:read'] },
  { href: '/ui/runs', label: 'Runs & traces', needs: ['sessions:read', 'traces:read', 'metrics:read'] },
  { href: '/ui/memories', label: 'Memories', needs: ['memories:read'] },
  { href: '/ui/tokens', label: 'Tokens', needs: ['service_accounts:read'] },
  { href: '/ui/mcp-servers', label: 'MCP servers', needs: ['config:read'] },
  { href: '/ui/connect', label: 'Connect', needs: [] },
];

function whoLabel(kind: string, user: string | null): string {
  if (kind === 'anonymous') return 'Open runtime (no sign-in)';
  if (kind === 'security_key') return 'Signed in with the security key';
  if (kind === 'service_account') return `Signed in as ${user ?? 'a service account'}`;
  return `Signed in as ${user ?? 'a JWT subject'}`;
}

export function Layout({ children }: { children: ComponentChildren }) {
  const { info, caller, signOut } = useSession();
  const { path } = useLocation();
  const items = NAV.filter((item) => item.needs.length === 0 || item.needs.some((scope) => canAny(caller, scope)));
  const current = (href: string) => path === href || (href === '/ui/chat' && path === '/ui');
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{info?.name ?? 'Runtime'}</span>
        <nav aria-label="Pages">
          <ul>
            {items.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{caller ? whoLabel(caller.kind, caller.user_id) : ''}</span>
          {caller && caller.kind !== 'anonymous' ? (
            <button type="button" class="link" onClick={() => signOut()}>
              Sign out
            </button>
          ) : null}
        </div>
      </header>
      {children}
    </div>
  );
}
