/**
 * How to connect a coding agent to this runtime over MCP: the endpoint (from `GET /info`) and the
 * `svc connect` command that writes each client's config with a token of its own.
 */
import { useSession } from '../../auth/session';
import { CopyButton } from '../../components/copy-button';

export function Connect() {
  const { info } = useSession();
  const origin = location.origin;
  const mcp = info?.mcp;
  const endpoint = mcp?.enabled && mcp.path ? `${origin}${mcp.path}` : undefined;
  const command = `npx svc connect --url ${origin}`;
  return (
    <main class="page" id="main">
      <h1>Connect</h1>
      <section aria-labelledby="mcp-heading">
        <h2 id="mcp-heading">MCP endpoint</h2>
        {endpoint ? (
          <p class="copyable">
            <code data-testid="mcp-url">{endpoint}</code>
            <CopyButton text={endpoint} label="Copy the MCP endpoint URL" />
          </p>
        ) : (
          <p>This runtime does not serve MCP (start it with the mcp_server option).</p>
        )}
        {mcp?.oauth ? <p>The endpoint is OAuth-protected: each client signs in once in its browser.</p> : null}
        <p>Authentication: {info?.auth_mode === 'none' ? 'none (an open runtime accepts loopback clients only)' : info?.auth_mode}.</p>
      </section>
      <section aria-labelledby="cli-heading">
        <h2 id="cli-heading">Connect your coding agents</h2>
        <p>
          Run this where the coding agents are installed. It finds Claude Code, Codex, Claude Desktop and Cursor, makes one
          service account per client (the admin credential is asked for when the runtime requires one) and checks each
          connection with a real MCP call.
        </p>
        <p class="copyable">
          <code data-testid="connect-command">{command}</code>
          <CopyButton text={command} label="Copy the svc connect command" />
        </p>
        <p>
          Undo it with <code>npx svc disconnect --url {origin} --revoke</code>.
        </p>
      </section>
    </main>
  );
}
