/**
 * @module providers/chat-provider
 * What makes a chat adapter a provider the runtime can pick: its definition (id, default model,
 * its variables and when they select it, its model class), written beside the adapter in the
 * vendor's chat file. The definition's `create` is the vendor's `openai()`-style factory and
 * what modelFromEnvironment builds with: options first, its variables next, its default model last.
 */
import type { z } from 'zod';
import type { Model } from '../model/model.js';
import { readEnvironment, type Environment } from '../settings/environment.js';

export type ModelEnvironment = Readonly<Environment>;

/** Every option may be omitted; `env` (default `process.env`) supplies what is missing. */
export type ChatFactoryOptions<Options> = Partial<Options> & { env?: ModelEnvironment };

/** What a vendor's chat file declares. */
export interface ChatProviderDefinition<Id extends string, DefaultModel extends string, Settings, Options extends { model: string }> {
  /** MODEL_PROVIDER's value for it, and the `provider` of its models. */
  id: Id;
  /** Used when neither the options nor its variables name a model. */
  defaultModel: DefaultModel;
  /** Its variables: a schema of settings/providers. */
  settings: z.ZodType<Settings>;
  /** Whether its variables select it when MODEL_PROVIDER is unset (the list's order decides between several). */
  selectedBy: (settings: Settings) => boolean;
  /** The options its variables supply where the code's options are silent (`model` included). */
  options: (settings: Settings) => Partial<Options>;
  /** Its model, from complete options. */
  model: (options: Options) => Model;
}

/** A chat provider, as the list of them (providers/from-environment) holds it. */
export interface ChatProvider<Id extends string = string, DefaultModel extends string = string, Options = object> {
  readonly id: Id;
  readonly defaultModel: DefaultModel;
  /** Whether `env` selects it when MODEL_PROVIDER is unset. */
  selectedBy(env: ModelEnvironment): boolean;
  /** Its model: the options given, then its variables in `env` (default `process.env`), then the default model. */
  create(options?: ChatFactoryOptions<Options>): Model;
}

export function defineChatProvider<const Id extends string, const DefaultModel extends string, Settings, Options extends { model: string }>(
  definition: ChatProviderDefinition<Id, DefaultModel, Settings, Options>,
): ChatProvider<Id, DefaultModel, Options> {
  const read = (env: ModelEnvironment) => readEnvironment(definition.settings, env);
  return {
    id: definition.id,
    defaultModel: definition.defaultModel,
    selectedBy: (env) => definition.selectedBy(read(env)),
    create: (options = {}) => {
      const { env = process.env, ...given } = options;
      const fromEnvironment = definition.options(read(env));
      const merged: Record<string, unknown> = { ...given };
      for (const [key, value] of Object.entries(fromEnvironment)) merged[key] = (given as Record<string, unknown>)[key] ?? value;
      merged.model ??= definition.defaultModel;
      return definition.model(merged as Options);
    },
  };
}
