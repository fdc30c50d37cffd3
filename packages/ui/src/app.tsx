/**
 * The panel: the signed-in session, then the pages under /ui. Pages load on first visit
 * (preact-iso's lazy), so the first load carries only the shell and the page opened.
 */
import { ErrorBoundary, LocationProvider, Route, Router, lazy } from 'preact-iso';
import { SessionProvider, useSession } from './auth/session';
import { Layout } from './components/layout';
import { Notice } from './components/notice';
import { SignIn } from './pages/sign-in/sign-in';

const Chat = lazy(() => import('./pages/chat/chat').then((m) => m.Chat));
const Knowledge = lazy(() => import('./pages/knowledge/knowledge').then((m) => m.Knowledge));
const Runs = lazy(() => import('./pages/runs/runs').then((m) => m.Runs));
const Memories = lazy(() => import('./pages/memories/memories').then((m) => m.Memories));
const Tokens = lazy(() => import('./pages/tokens/tokens').then((m) => m.Tokens));
const McpServers = lazy(() => import('./pages/mcp-servers/mcp-servers').then((m) => m.McpServers));
const Connect = lazy(() => import('./pages/connect/connect').then((m) => m.Connect));
const NotFound = () => <Notice title="Not found">No page here. Pick one from the menu.</Notice>;

function Pages() {
  const { loading, caller, info, problem } = useSession();
  if (loading) return <p class="loading">Loading…</p>;
  if (!info) return <Notice title="The runtime did not answer">{problem ?? 'GET /info failed.'}</Notice>;
  if (!caller) return <SignIn />;
  return (
    <Layout>
      <ErrorBoundary>
        <Router>
          <Route path="/ui" component={Chat} />
          <Route path="/ui/chat" component={Chat} />
          <Route path="/ui/knowledge" component={Knowledge} />
          <Route path="/ui/runs" component={Runs} />
          <Route path="/ui/memories" component={Memories} />
          <Route path="/ui/tokens" component={Tokens} />
          <Route path="/ui/mcp-servers" component={McpServers} />
          <Route path="/ui/connect" component={Connect} />
          <Route default component={NotFound} />
        </Router>
      </ErrorBoundary>
    </Layout>
  );
}

export function App() {
  return (
    <LocationProvider scope="/ui">
      <SessionProvider>
        <Pages />
      </SessionProvider>
    </LocationProvider>
  );
}
