/**
 * A scripted model for memory tests: told to "note that ...", it saves that with the memory
 * tool (when the run offers it and has not called it yet); anything else it echoes.
 */
import type { FakeConversation, FakeReply } from './fake-llm.js';

export function noteTaker(c: FakeConversation): FakeReply {
  const note = /note that ([^.]+)/i.exec(c.lastUserMessage);
  if (note && c.toolResults.length === 0 && c.toolNames.includes('update_user_memory')) return { kind: 'tool-call', name: 'update_user_memory', arguments: { action: 'add', memory: note[1] } };
  return { kind: 'text', text: `You said: ${c.lastUserMessage}` };
}
