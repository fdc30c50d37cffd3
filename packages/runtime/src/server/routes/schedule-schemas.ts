/**
 * Request and response schemas of the /schedules routes.
 */
import { z } from '@hono/zod-openapi';

const TargetSchema = z
  .object({
    kind: z.enum(['agent', 'team', 'workflow']),
    id: z.string().trim().min(1).max(256),
  })
  .strict()
  .openapi('ScheduleTarget');

const InputSchema = z
  .object({
    message: z.string().trim().min(1, 'message must not be empty').max(200_000),
    session_id: z.string().trim().min(1).max(128).optional().openapi({ description: 'Every run continues this session; none: a new session per run' }),
  })
  .strict()
  .openapi('ScheduleInput');

const fields = {
  name: z.string().trim().min(1).max(200),
  cron: z.string().trim().min(1).max(200).openapi({
    description: 'Five fields (minute hour day-of-month month day-of-week) or six with a leading seconds field, e.g. `*/30 * * * * *`',
    example: '0 9 * * 1-5',
  }),
  timezone: z.string().trim().min(1).max(64).openapi({ description: 'IANA time zone the fields are read in; default UTC', example: 'Europe/Paris' }),
  target: TargetSchema,
  input: InputSchema,
  webhook: z.string().trim().min(1).max(2048).nullable().openapi({ description: "Each occurrence's run is posted here when it ends (see the run request's `webhook`); null removes it" }),
  enabled: z.boolean(),
};

export const ScheduleCreateSchema = z
  .object({
    name: fields.name.optional(),
    cron: fields.cron,
    timezone: fields.timezone.optional(),
    target: fields.target,
    input: fields.input,
    webhook: fields.webhook.optional(),
    enabled: fields.enabled.optional().openapi({ description: 'Default true' }),
  })
  .strict()
  .openapi('ScheduleCreate');

export const SchedulePatchSchema = z
  .object({
    name: fields.name.optional(),
    cron: fields.cron.optional(),
    timezone: fields.timezone.optional(),
    target: fields.target.optional(),
    input: fields.input.optional(),
    webhook: fields.webhook.optional(),
    enabled: fields.enabled.optional(),
  })
  .strict()
  .openapi('SchedulePatch');

export const ScheduleSchema = z
  .object({
    schedule_id: z.string(),
    name: z.string(),
    cron: z.string(),
    timezone: z.string(),
    target: TargetSchema,
    input: InputSchema,
    webhook: z.string().nullable(),
    enabled: z.boolean(),
    user_id: z.string().nullable().openapi({ description: 'Whom the runs act for: the user of the credential that created the schedule' }),
    next_run_at: z.string().nullable().openapi({ description: 'The next occurrence (ISO 8601, UTC); null while disabled' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Schedule');

export const OccurrenceSchema = z
  .object({
    schedule_id: z.string(),
    trigger: z.enum(['cron', 'manual']),
    occurrence_at: z.string().openapi({ description: 'The occurrence (cron) or the trigger request (manual), ISO 8601' }),
    state: z.enum(['starting', 'started', 'skipped', 'failed']).openapi({
      description: '`started`: its run was started; `skipped`: missed while no runtime was up (see the catch-up policy); `failed`: the run could not start (`error`)',
    }),
    run_id: z.string().nullable(),
    run_status: z.string().nullable().openapi({ description: "The run's status now" }),
    error: z.string().nullable(),
    recorded_at: z.string(),
  })
  .openapi('ScheduleOccurrence');

export const TriggeredSchema = z
  .object({ schedule_id: z.string(), state: z.enum(['started', 'failed']), run_id: z.string().nullable(), error: z.string().nullable() })
  .openapi('ScheduleTriggered');

export const WebhookDeliverySchema = z
  .object({
    delivery_id: z.string(),
    run_id: z.string(),
    url: z.string(),
    state: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.array(
      z.object({
        attempt: z.number().int(),
        status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null when none came (refused, timed out)" }),
        error: z.string().nullable(),
        duration_ms: z.number().int(),
        attempted_at: z.string(),
      }),
    ),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('WebhookDelivery');
