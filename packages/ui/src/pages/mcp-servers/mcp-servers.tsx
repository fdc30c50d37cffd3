/**
 * The MCP servers the agents and team leaders use (GET /mcp-servers): who uses each, its
 * transport and where it is (a URL's origin and path, a command without its arguments), its
 * connection status, the tools it offers the model and its last failure. The runtime sends no
 * secret (headers, arguments, environment, query strings), so the page has none to hide.
 * Needs config:read.
 */
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';

type Server = components['schemas']['McpServerStatus'];

const STATUS_CLASS: Record<Server['status'], string> = { idle: '', connecting: 'processing', connected: 'ok', failed: 'failed', closed: '' };

function Tools({ server }: { server: Server }) {
  if (server.tools === null) return <span class="muted">not listed yet</span>;
  if (server.tools.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="tool-list">
      {server.tools.map((t) => (
        <li key={t.name}>
          <code>{t.name}</code>
          {t.requires_confirmation ? <span class="muted"> (asks for confirmation)</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function McpServers() {
  const servers = useAsync(() => unwrap(api.GET('/mcp-servers')), []);
  const rows = servers.data?.data ?? [];
  return (
    <main class="page" id="main">
      <h1>MCP servers</h1>
      <p>
        The MCP servers whose tools the agents and team leaders use. A server connects on its first use; its tools are listed
        again when it says they changed.
      </p>
      <p>
        <button type="button" class="secondary" onClick={() => servers.reload()} disabled={servers.loading}>
          Refresh
        </button>
      </p>
      <ErrorText message={servers.error} />
      {servers.data && rows.length === 0 ? <p class="muted">No agent or team uses an MCP server.</p> : null}
      {rows.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Used by</th>
              <th scope="col">Transport</th>
              <th scope="col">Status</th>
              <th scope="col">Tools</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={`${s.agent_id}/${s.id}`} data-testid="mcp-server">
                <td>{s.id}</td>
                <td>
                  {s.agent_id} <span class="muted">({s.component_type})</span>
                </td>
                <td>
                  {s.transport}
                  <br />
                  <code>{s.url ?? s.command}</code>
                  {s.per_user ? <span class="muted"> · a connection per user</span> : null}
                </td>
                <td>
                  <span class={`badge ${STATUS_CLASS[s.status]}`}>{s.status}</span>
                  {s.connections > 1 ? <span class="muted"> ({s.connections} connections)</span> : null}
                </td>
                <td>
                  <Tools server={s} />
                </td>
                <td>{s.error ? <span class="error">{s.error}</span> : <span class="muted">none</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </main>
  );
}
