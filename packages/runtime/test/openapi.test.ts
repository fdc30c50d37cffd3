/**
 * The OpenAPI document as clients and generators read it, from a real server hosting every kind
 * of component.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function operations(doc: Document): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ method, path, op })),
  );
}

describe('the OpenAPI document', () => {
  let rt: StartedRuntime;
  let doc: Document;

  beforeAll(async () => {
    rt = await startRuntime(sqliteTestDatabase, {
      agents: [{ id: 'helper', name: 'Helper' }],
      teams: [{ id: 't1', name: 'Team one' }],
      workflows: [{ id: 'w1', name: 'Flow' }],
      mcp_server: true,
    });
    doc = (await call(rt.url, 'GET', '/openapi.json')).body as Document;
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('uses "an" before a vowel in every summary and description', () => {
    const texts = operations(doc).flatMap(({ op }) => [op.summary ?? '', op.description ?? '']);
    expect(texts.filter((text) => /\ba [aeio]/i.test(text))).toEqual([]);
    expect(operations(doc).find(({ method, path }) => method === 'post' && path === '/agents/{agent_id}/runs')?.op.summary).toBe('Run an agent');
  });
});
