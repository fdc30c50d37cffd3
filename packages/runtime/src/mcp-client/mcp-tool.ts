/**
 * @module mcp-client/mcp-tool
 * One MCP tool as the agent holds it: the server's JSON Schema is what the model sees and what
 * checks the model's arguments before the call (Ajv, through the SDK's validator); the result
 * comes back as text the model reads: the structured content as JSON when there is some, else
 * the text blocks, with images, audio and resources described. A result flagged `isError` is
 * thrown, so the model reads it as the tool's error and can correct its call.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AnyFunctionTool, ToolContext } from '../tools/function-tool.js';

const validators = new AjvJsonSchemaValidator();

/** Calls the server's tool (by its own name) for one model call. */
export type CallMcpTool = (name: string, args: Record<string, unknown>, context: ToolContext) => Promise<CallToolResult>;

/** A name model APIs accept: letters, digits, "_" and "-", at most 64. */
export function modelToolName(prefix: string, name: string): string {
  return `${prefix}${name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

export function toFunctionTool(tool: Tool, options: { prefix: string; requiresConfirmation: boolean; call: CallMcpTool }): AnyFunctionTool {
  const { $schema: _ignored, ...schema } = tool.inputSchema as Record<string, unknown>;
  // Model APIs want an object schema with properties, even an empty one.
  const parameters = { ...schema, type: 'object', properties: schema.properties ?? {} };
  const validate = validators.getValidator<Record<string, unknown>>(parameters as never);
  const input = z.unknown().superRefine((value, ctx) => {
    const checked = validate(value);
    if (!checked.valid) ctx.addIssue({ code: 'custom', message: checked.errorMessage });
  });
  return {
    name: modelToolName(options.prefix, tool.name),
    description: tool.description ?? tool.title ?? tool.name,
    input,
    parameters,
    ...(options.requiresConfirmation ? { requiresConfirmation: true } : {}),
    execute: async (args: never, context: ToolContext) => {
      const result = await options.call(tool.name, (args ?? {}) as Record<string, unknown>, context);
      const text = resultText(result);
      if (result.isError) throw new Error(text || 'the tool reported an error');
      return text;
    },
  };
}

/** What the model reads of a result. */
export function resultText(result: CallToolResult): string {
  const blocks = (result.content ?? []).map(describeBlock);
  if (result.structuredContent !== undefined) {
    // The text blocks usually repeat the structured content; the other blocks are kept.
    const others = (result.content ?? []).filter((b) => b.type !== 'text').map(describeBlock);
    return [JSON.stringify(result.structuredContent), ...others].join('\n');
  }
  return blocks.join('\n');
}

function describeBlock(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in block.resource ? String(block.resource.text) : `[resource ${block.resource.uri}${block.resource.mimeType ? `, ${block.resource.mimeType}` : ''}]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.description ? `: ${block.description}` : ''}]`;
    default:
      return JSON.stringify(block);
  }
}
