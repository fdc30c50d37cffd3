/**
 * Writing one client's entry in a `svc connect` run: the entry with its token, read back and
 * verified with a real MCP handshake, notes on an entry that works but needs attention, the
 * entries of the same runtime under other names (the legacy `svc`, an older --server-name, a
 * renamed runtime) renamed in place or removed so the client lists its tools once, and the undo
 * of all of it (files byte for byte, the minted account) when the client fails or the run is
 * aborted at a later prompt.
 */
import type { Account } from '../../accounts/account.js';
import { isProjectMcpJson, projectServerApproval, type ClientAdapter, type ClientEntry, type ClientId } from '../../clients/registry.js';
import { LEGACY_SERVER_NAME } from '../../clients/server-name.js';
import { restore, snapshot, type FileSnapshot } from '../../clients/snapshot.js';
import type { Context } from '../../context.js';
import { exportedCredential } from '../../credentials/admin-token.js';
import { CliError, errorText } from '../../errors.js';
import { verifyMcp } from '../../mcp/verify.js';
import { sameEndpoint } from '../../util/loopback.js';
import type { Accounts, SharedToken } from './accounts.js';
import type { ConnectOptions, Plan } from './plan.js';
import { addNote, type Row } from './report.js';

const SIGN_IN: Record<ClientId, (server: string) => string> = {
  'terminal-agent': (s) => `Run: claude mcp login ${s}  (or /mcp -> Authenticate inside a session)`,
  'desktop-app': () => 'Restart Claude Desktop; mcp-remote opens the browser sign-in automatically',
  'cli-agent': (s) => `Run: codex mcp login ${s}`,
  editor: (s) => `Open Cursor Settings -> MCP and click Connect on '${s}'`,
};

const KEPT = 'Service account exists; kept untouched.';

/** An entry of the client under another name that points at this runtime's MCP endpoint. */
interface Alias {
  name: string;
  entry: ClientEntry;
}

/** What a client's run changed, so a failure (or an abort at a later prompt) can undo it. */
interface Undo {
  snapshots: FileSnapshot[];
  /** The account minted for this client in this run, revoked again on rollback. */
  minted: Account | undefined;
}

export class ConfigWriter {
  /** Clients done so far, undone in reverse if the run is aborted at a later prompt. */
  private readonly journal: Undo[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly opts: ConnectOptions,
    private readonly plan: Plan,
    /** Only when the run mints tokens. */
    private readonly accounts: Accounts | undefined,
  ) {}

  private isAdminKey(token: string | undefined): boolean {
    if (token === undefined) return false;
    return token === exportedCredential(this.ctx.env) || (this.plan.info.auth_mode === 'security_key' && !token.startsWith('svc_pat_'));
  }

  private fixCommand(client: ClientAdapter, extra: string): string {
    const name = this.opts.serverName !== undefined ? ` --server-name ${this.plan.serverName}` : '';
    return `svc connect --url ${this.plan.info.url} --clients ${client.id}${name}${extra}`;
  }

  /** What else the user should know about an entry that works. */
  private entryNotes(client: ClientAdapter, entry: { token: string | undefined; location: string }, notes: string[]): void {
    if (this.isAdminKey(entry.token)) {
      addNote(
        notes,
        `This entry holds the runtime's admin key, which gives full control of the runtime to anything that can read ${entry.location}. Replace it with a scoped service-account token: ${this.fixCommand(client, ' --rotate')}`,
      );
    }
    if (client.id === 'terminal-agent' && isProjectMcpJson(entry.location, this.plan.ce)) {
      const approval = projectServerApproval(this.plan.serverName, this.plan.ce);
      if (approval === 'pending') {
        addNote(
          notes,
          `Claude Code asks before it uses a server from a project's .mcp.json: start claude in ${this.plan.ce.cwd} and approve '${this.plan.serverName}' (until then it lists the server as "Pending approval").`,
        );
      } else if (approval === 'rejected') {
        addNote(notes, `Claude Code was told not to use '${this.plan.serverName}' from this project's .mcp.json: run claude mcp reset-project-choices in ${this.plan.ce.cwd}, then approve it when claude asks.`);
      }
    }
  }

