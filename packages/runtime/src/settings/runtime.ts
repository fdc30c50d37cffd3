/**
 * @module settings/runtime
 * The Runtime's own settings (the server and knowledge areas), read from the environment once
 * at construction. Code options win over these where both exist.
 */
import { readEnvironment, type Environment } from './environment.js';
import { knowledgeSettingsSchema, type KnowledgeSettings } from './knowledge.js';
import { serverSettingsSchema, type ServerSettings } from './server.js';

export interface Settings extends ServerSettings, KnowledgeSettings {
  env: Environment;
}

export function readSettings(env: Environment = process.env): Settings {
  return {
    ...readEnvironment(serverSettingsSchema, env),
    ...readEnvironment(knowledgeSettingsSchema, env),
    env,
  };
}
