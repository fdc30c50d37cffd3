/**
 * @module sessions/run-event-store
 * The stored events of runs (`svc_run_events`): the runner appends them as a run streams, and
 * any runtime can replay them to a client following the run.
 */
import type { Db, SqlValue } from '../storage/db.js';

export interface StoredRunEvent {
  seq: number;
  event: string;
  /** The event's JSON, as it was streamed. */
  data: string;
}

/** The bus channel on which a runtime says "new events of run <id> are stored". */
export const RUN_EVENTS_CHANNEL = 'svc_run_events';

export class RunEventStore {
  constructor(private readonly db: Db) {}

  /** Stores events in one statement (they are numbered by the caller, from 1 per run). */
  async append(runId: string, events: readonly StoredRunEvent[]): Promise<void> {
    // Bounded statements: both drivers cap the number of parameters.
    for (let i = 0; i < events.length; i += 500) await this.insert(runId, events.slice(i, i + 500));
  }

  private async insert(runId: string, events: readonly StoredRunEvent[]): Promise<void> {
    if (events.length === 0) return;
    const now = Date.now();
    const params: SqlValue[] = [];
    const rows = events.map((e) => {
      params.push(runId, e.seq, e.event, e.data, now);
      const n = params.length;
      return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
    });
    await this.db.execute(`INSERT INTO svc_run_events (run_id, seq, event, data, created_ms) VALUES ${rows.join(', ')}`, params);
  }

  /** Events after `seq`, in order, at most `limit`. */
  async after(runId: string, seq: number, limit = 500): Promise<StoredRunEvent[]> {
    const rows = await this.db.query<{ seq: number | string; event: string; data: string }>(
      'SELECT seq, event, data FROM svc_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [runId, seq, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), event: r.event, data: r.data }));
  }

  /** The last number used for the run (0 when it has no events yet). */
  async lastSeq(runId: string): Promise<number> {
    const [row] = await this.db.query<{ seq: number | string | null }>('SELECT MAX(seq) AS seq FROM svc_run_events WHERE run_id = $1', [runId]);
    return Number(row?.seq ?? 0);
  }
}