  /**
   * The client's entries under other names for this runtime (same MCP endpoint, any loopback
   * spelling), the legacy name first. Left alone with --skip-existing.
   */
  private aliasesOf(client: ClientAdapter): Alias[] {
    if (this.opts.skipExisting === true) return [];
    let entries: Map<string, ClientEntry>;
    try {
      entries = client.listEntries(this.plan.ce);
    } catch {
      return [];
    }
    const { serverName, mcp } = this.plan;
    const found = [...entries].filter(([name, entry]) => name !== serverName && sameEndpoint(entry.url, mcp)).map(([name, entry]) => ({ name, entry }));
    return found.sort((a, b) => Number(b.name === LEGACY_SERVER_NAME) - Number(a.name === LEGACY_SERVER_NAME));
  }

  /** Removes what is left of those entries (every scope) once the new one works, and says so. */
  private cleanupAliases(client: ClientAdapter, row: Row, notes: string[], aliases: readonly Alias[], renamed: string | undefined): void {
    const replaced: string[] = [];
    for (const { name } of aliases) {
      let removed = name === renamed;
      try {
        removed = client.remove(name, this.plan.ce, (url) => sameEndpoint(url, this.plan.mcp)).removed || removed;
      } catch (error) {
        addNote(notes, `Could not remove the '${name}' entry, which also points at this runtime: ${errorText(error)}`);
      }
      if (removed) replaced.push(name);
    }
    if (replaced.includes(LEGACY_SERVER_NAME)) row.replaced_legacy = LEGACY_SERVER_NAME;
    const others = replaced.filter((name) => name !== LEGACY_SERVER_NAME);
    if (others.length > 0) row.replaced_duplicates = others;
  }

  /** Puts a client's files back byte for byte and revokes the account minted for it. */
  private async rollback(undo: Undo): Promise<string> {
    const done: string[] = [];
    try {
      const restored = restore(undo.snapshots);
      if (restored.length > 0) done.push(`restored ${restored.join(', ')}`);
    } catch (error) {
      done.push(`could not restore the config files (${errorText(error)})`);
    }
    if (undo.minted && this.accounts) {
      try {
        await this.accounts.unmint(undo.minted);
        done.push(`revoked the new service account '${undo.minted.name}'`);
      } catch (error) {
        done.push(`could not revoke the new service account '${undo.minted.name}' (${errorText(error)})`);
      }
    }
    return done.length > 0 ? ` Rolled back: ${done.join('; ')}.` : '';
  }

  /** An abort at a prompt changes nothing: every client done so far is undone. */
  async rollbackAll(): Promise<void> {
    for (let i = this.journal.length - 1; i >= 0; i -= 1) await this.rollback(this.journal[i] as Undo);
    this.journal.length = 0;
    const shared = this.accounts?.sharedMinted;
    if (shared) await this.rollback({ snapshots: [], minted: shared });
  }

  /**
   * A shared (--name) account minted in this run that no client ended up using (each one failed
   * and was rolled back) is revoked again, as a client's own account is; the failed rows say so.
   */
  async releaseUnusedShared(rows: Row[]): Promise<void> {
    const shared = this.accounts?.sharedMinted;
    if (!shared || !this.accounts) return;
    if (rows.some((r) => r.account?.id === shared.id && (r.status === 'connected' || r.status === 'needs-login'))) return;
    let said: string;
    try {
      await this.accounts.unmint(shared);
      said = ` Revoked the new service account '${shared.name}', which no client uses.`;
    } catch (error) {
      said = ` Could not revoke the new service account '${shared.name}' (${errorText(error)}).`;
    }
    this.accounts.sharedMinted = undefined;
    for (const row of rows) if (row.account?.id === shared.id && row.status === 'failed') row.error = `${row.error ?? ''}${said}`;
  }

