/**
 * The runtime's schedules API (GET, POST /schedules, DELETE /schedules/{id}). Every answer
 * becomes a Schedule or a CliError with a next step; a refusal of the request (a bad cron
 * expression, an unknown time zone or target) carries the runtime's own words. The credential
 * travels only in the Authorization header.
 */
import { CliError } from '../errors.js';
import { isObject, parseJson } from '../util/json.js';
import { type HttpResponse } from './request.js';
import { callRuntime, jsonBody } from './runtime-call.js';
import { errorDetail } from './service-accounts.js';

const TIMEOUT_MS = 30_000;

export const SCHEDULES_CREDENTIAL_HINT = 'Set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) to a credential holding the schedules scopes (schedules:read, schedules:write, schedules:delete) or admin.';

export type TargetKind = 'agent' | 'team' | 'workflow';

export interface Schedule {
  schedule_id: string;
  name: string;
  cron: string;
  timezone: string;
  target: { kind: TargetKind; id: string };
  input: { message: string; session_id?: string };
  webhook: string | null;
  enabled: boolean;
  user_id: string | null;
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScheduleRequest {
  name?: string;
  cron: string;
  timezone?: string;
  target: { kind: TargetKind; id: string };
  input: { message: string; session_id?: string };
  webhook?: string;
  enabled?: boolean;
}

const str = (v: unknown): v is string => typeof v === 'string';
const KINDS: readonly string[] = ['agent', 'team', 'workflow'];

function parseSchedule(v: unknown): Schedule | undefined {
  if (!isObject(v) || !str(v.schedule_id) || !str(v.name) || !str(v.cron) || !str(v.timezone) || typeof v.enabled !== 'boolean') return undefined;
  const target = v.target;
  const input = v.input;
  if (!isObject(target) || !str(target.kind) || !KINDS.includes(target.kind) || !str(target.id)) return undefined;
  if (!isObject(input) || !str(input.message)) return undefined;
  return {
    schedule_id: v.schedule_id,
    name: v.name,
    cron: v.cron,
    timezone: v.timezone,
    target: { kind: target.kind as TargetKind, id: target.id },
    input: { message: input.message, ...(str(input.session_id) ? { session_id: input.session_id } : {}) },
    webhook: str(v.webhook) ? v.webhook : null,
    enabled: v.enabled,
    user_id: str(v.user_id) ? v.user_id : null,
    next_run_at: str(v.next_run_at) ? v.next_run_at : null,
    created_at: str(v.created_at) ? v.created_at : '',
    updated_at: str(v.updated_at) ? v.updated_at : '',
  };
}

export class SchedulesClient {
  constructor(
    private readonly base: string,
    private readonly credential: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  async list(): Promise<Schedule[]> {
    const res = await this.call('GET', '/schedules?limit=1000');
    if (res.status !== 200) throw new CliError('API_ERROR', `The runtime refused to list schedules: ${errorDetail(res)}`, { status: res.status });
    const body = parseJson(res.body);
    const schedules = Array.isArray(body) ? body.map(parseSchedule) : undefined;
    if (!schedules || schedules.some((s) => s === undefined)) throw this.badResponse('GET /schedules');
    return schedules as Schedule[];
  }

  async create(request: ScheduleRequest): Promise<Schedule> {
    const res = await this.call('POST', '/schedules', request);
    if (res.status !== 201) throw new CliError('API_ERROR', `The runtime refused the schedule: ${errorDetail(res)}`, { status: res.status });
    const created = parseSchedule(parseJson(res.body));
    if (!created) throw this.badResponse('POST /schedules');
    return created;
  }

  async delete(id: string): Promise<void> {
    const res = await this.call('DELETE', `/schedules/${encodeURIComponent(id)}`);
    if (res.status === 404) throw new CliError('NOT_FOUND', `No schedule with id ${id}.`, { hint: 'Run svc schedules list to see the schedules and their ids.', status: 404 });
    if (res.status !== 204) throw new CliError('API_ERROR', `The runtime refused to delete schedule ${id}: ${errorDetail(res)}`, { status: res.status });
  }

  private badResponse(what: string): CliError {
    return new CliError('BAD_RESPONSE', `The runtime at ${this.base} gave an unexpected answer to ${what}.`, { hint: 'Check the URL (--url or RUNTIME_URL); schedules need a runtime that serves /schedules.' });
  }

  private call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<HttpResponse> {
    return callRuntime({
      base: this.base, credential: this.credential, env: this.env, method, path, timeoutMs: TIMEOUT_MS,
      body: body === undefined ? undefined : jsonBody(body), credentialHint: SCHEDULES_CREDENTIAL_HINT,
    });
  }
}
