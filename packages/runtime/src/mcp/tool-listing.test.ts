import { describe, expect, it } from 'vitest';
import { plainSchema } from './tool-listing.js';

describe('plainSchema', () => {
  it('says additionalProperties outright and turns lists of types into anyOf, at any depth', () => {
    const listed = {
      tools: [
        {
          name: 't',
          inputSchema: { type: 'object', properties: { m: { type: 'object', additionalProperties: {} } } },
          outputSchema: { type: 'object', properties: { c: { description: 'x', type: ['string', 'null'] } }, additionalProperties: false },
        },
      ],
    };
    expect(plainSchema(listed)).toEqual({
      tools: [
        {
          name: 't',
          inputSchema: { type: 'object', properties: { m: { type: 'object', additionalProperties: true } } },
          outputSchema: { type: 'object', properties: { c: { description: 'x', anyOf: [{ type: 'string' }, { type: 'null' }] } }, additionalProperties: false },
        },
      ],
    });
  });

  it('leaves an additionalProperties schema with content as it is', () => {
    expect(plainSchema({ additionalProperties: { type: 'string' } })).toEqual({ additionalProperties: { type: 'string' } });
  });
});
