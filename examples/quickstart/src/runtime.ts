/**
 * The quickstart runtime: what a newcomer sees after `npm install && npm start`.
 *
 * Three agents (one with a tool that remembers its users, one answering from the docs, one from your uploads), a team
 * that routes between the first two, and a workflow that looks a topic up in the docs and then
 * writes about it. Agents use the model configured in the environment (OPENAI_API_KEY,
 * ANTHROPIC_API_KEY or OLLAMA_HOST); with none, the runtime still starts and a run ends with a
 * RunError that says what to set.
 *
 * Two knowledge bases: `runtime-docs`, the bundled docs (read-only, re-indexed at each start),
 * and `library`, the writable one that `POST /knowledge/content` fills (every reader and
 * chunker, stored in data/knowledge.db). Both do vector, keyword and hybrid search with no key:
 * they embed with the local sentence encoder that ships with the runtime, or with the embedder
 * the environment names (OPENAI_* or OLLAMA_EMBEDDING_MODEL); LOCAL_EMBEDDINGS=false leaves them
 * keyword-only.
 */
import { fileURLToPath } from 'node:url';
import { Agent, Runtime, Team, Workflow, embedderFromEnvironment, readSettings, step, type RuntimeOptions } from '@svc/runtime';
import { DocsKnowledge } from './docs-knowledge.js';
import { createLibrary } from './library.js';
import { getCurrentTime } from './tools.js';

/** `docs/` sits next to both `src/` and `dist/`, so this resolves from either. */
export const DOCS_DIR = fileURLToPath(new URL('../docs/', import.meta.url));

export function createQuickstartRuntime(overrides: Partial<RuntimeOptions> = {}): Runtime {
  const env = overrides.env ?? process.env;
  // A bad PORT or limit fails here, before the library's store file is created.
  readSettings(env);
  // The configured embedder, else the local sentence encoder (its worker starts on first use).
  const embedder = embedderFromEnvironment(env);
  const docs = DocsKnowledge.fromDirectory(DOCS_DIR, {
    id: 'runtime-docs',
    name: 'Runtime docs',
    description: 'How to run agents, configure the runtime and secure it',
    embedder,
  });
  const library = createLibrary({ db: overrides.db, env, embedder });

  const assistant = new Agent({
    id: 'assistant',
    name: 'Assistant',
    description: 'A general assistant that can tell the time anywhere',
    instructions: 'You are a concise, friendly assistant. Use get_current_time for any question about the date or time.',
    tools: [getCurrentTime],
    // It remembers its users (runs with a user_id): what they said in earlier sessions is recalled
    // by meaning with the same embedder, a model call after each run saves what is worth keeping,
    // and a long session carries a summary of its older turns.
    memory: { extract: true, summaries: true, embedder },
  });

  const docsExpert = new Agent({
    id: 'docs-expert',
    name: 'Docs expert',
    description: 'Answers questions about the runtime from its documentation',
    instructions:
      'Answer questions about the runtime. Always search the knowledge base first and answer only from what it returns; ' +
      'say so when the docs do not cover the question.',
    knowledge: docs,
  });

  const librarian = new Agent({
    id: 'librarian',
    name: 'Librarian',
    description: 'Answers from the files, pages and topics you add to the library knowledge base',
    instructions:
      'Answer from the library, which holds what the user uploaded. Always search it first, say which file each ' +
      'passage came from, and say so when nothing in it answers the question.',
    knowledge: library,
  });

  const support = new Team({
    id: 'support',
    name: 'Support team',
    description: 'Sends each question to the member best placed to answer it',
    mode: 'route',
    members: [assistant, docsExpert],
  });

  const research = new Workflow({
    id: 'research',
    name: 'Research',
    description: 'Looks a topic up in the docs, then writes a short summary of what it found',
    steps: [
      step('lookup', async ({ message }) => {
        const hits = await docs.search(message, { limit: 3 });
        const found = hits.map((h) => `## ${h.name}\n${h.content}`).join('\n\n');
        return `Topic: ${message}\n\n${found || 'The docs say nothing about this topic.'}`;
      }),
      step(
        'summarize',
        new Agent({
          id: 'writer',
          name: 'Writer',
          instructions: 'Summarize the passages you are given in at most five sentences, for a developer new to the runtime.',
        }),
      ),
    ],
  });

  return new Runtime({
    id: 'quickstart',
    name: 'Quickstart',
    description: 'Demo agents, a team, a workflow and two knowledge bases (the runtime docs, and a library you upload to), served by the runtime',
    agents: [assistant, docsExpert, librarian],
    teams: [support],
    workflows: [research],
    knowledge: [docs, library],
    mcp_server: true,
    ...overrides,
  });
}
