/**
 * The assistant's tool: real work a model cannot do alone (it has no clock).
 */
import { tool } from '@svc/runtime';
import { z } from 'zod';

export const getCurrentTime = tool({
  name: 'get_current_time',
  description: 'The current date and time, in an IANA time zone (default UTC).',
  input: z.object({
    timezone: z.string().default('UTC').describe('IANA time zone, for example Europe/Paris'),
  }),
  execute: ({ timezone }) => {
    let formatted: string;
    try {
      formatted = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'long', timeZone: timezone }).format(new Date());
    } catch {
      // The model sees this as the tool's answer and can retry with a valid zone.
      throw new Error(`Unknown time zone "${timezone}"; use an IANA name such as Europe/Paris`);
    }
    return JSON.stringify({ timezone, now: formatted, iso: new Date().toISOString() });
  },
});