  /**
   * Connects one client: leaves an entry that still verifies alone, else writes the entry with
   * its token, reads it back and verifies it with an MCP handshake; a failure puts the client's
   * files back and revokes what was minted for it. Only an abort at a prompt is thrown.
   */
  async connect(client: ClientAdapter, shared: SharedToken | null): Promise<Row> {
    const notes: string[] = [];
    const withNotes = (r: Row): Row => (notes.length > 0 ? { ...r, note: notes.join(' ') } : r);
    const row: Row = { client: client.id, status: 'failed', error: null };
    const { opts } = this;
    const { ce, serverName, mcp } = this.plan;
    const undo: Undo = { snapshots: snapshot(client.files(ce)), minted: undefined };
    let changed = false;
    try {
      const existing = client.readExisting(serverName, ce);
      const aliases = this.aliasesOf(client);
      // The first one is renamed in place (and may keep its token); the others are removed.
      const legacy = aliases[0];
      if (existing) {
        if (existing.url === mcp && opts.rotate !== true) {
          const check = await verifyMcp(mcp, existing.token, this.plan.oauthMode && existing.token === undefined, this.ctx.env);
          if (check.ok && (existing.token !== undefined || !this.accounts)) {
            const done: Row = { client: client.id, status: 'already-connected', error: null, location: existing.location, verify: check };
            this.entryNotes(client, existing, notes);
            this.cleanupAliases(client, done, notes, aliases, undefined);
            return withNotes(done);
          }
          if (opts.skipExisting === true) {
            return { client: client.id, status: 'skipped', error: 'Existing entry no longer verifies; re-run without --skip-existing to rotate.', location: existing.location };
          }
        } else if (existing.url !== mcp) {
          if (opts.skipExisting === true) {
            return { client: client.id, status: 'skipped', error: `Existing entry points at ${existing.url}; left untouched.`, location: existing.location };
          }
          row.replaced_url = existing.url;
        }
      }
      let token: string | undefined;
      let account: Account | undefined;
      if (this.accounts) {
        const choice = await this.accounts.tokenFor(client.id, existing, legacy?.entry, shared, notes);
        if (!choice) return withNotes({ ...row, status: 'skipped', error: KEPT });
        ({ token, account } = choice);
        undo.minted = choice.minted;
      }
      changed = true;
      const written = client.write(serverName, mcp, token, ce, legacy ? { name: legacy.name, matches: (url) => sameEndpoint(url, mcp) } : undefined);
      row.location = written.location;
      if (written.note) addNote(notes, written.note);
      if (account) row.account = account;
      const readback = client.readExisting(serverName, ce);
      if (!readback || readback.url !== mcp || (token !== undefined && readback.token !== token)) {
        const found = readback ? `${readback.location} -> ${readback.url}` : 'no entry';
        row.error = `The config write did not take effect for '${serverName}' (found: ${found}). Another entry may shadow it; remove the stale entry and re-run.${await this.rollback(undo)}`;
        return withNotes(row);
      }
      const check = await verifyMcp(mcp, readback.token, this.plan.oauthMode && readback.token === undefined, this.ctx.env);
      row.verify = check;
      if (!check.ok) {
        row.error = `${check.error ?? 'The MCP check failed.'}${await this.rollback(undo)}`;
        return withNotes(row);
      }
      if (check.oauth_challenge) {
        row.status = 'needs-login';
        row.instructions = [SIGN_IN[client.id](serverName)];
      } else {
        row.status = 'connected';
      }
      this.entryNotes(client, readback, notes);
      this.cleanupAliases(client, row, notes, aliases, written.renamed ? legacy?.name : undefined);
      const oldToken = existing?.token;
      if (oldToken !== undefined && token !== undefined && oldToken !== token) row.rotated = true;
      const replacedTokens = aliases.some((a) => a.entry.token !== undefined && (row.replaced_legacy === a.name || row.replaced_duplicates?.includes(a.name)));
      if ((oldToken !== undefined || replacedTokens) && token === undefined) row.replaced_token_entry = true;
      this.journal.push(undo);
      return withNotes(row);
    } catch (error) {
      const undone = changed || undo.minted ? await this.rollback(undo) : '';
      if (error instanceof CliError && error.code === 'ABORTED') throw error;
      row.error = `${errorText(error)}${undone}`;
      return withNotes(row);
    }
  }
}
