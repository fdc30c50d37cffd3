import { describe, expect, it } from 'vitest';
import { parseEventId, RunEventLog, type RunEvent } from './run-events.js';

describe('the ids of a run\'s streamed events', () => {
  it('numbers events as they are stored, and text deltas by the stored event they merge into and its text so far', async () => {
    const log = new RunEventLog('r1', 's1', { agent_id: 'a' }, 0);
    log.send('RunStarted');
    log.send('RunContent', { content: 'Hello' });
    log.send('RunContent', { content: ', world' });
    // Stored (the chores empty the list): the next delta starts a new stored event.
    const stored = log.unstored.splice(0);
    log.send('RunContent', { content: '!' });
    log.send('RunCompleted', { content: 'Hello, world!' });
    log.stream.close();
    const seen: RunEvent[] = [];
    for await (const event of log.stream) seen.push(event);
    expect(seen.map((e) => log.eventId(e))).toEqual(['1', '2:5', '2:12', '3:1', '4']);
    expect(stored.map((e) => [e.seq, e.event])).toEqual([
      [1, 'RunStarted'],
      [2, 'RunContent'],
    ]);
    expect(JSON.parse(stored[1]!.data).content).toBe('Hello, world');
  });

  it('continues the numbering of a continued run', () => {
    const log = new RunEventLog('r1', 's1', {}, 7);
    log.send('RunContinued');
    expect(log.unstored[0]!.seq).toBe(8);
  });

  it('reads Last-Event-ID values: an index, or an index and characters; nothing else', () => {
    expect(parseEventId('12')).toEqual({ seq: 12 });
    expect(parseEventId(' 12:340 ')).toEqual({ seq: 12, chars: 340 });
    for (const bad of ['', 'x', '-1', '1:', ':3', '1:2:3', '1.5', '9'.repeat(16), undefined, null]) expect(parseEventId(bad)).toBeUndefined();
  });
});
