import { describe, expect, it } from 'vitest';
import { readSettings } from './runtime.js';

describe('webhook and schedule settings', () => {
  it('has no webhook secret by default, refuses private receivers, retries 8 times from 5 s', () => {
    expect(readSettings({}).webhooks).toEqual({ secret: undefined, allowPrivateHosts: false, maxAttempts: 8, timeoutMs: 10_000, retryBaseMs: 5000 });
    expect(
      readSettings({ WEBHOOK_SECRET: ' a-secret-of-sixteen+ ', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT_SECONDS: '2', WEBHOOK_RETRY_BASE_SECONDS: '1' }).webhooks,
    ).toEqual({ secret: 'a-secret-of-sixteen+', allowPrivateHosts: true, maxAttempts: 3, timeoutMs: 2000, retryBaseMs: 1000 });
  });

  it('refuses a short secret and out-of-range numbers, naming the variable', () => {
    expect(() => readSettings({ WEBHOOK_SECRET: 'short' })).toThrow('WEBHOOK_SECRET must be at least 16 characters');
    expect(() => readSettings({ WEBHOOK_MAX_ATTEMPTS: '0' })).toThrow(/WEBHOOK_MAX_ATTEMPTS must be a whole number from 1 to 20, got "0"/);
    expect(() => readSettings({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'sometimes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_HOSTS must be true or false/);
  });

  it('fires schedules by default, catching up an occurrence missed by at most 300 s', () => {
    expect(readSettings({})).toMatchObject({ schedulesEnabled: true, scheduleCatchupMs: 300_000 });
    expect(readSettings({ SCHEDULES_ENABLED: 'false', SCHEDULE_CATCHUP_SECONDS: '0' })).toMatchObject({ schedulesEnabled: false, scheduleCatchupMs: 0 });
    expect(() => readSettings({ SCHEDULE_CATCHUP_SECONDS: '100000' })).toThrow(/SCHEDULE_CATCHUP_SECONDS must be a whole number from 0 to 86400/);
  });
});
