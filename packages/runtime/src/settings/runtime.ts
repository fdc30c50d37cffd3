/**
 * @module settings/runtime
 * The Runtime's own settings (the server, auth, knowledge, traces, schedules, webhooks and model prices areas), read from the environment
 * once at construction, so a bad value fails before the database is opened. Code options win
 * over these where both exist.
 */
import { authSettingsSchema, type AuthSettings } from './auth.js';
import { readEnvironment, type Environment } from './environment.js';
import { knowledgeSettingsSchema, type KnowledgeSettings } from './knowledge.js';
import { readModelPrices, type ModelPrices } from './pricing.js';
import { serverSettingsSchema, type ServerSettings } from './server.js';
import { scheduleSettingsSchema, type ScheduleSettings } from './schedules.js';
import { traceSettingsSchema, type TraceSettings } from './traces.js';
import { webhookSettingsSchema, type WebhookSettings } from './webhooks.js';

export interface Settings extends ServerSettings, KnowledgeSettings, TraceSettings, ScheduleSettings {
  auth: AuthSettings;
  webhooks: WebhookSettings;
  /** MODEL_PRICES_JSON; undefined when unset (no costs are reported). */
  modelPrices: ModelPrices | undefined;
  env: Environment;
}

export function readSettings(env: Environment = process.env): Settings {
  return {
    ...readEnvironment(serverSettingsSchema, env),
    auth: readEnvironment(authSettingsSchema, env),
    ...readEnvironment(knowledgeSettingsSchema, env),
    ...readEnvironment(traceSettingsSchema, env),
    ...readEnvironment(scheduleSettingsSchema, env),
    webhooks: readEnvironment(webhookSettingsSchema, env),
    modelPrices: readModelPrices(env),
    env,
  };
}
