import { describe, expect, it } from 'vitest';
import { projectNameError } from './project-name.js';

describe('project names', () => {
  it.each(['my-app', 'runtime_1', 'Project', 'a'])('%j is accepted', (name) => expect(projectNameError(name)).toBeUndefined());

  it.each(['', '.', '..', '../evil', 'a/b', '/abs/path', 'a\\b', 'with space', 'dot.name', '~/home', 'ä'])('%j is rejected', (name) =>
    expect(projectNameError(name)).toMatchObject({ code: 'INVALID_NAME', message: `Invalid project name: ${name}`, hint: expect.stringContaining("'..'") }),
  );
});
