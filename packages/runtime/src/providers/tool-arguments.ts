/**
 * @module providers/tool-arguments
 * ToolCall.arguments is JSON text (what OpenAI streams), but Anthropic and Ollama send and
 * expect objects. These convert between the two.
 */

/** The arguments as an object for APIs that want one; text that is not a JSON object becomes `{}`. */
export function argumentsObject(json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // The model produced broken JSON earlier; the provider still needs an object to replay it.
    return {};
  }
}

/** Normalises streamed argument text: a call with no arguments is `{}`, never empty text. */
export function argumentsText(json: string): string {
  return json.trim() === '' ? '{}' : json;
}
