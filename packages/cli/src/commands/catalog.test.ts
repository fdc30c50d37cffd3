import { describe, expect, it } from 'vitest';
import { fullProgram } from './all.js';
import { CATALOG, rootHelp } from './catalog.js';

describe('the root help printed without commander', () => {
  it.each([80, 120, 60, 30, 0])('is exactly what commander prints for the full program at %i columns', async (width) => {
    const program = fullProgram();
    program.configureOutput({ getOutHelpWidth: () => width });
    expect(rootHelp(width)).toBe(program.helpInformation());
  });

  it('lists every command of the program, in order, with its description', async () => {
    const program = fullProgram();
    expect(program.commands.map((c) => [c.name(), c.description()])).toEqual(CATALOG.map((c) => [c.name, c.summary]));
  });
});
