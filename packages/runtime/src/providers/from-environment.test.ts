import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { Runtime } from '../runtime.js';
import { SqliteDb } from '../storage/sqlite/sqlite-db.js';
import { anthropic, modelFromEnvironment, ollama, openai } from './from-environment.js';

describe('modelFromEnvironment', () => {
  it('is undefined when nothing is configured, and blank values count as unset', () => {
    expect(modelFromEnvironment({})).toBeUndefined();
    expect(modelFromEnvironment({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '  ', OLLAMA_HOST: '', MODEL_PROVIDER: '' })).toBeUndefined();
  });

  it('detects each provider from its variables, with the model name or a default', () => {
    expect(modelFromEnvironment({ OPENAI_API_KEY: 'sk-1' })).toMatchObject({ provider: 'openai', id: 'gpt-4o-mini' });
    expect(modelFromEnvironment({ OPENAI_BASE_URL: 'http://vllm:8000/v1', OPENAI_MODEL: 'qwen' })).toMatchObject({ provider: 'openai', id: 'qwen' });
    expect(modelFromEnvironment({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_MODEL: 'claude-x' })).toMatchObject({ provider: 'anthropic', id: 'claude-x' });
    expect(modelFromEnvironment({ OLLAMA_HOST: 'gpu-box' })).toMatchObject({ provider: 'ollama', id: 'llama3.2' });
    expect(modelFromEnvironment({ OLLAMA_MODEL: 'qwen3' })).toMatchObject({ provider: 'ollama', id: 'qwen3' });
  });

  it('prefers OpenAI, then Anthropic, then Ollama when several are set', () => {
    expect(modelFromEnvironment({ OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'k', OLLAMA_HOST: 'h' })?.provider).toBe('openai');
    expect(modelFromEnvironment({ ANTHROPIC_API_KEY: 'k', OLLAMA_HOST: 'h' })?.provider).toBe('anthropic');
  });

  it('lets MODEL_PROVIDER choose, in any case', () => {
    expect(modelFromEnvironment({ MODEL_PROVIDER: 'Ollama', OPENAI_API_KEY: 'sk-1' })).toMatchObject({ provider: 'ollama', id: 'llama3.2' });
    expect(modelFromEnvironment({ MODEL_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'k' })?.provider).toBe('anthropic');
  });

  it('fails startup with a ConfigurationError for an unknown or unusable provider', () => {
    expect(() => modelFromEnvironment({ MODEL_PROVIDER: 'gemini' })).toThrow(ConfigurationError);
    expect(() => modelFromEnvironment({ MODEL_PROVIDER: 'gemini' })).toThrow(/openai, anthropic, ollama/);
    expect(() => modelFromEnvironment({ MODEL_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-1' })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => modelFromEnvironment({ MODEL_PROVIDER: 'openai' })).toThrow(ConfigurationError);
    expect(() => modelFromEnvironment({ OLLAMA_HOST: 'not a host' })).toThrow(ConfigurationError);
  });
});

describe('provider factories', () => {
  it('take options first and the environment for the rest', () => {
    const env = { OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'from-env', ANTHROPIC_API_KEY: 'k', OLLAMA_MODEL: 'm' };
    expect(openai({ env })).toMatchObject({ provider: 'openai', id: 'from-env' });
    expect(openai({ env, model: 'gpt-4.1' }).id).toBe('gpt-4.1');
    expect(anthropic({ env }).id).toBe('claude-sonnet-4-5');
    expect(ollama({ env, host: 'http://localhost:11434' }).id).toBe('m');
  });

  it('refuse a keyed provider without a key', () => {
    expect(() => anthropic({ env: {} })).toThrow(expect.objectContaining({ code: 'MODEL_NOT_CONFIGURED' }));
    expect(() => openai({ env: {} })).toThrow(expect.objectContaining({ code: 'MODEL_NOT_CONFIGURED' }));
  });
});

describe('the Runtime default model', () => {
  it('comes from the environment unless a model is given, and a bad setting fails construction', async () => {
    const fromEnv = new Runtime({ env: { OLLAMA_MODEL: 'qwen3' }, db: new SqliteDb({ path: ':memory:' }) });
    expect(fromEnv.defaultModel).toMatchObject({ provider: 'ollama', id: 'qwen3' });
    const given = ollama({ env: {}, model: 'mine' });
    const explicit = new Runtime({ env: { OPENAI_API_KEY: 'sk-1' }, model: given, db: new SqliteDb({ path: ':memory:' }) });
    expect(explicit.defaultModel).toBe(given);
    const unused = new SqliteDb({ path: ':memory:' });
    expect(() => new Runtime({ env: { MODEL_PROVIDER: 'nope' }, db: unused })).toThrow(ConfigurationError);
    await Promise.all([fromEnv.close(), explicit.close(), unused.close()]);
  });
});
