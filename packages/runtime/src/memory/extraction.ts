/**
 * @module memory/extraction
 * After a run, one model call proposes what to remember about the user from that run's message
 * and answer: memories to add, update or delete, through one tool (`save_user_memories`) the
 * model must call, so a model that answers the user instead (agno #7150) changes nothing. The
 * call sees only this run's exchange and the user's most recent memories (both bounded), and at
 * most `maxChanges` of its proposals are applied. The caller runs it off the response path and
 * never lets its failure reach the run.
 */
import { z } from 'zod';
import type { TraceSpan } from '../components/tracer.js';
import type { ChatMessage, Model } from '../model/model.js';
import { ModelCallSpan } from '../run/model-call.js';
import { tool, toToolSpec } from '../tools/function-tool.js';
import { applyChange, type ChangeContext, type ChangeOutcome, type MemoryChange } from './changes.js';
import { memoryLine } from './recall.js';
import { MEMORY_LIMITS, type MemorySpending } from './types.js';

export const EXTRACTION_TOOL_NAME = 'save_user_memories';

/** The marker that opens the extraction call's instructions (tests and fakes recognise the call by it). */
export const EXTRACTION_MARKER = 'You maintain long-term memories about one user.';

const Text = z.string().trim().min(1).max(MEMORY_LIMITS.textChars);
const Topics = z.array(z.string().trim().min(1).max(MEMORY_LIMITS.topicChars)).max(MEMORY_LIMITS.topics).optional();
const proposals = z.object({
  add: z.array(z.object({ memory: Text, topics: Topics })).max(50).default([]),
  update: z.array(z.object({ memory_id: z.string().min(1).max(200), memory: Text, topics: Topics })).max(50).default([]),
  delete: z.array(z.string().min(1).max(200)).max(50).default([]),
});

const SPEC = toToolSpec(
  tool({ name: EXTRACTION_TOOL_NAME, description: 'Record the changes to the user memories (empty lists when nothing is worth remembering).', input: proposals, execute: () => '' }),
);

/** What one extraction may read: the exchange is cut to this many characters, memories to this many. */
export const EXTRACTION_LIMITS = { exchangeChars: 8_000, memories: 50 } as const;

export interface ExtractionInput {
  changes: ChangeContext;
  model: Model;
  message: string;
  answer: string;
  maxChanges: number;
  trace?: TraceSpan | undefined;
  /** The extraction call counts against the run's budgets (a used-up budget skips it). */
  spending?: MemorySpending | undefined;
}

export async function extractMemories(input: ExtractionInput): Promise<ChangeOutcome[]> {
  const known = await input.changes.store.recent(input.changes.userId, EXTRACTION_LIMITS.memories, { run: input.changes.runId });
  // The model proposes updates to the versions it is shown here.
  const changes = { ...input.changes, seen: new Map(known.map((m) => [m.memory_id, m.version])) };
  const half = EXTRACTION_LIMITS.exchangeChars / 2;
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        `${EXTRACTION_MARKER} Do not answer the user and do not write prose: call ${EXTRACTION_TOOL_NAME} exactly once. ` +
        'Add lasting facts about the user stated in the exchange below (preferences, circumstances, plans, corrections), ' +
        'update a remembered fact the exchange changes (by its id), delete one it shows to be wrong. ' +
        'Each memory is one short sentence in the third person. Pass empty lists when nothing is worth remembering.',
    },
    {
      role: 'user',
      content:
        `What is remembered now:\n${known.length ? known.map((m) => memoryLine(m, true)).join('\n') : '(nothing)'}\n\n` +
        `The exchange:\nUser: ${input.message.slice(0, half)}\nAssistant: ${input.answer.slice(0, half)}`,
    },
  ];
  await input.spending?.before?.();
  const call = new ModelCallSpan(input.trace, input.model, messages, [SPEC]);
  let response: Awaited<ReturnType<Model['generate']>>;
  try {
    response = await input.model.generate({ messages, tools: [SPEC], maxOutputTokens: 1_000, ...(changes.signal ? { signal: changes.signal } : {}) });
  } catch (error) {
    call.fail(error, false);
    throw error;
  }
  input.spending?.add?.(response.usage, input.model.id);
  call.end(response.text, response.toolCalls, { reason: response.finishReason, usage: response.usage });
  const proposal = response.toolCalls.find((c) => c.name === EXTRACTION_TOOL_NAME);
  if (!proposal) return [];
  let parsed: z.infer<typeof proposals>;
  try {
    parsed = proposals.parse(JSON.parse(proposal.arguments || '{}'));
  } catch {
    throw new Error(`${EXTRACTION_TOOL_NAME} was called with arguments that are not the expected lists`);
  }
  const wanted: MemoryChange[] = [
    ...parsed.delete.map((memory_id): MemoryChange => ({ action: 'delete', memory_id })),
    ...parsed.update.map((u): MemoryChange => ({ action: 'update', ...u })),
    ...parsed.add.map((a): MemoryChange => ({ action: 'add', ...a })),
  ].slice(0, input.maxChanges);
  const outcomes: ChangeOutcome[] = [];
  for (const change of wanted) outcomes.push(await applyChange(changes, change));
  return outcomes;
}
