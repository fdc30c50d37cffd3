/** Which agent, team or workflow to talk to: those the caller may list, grouped by kind. */
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { Kind } from '../../api/runs';
import { canAny } from '../../auth/scopes';
import { useSession } from '../../auth/session';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import type { Target } from './use-chat';

interface Choice {
  kind: Kind;
  id: string;
  name: string;
}

const as =
  (kind: Kind) =>
  (c: { id: string; name?: string | null }): Choice => ({ kind, id: c.id, name: c.name ?? c.id });

async function choices(may: Record<Kind, boolean>): Promise<Choice[]> {
  const [agents, teams, workflows] = await Promise.all([
    may.agent ? unwrap(api.GET('/agents')) : [],
    may.team ? unwrap(api.GET('/teams')) : [],
    may.workflow ? unwrap(api.GET('/workflows')) : [],
  ]);
  return [...agents.map(as('agent')), ...teams.map(as('team')), ...workflows.map(as('workflow'))];
}

const GROUPS: [Kind, string][] = [
  ['agent', 'Agents'],
  ['team', 'Teams'],
  ['workflow', 'Workflows'],
];

export function ComponentPicker({ target, onChange }: { target: Target | undefined; onChange(target: Target): void }) {
  const { caller } = useSession();
  const may = { agent: canAny(caller, 'agents:read'), team: canAny(caller, 'teams:read'), workflow: canAny(caller, 'workflows:read') };
  const list = useAsync(async () => {
    const found = await choices(may);
    if (!target && found[0]) onChange({ kind: found[0].kind, id: found[0].id });
    return found;
  }, [caller]);
  const value = target ? `${target.kind}:${target.id}` : '';
  return (
    <div class="field">
      <label for="component">Talk to</label>
      <select
        id="component"
        value={value}
        onChange={(e) => {
          const [kind, ...rest] = e.currentTarget.value.split(':');
          onChange({ kind: kind as Kind, id: rest.join(':') });
        }}
      >
        {GROUPS.map(([kind, label]) => {
          const members = (list.data ?? []).filter((c) => c.kind === kind);
          return members.length ? (
            <optgroup key={kind} label={label}>
              {members.map((c) => (
                <option key={`${kind}:${c.id}`} value={`${kind}:${c.id}`}>
                  {c.name}
                </option>
              ))}
            </optgroup>
          ) : null;
        })}
      </select>
      <ErrorText message={list.error} />
    </div>
  );
}
