/**
 * The nine starter projects `svc create` offers. This file is the one place the names live:
 * the template projects themselves are maintained as `templates/runtime-<target>` and
 * published as repositories `<base>/runtime-<target>`.
 */

export const TEMPLATE_TARGETS = ['docker', 'aws', 'azure', 'fly', 'gcp', 'helm', 'modal', 'railway', 'render'] as const;

export type TemplateName = `runtime-${(typeof TEMPLATE_TARGETS)[number]}`;

export const TEMPLATES: readonly TemplateName[] = TEMPLATE_TARGETS.map((t): TemplateName => `runtime-${t}`);

export const DEFAULT_TEMPLATE: TemplateName = 'runtime-docker';

/** Where the template repositories are published; SVC_TEMPLATES_BASE_URL overrides it (mirrors, forks, tests). */
export const DEFAULT_TEMPLATES_BASE_URL = 'https://github.com/svc-runtime';
export const TEMPLATES_BASE_URL_ENV = 'SVC_TEMPLATES_BASE_URL';

export function isTemplateName(value: string): value is TemplateName {
  return (TEMPLATES as readonly string[]).includes(value);
}

export function templateRepoUrl(template: TemplateName, env: NodeJS.ProcessEnv): string {
  const base = env[TEMPLATES_BASE_URL_ENV]?.trim() || DEFAULT_TEMPLATES_BASE_URL;
  return `${base.replace(/\/+$/, '')}/${template}`;
}
