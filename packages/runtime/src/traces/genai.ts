/**
 * @module traces/genai
 * The OpenTelemetry GenAI semantic convention names the OTLP export writes. Copied rather than
 * imported: semantic-conventions 1.45.0 keeps them only in its `incubating` entry point (178 KB
 * of every experimental name, "subject to breaking changes in minor releases", its README
 * advising instrumentations to copy what they use) and marks them deprecated there, moved to
 * the separate GenAI conventions repository. otlp-sink.test.ts checks each one against the
 * installed package, so a rename shows up as a failing test, not as spans backends stop reading.
 */

export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** The current name for the provider; `gen_ai.system` is the older one, still read by many backends. */
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_SYSTEM = 'gen_ai.system';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
/** Seconds, as a double. */
export const GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const GEN_AI_WORKFLOW_NAME = 'gen_ai.workflow.name';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GEN_AI_DATA_SOURCE_ID = 'gen_ai.data_source.id';

/** `gen_ai.operation.name` values. */
export const OPERATION = {
  chat: 'chat',
  executeTool: 'execute_tool',
  invokeAgent: 'invoke_agent',
  invokeWorkflow: 'invoke_workflow',
  retrieval: 'retrieval',
} as const;
