/**
 * @module run/model-call
 * One model call as a span, for the agent and team loops: what was sent, what came back, the
 * tokens the model's `usage` reported (cached and cache-written input where the provider says), the time to the first part and the finish reason. The
 * loop calls `part()` on each stream part (one comparison: no per-token work) and `end` or
 * `fail` once.
 */
import type { TraceSpan } from '../components/tracer.js';
import type { ChatMessage, FinishReason, Model, ToolCall, ToolSpec, Usage } from '../model/model.js';
import { withoutMediaData } from '../model/tool-media.js';

export class ModelCallSpan {
  private readonly startMs = Date.now();
  private firstMs = 0;
  private readonly span: TraceSpan | undefined;

  constructor(trace: TraceSpan | undefined, model: Model, messages: readonly ChatMessage[], tools: readonly ToolSpec[] | undefined) {
    this.span = trace?.child('model', `${model.provider}/${model.id}`, {
      provider: model.provider,
      model: model.id,
      messages_sent: withoutMediaData(messages),
      ...(tools?.length ? { tools: tools.map((t) => t.name) } : {}),
    });
  }

  /** A stream part arrived; only the first one is timed. */
  part(): void {
    if (this.firstMs === 0) this.firstMs = Date.now();
  }

  end(text: string, calls: readonly ToolCall[], finish: { reason: FinishReason; usage: Usage } | undefined): void {
    if (!this.span) return;
    const usage = finish?.usage;
    this.span.end('ok', {
      message_received: calls.length ? { role: 'assistant', content: text, tool_calls: calls } : { role: 'assistant', content: text },
      input_tokens: usage?.inputTokens ?? null,
      output_tokens: usage?.outputTokens ?? null,
      total_tokens: usage?.totalTokens ?? null,
      // Reported only by providers that cache prompts; null when the provider said nothing.
      cached_tokens: usage?.cachedInputTokens ?? null,
      cache_write_tokens: usage?.cacheWriteInputTokens ?? null,
      finish_reason: finish?.reason ?? null,
      latency_ms: Date.now() - this.startMs,
      ttft_ms: this.firstMs === 0 ? null : this.firstMs - this.startMs,
    });
  }

  fail(error: unknown, cancelled: boolean): void {
    this.span?.end(cancelled ? 'cancelled' : 'error', {
      error: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && 'code' in error && typeof error.code === 'string' ? { error_code: error.code } : {}),
      latency_ms: Date.now() - this.startMs,
      ttft_ms: this.firstMs === 0 ? null : this.firstMs - this.startMs,
    });
  }
}
