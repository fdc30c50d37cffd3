import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, isTemplateName, TEMPLATES, templateRepoUrl } from './templates.js';

describe('templates', () => {
  it('offers nine runtime-<target> starters with runtime-docker first and default', () => {
    expect(TEMPLATES).toHaveLength(9);
    expect(TEMPLATES[0]).toBe(DEFAULT_TEMPLATE);
    expect(DEFAULT_TEMPLATE).toBe('runtime-docker');
    expect(TEMPLATES.every((t) => /^runtime-[a-z]+$/.test(t))).toBe(true);
    expect(new Set(TEMPLATES).size).toBe(9);
  });

  it('maps a template to <base>/<template>, with an overridable base', () => {
    expect(templateRepoUrl('runtime-fly', {})).toBe('https://github.com/svc-runtime/runtime-fly');
    expect(templateRepoUrl('runtime-fly', { SVC_TEMPLATES_BASE_URL: 'file:///srv/templates/' })).toBe('file:///srv/templates/runtime-fly');
  });

  it('knows only its own names', () => {
    expect(isTemplateName('runtime-aws')).toBe(true);
    expect(isTemplateName('aws')).toBe(false);
    expect(isTemplateName('')).toBe(false);
  });
});
