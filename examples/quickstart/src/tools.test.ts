import { describe, expect, it } from 'vitest';
import { getCurrentTime } from './tools.js';

const context = { runId: 'r', sessionId: 's', userId: undefined, signal: new AbortController().signal };

describe('get_current_time', () => {
  it('tells the time in the zone asked for, defaulting to UTC', async () => {
    const before = Date.now();
    const answer = JSON.parse(String(await getCurrentTime.execute(getCurrentTime.input.parse({}), context)));
    expect(answer.timezone).toBe('UTC');
    expect(Date.parse(answer.iso)).toBeGreaterThanOrEqual(before - 1000);
    const paris = JSON.parse(String(await getCurrentTime.execute(getCurrentTime.input.parse({ timezone: 'Europe/Paris' }), context)));
    expect(paris.now).toMatch(/Central European|GMT\+1|GMT\+2|CET|CEST/);
  });

  it('refuses an unknown zone with a message the model can act on', async () => {
    await expect(Promise.resolve().then(() => getCurrentTime.execute({ timezone: 'Mars/Olympus' }, context))).rejects.toThrow(
      /Unknown time zone "Mars\/Olympus"; use an IANA name/,
    );
  });
});
