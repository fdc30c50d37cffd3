import { describe, expect, it } from 'vitest';
import { beirQueries, parseQrels, parseQueries } from './beir.js';

describe('BEIR files', () => {
  it('reads queries.jsonl and a qrels TSV (header optional, TREC four columns too) into judged queries, in qrels order', () => {
    const queries = '{"_id": "1", "text": "first"}\n\n{"_id": 2, "text": "second", "metadata": {}}\n{"_id": "3", "text": "never judged"}\n';
    const qrels = 'query-id\tcorpus-id\tscore\n2\tdocA\t1\n1\tdocB\t2\n2\tdocC\t0\n';
    expect(beirQueries(queries, qrels)).toEqual([
      { id: '2', text: 'second', judgments: [{ document: 'docA', grade: 1 }, { document: 'docC', grade: 0 }] },
      { id: '1', text: 'first', judgments: [{ document: 'docB', grade: 2 }] },
    ]);
    expect(parseQrels('7\t0\tdocZ\t3\r\n').get('7')).toEqual([{ document: 'docZ', grade: 3 }]);
  });

  it('refuses malformed lines, negative scores, unknown queries and empty judgments, naming the line', () => {
    expect(() => parseQueries('{"_id": "1"}\n')).toThrow(/queries line 1 needs "_id"/);
    expect(() => parseQueries('not json\n')).toThrow(/queries line 1 is not JSON/);
    expect(() => parseQrels('1\tdocA\n')).toThrow(/qrels line 1 must be/);
    expect(() => parseQrels('1\tdocA\tmany\n')).toThrow(/qrels line 1 must be/);
    expect(() => parseQrels('1\tdocA\t1\n1\tdocB\t-1\n')).toThrow(/qrels line 2: the score must not be negative/);
    expect(() => beirQueries('{"_id": "1", "text": "a"}', '2\tdocA\t1\n')).toThrow(/query "2", which the queries file does not have/);
    expect(() => beirQueries('{"_id": "1", "text": "a"}', 'query-id\tcorpus-id\tscore\n')).toThrow(/no judgments/);
  });
});
