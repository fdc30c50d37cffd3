import { describe, expect, it } from 'vitest';
import { messageOf, verifyJson } from './verify.js';

describe('messageOf', () => {
  it('takes the first data line that holds a JSON object from an event stream', () => {
    const body = 'event: message\ndata: not json\ndata: [1]\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    expect(messageOf('text/event-stream; charset=utf-8', body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(messageOf('text/event-stream', 'data: nope\n')).toBeUndefined();
  });

  it('parses a plain JSON body and requires an object', () => {
    expect(messageOf('application/json', '{"result":1}')).toEqual({ result: 1 });
    expect(messageOf(undefined, '[1]')).toBeUndefined();
    expect(messageOf('application/json', '<html>')).toBeUndefined();
  });
});

it('verifyJson reports the tool count, not the names', () => {
  expect(verifyJson({ ok: true, tools: ['a', 'b'], status_code: 200, error: null, oauth_challenge: false })).toEqual({
    ok: true,
    tools: 2,
    status_code: 200,
    error: null,
    oauth_challenge: false,
  });
});
