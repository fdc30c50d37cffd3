/**
 * Chat with an agent, a team or a workflow: pick one, talk, watch tool calls start and finish,
 * decide paused calls, cancel, and go back to stored sessions.
 */
import { useCallback, useState } from 'preact/hooks';
import { can } from '../../auth/scopes';
import { useSession } from '../../auth/session';
import { Approval } from './approval';
import { ComponentPicker } from './component-picker';
import { Composer } from './composer';
import { SessionList } from './session-list';
import { Transcript } from './transcript';
import { useChat, type Target } from './use-chat';

const RUN_SCOPE = { agent: 'agents:run', team: 'teams:run', workflow: 'workflows:run' } as const;

export function Chat() {
  const { caller } = useSession();
  const [target, setTarget] = useState<Target>();
  const [ended, setEnded] = useState(0);
  const onRunEnded = useCallback(() => setEnded((n) => n + 1), []);
  const { state, send, decide, cancel, open } = useChat(target, onRunEnded);
  const mayRun = target ? can(caller, RUN_SCOPE[target.kind], target.id) : false;

  const choose = (next: Target) => {
    setTarget(next);
    void open(undefined);
  };

  return (
    <main class="page chat" id="main">
      <h1>Chat</h1>
      <div class="chat-layout">
        <aside>
          <ComponentPicker target={target} onChange={choose} />
          {target ? <SessionList target={target} current={state.sessionId} changes={ended} onOpen={(id) => void open(id)} /> : null}
        </aside>
        <div class="conversation">
          <Transcript items={state.items} />
          {state.paused && state.paused.length > 0 ? <Approval key={state.runId} tools={state.paused} onDecide={decide} /> : null}
          {target && !mayRun ? <p class="muted">Running this {target.kind} needs the {RUN_SCOPE[target.kind]} scope.</p> : null}
          <Composer disabled={!target || !mayRun || state.paused !== undefined} streaming={state.streaming} onSend={send} onCancel={() => void cancel()} />
        </div>
      </div>
    </main>
  );
}
