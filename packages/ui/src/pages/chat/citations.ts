/**
 * The passages an agent's knowledge search gave the model, read back from the tool's result so
 * the chat can cite them under the answer. The runtime's `search_knowledge_base` tool numbers its
 * hits "[1] name", "[2] name", ... each followed by the passage; the numbers must run in order
 * from 1, so a line of a passage that happens to start with "[7]" stays part of the passage.
 */
export const KNOWLEDGE_TOOL = 'search_knowledge_base';

export interface Citation {
  /** The number the model saw, which an answer may quote as [n]. */
  n: number;
  /** The record's name, when it has one. */
  name: string | undefined;
  text: string;
}

const HEADING = /^\[(\d+)\](?: (.*))?$/;

export function citationsOf(result: string): Citation[] {
  const citations: Citation[] = [];
  const lines: string[] = [];
  const close = () => {
    const current = citations.at(-1);
    if (current) current.text = lines.join('\n').trim();
    lines.length = 0;
  };
  for (const line of result.split('\n')) {
    const heading = HEADING.exec(line);
    if (heading && Number(heading[1]) === citations.length + 1) {
      close();
      const name = heading[2]?.trim();
      citations.push({ n: citations.length + 1, name: name ? name : undefined, text: '' });
    } else if (citations.length > 0) {
      lines.push(line);
    }
  }
  close();
  return citations;
}

/** The search's query, from the tool call's arguments, to title its sources when a turn searched more than once. */
export function queryOf(args: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    const query = parsed && typeof parsed === 'object' ? (parsed as { query?: unknown }).query : undefined;
    return typeof query === 'string' ? query : undefined;
  } catch {
    return undefined;
  }
}
