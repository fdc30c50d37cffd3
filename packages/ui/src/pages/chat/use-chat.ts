/**
 * The chat's behaviour: send a message (a streamed run on the chosen component and session),
 * decide a paused run's calls, cancel, open a stored session. Streams through the public runs
 * API only.
 */
import { useCallback, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import { cancelRun, streamContinue, streamRun, type Kind, type RunEvent } from '../../api/runs';
import { applyEvent, EMPTY, key, type ChatState, type Item } from './chat-state';

export interface Target {
  kind: Kind;
  id: string;
}

export function useChat(target: Target | undefined, onRunEnded: () => void) {
  const [state, setState] = useState<ChatState>(EMPTY);
  const abort = useRef<AbortController | undefined>(undefined);

  const follow = useCallback(
    async (stream: AsyncGenerator<RunEvent>) => {
      try {
        for await (const event of stream) setState((s) => applyEvent(s, event));
      } catch (failure) {
        if (abort.current?.signal.aborted) return;
        setState((s) => ({ ...s, items: [...s.items, { type: 'notice', key: key(), text: messageOf(failure), tone: 'error' }] }));
      } finally {
        setState((s) => ({ ...s, streaming: false }));
        onRunEnded();
      }
    },
    [onRunEnded],
  );

  const send = useCallback(
    (message: string) => {
      if (!target) return;
      abort.current = new AbortController();
      const sessionId = state.sessionId;
      setState((s) => ({ ...s, streaming: true, paused: undefined, items: [...s.items, { type: 'user', key: key(), text: message }] }));
      void follow(streamRun(target.kind, target.id, { message, ...(sessionId ? { session_id: sessionId } : {}) }, abort.current.signal));
    },
    [target, state.sessionId, follow],
  );

  const decide = useCallback(
    (decisions: Record<string, boolean>) => {
      if (!target || !state.runId) return;
      abort.current = new AbortController();
      const tools = Object.entries(decisions).map(([tool_call_id, confirmed]) => ({ tool_call_id, confirmed }));
      setState((s) => ({ ...s, streaming: true, paused: undefined }));
      void follow(
        streamContinue(target.kind, target.id, state.runId, { tools, ...(state.sessionId ? { session_id: state.sessionId } : {}) }, abort.current.signal),
      );
    },
    [target, state.runId, state.sessionId, follow],
  );

  const cancel = useCallback(async () => {
    if (!target || !state.runId) return;
    try {
      await cancelRun(target.kind, target.id, state.runId);
    } catch (failure) {
      setState((s) => ({ ...s, items: [...s.items, { type: 'notice', key: key(), text: messageOf(failure), tone: 'error' }] }));
    }
  }, [target, state.runId]);

  /** Shows a stored session's conversation; the next message continues it. */
  const open = useCallback(async (sessionId: string | undefined) => {
    abort.current?.abort();
    if (!sessionId) return setState(EMPTY);
    try {
      const session = await unwrap(api.GET('/sessions/{session_id}', { params: { path: { session_id: sessionId } } }));
      const items: Item[] = session.chat_history.map((m) => ({ type: m.role, key: key(), text: m.content }));
      // A run left paused is picked up where it waits: its calls are offered for a decision again.
      const runs = await unwrap(api.GET('/sessions/{session_id}/runs', { params: { path: { session_id: sessionId } } }));
      const last = runs.at(-1);
      const waiting = last?.status === 'PAUSED' ? last.tools.filter((t) => t.requires_confirmation && t.confirmed === null) : undefined;
      setState({ ...EMPTY, sessionId, items, runId: waiting ? last?.run_id : undefined, paused: waiting });
    } catch (failure) {
      setState({ ...EMPTY, items: [{ type: 'notice', key: key(), text: messageOf(failure), tone: 'error' }] });
    }
  }, []);

  return { state, send, decide, cancel, open };
}
