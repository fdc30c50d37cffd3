/**
 * @module mcp-client/mcp-tool
 * One MCP tool as the agent holds it: the server's JSON Schema is what the model sees and what
 * checks the model's arguments before the call (Ajv, through the SDK's validator); the result
 * comes back as text (the structured content as JSON when there is some, else the text blocks,
 * resources as their text or a description) with the images and sounds as media parts, which the
 * providers that can send them to the model send as such (model/tool-media). Media past the
 * size limit are described instead. A result flagged `isError` is thrown, so the model reads it
 * as the tool's error and can correct its call.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolMedia } from '../model/model.js';
import { base64Bytes, describeMedia, toolResultText } from '../model/tool-media.js';
import { withMedia, type AnyFunctionTool, type ToolContext } from '../tools/function-tool.js';

const validators = new AjvJsonSchemaValidator();

/** Calls the server's tool (by its own name) for one model call. */
export type CallMcpTool = (name: string, args: Record<string, unknown>, context: ToolContext) => Promise<CallToolResult>;

/** A name model APIs accept: letters, digits, "_" and "-", at most 64. */
export function modelToolName(prefix: string, name: string): string {
  return `${prefix}${name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

export interface McpToolOptions {
  prefix: string;
  requiresConfirmation: boolean;
  /** The media bytes (decoded) one result may hand the model; past it, descriptions. */
  maxMediaBytes: number;
  call: CallMcpTool;
}

export function toFunctionTool(tool: Tool, options: McpToolOptions): AnyFunctionTool {
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
      const { text, media } = resultContent(result, options.maxMediaBytes);
      if (result.isError) throw new Error(toolResultText(text, media) || 'the tool reported an error');
      return media.length ? withMedia(text, media) : text;
    },
  };
}

/**
 * What stands for a server whose tools could not be listed: one tool, whose description says so
 * and whose every call answers with the failure, so the model knows the server's tools are
 * missing and why, rather than calling a list it saw earlier.
 */
export function unavailableTool(prefix: string, server: string, error: string): AnyFunctionTool {
  return {
    name: modelToolName(prefix, `${server}_unavailable`),
    description: `The tools of the MCP server "${server}" are unavailable for now: ${error}. Calling this reports the failure; tell the user if you needed them.`,
    input: z.unknown(),
    parameters: { type: 'object', properties: {} },
    execute: () => {
      throw new Error(error);
    },
  };
}

/** What the model reads of a result, with every media part described (tests, errors). */
export function resultText(result: CallToolResult): string {
  const { text, media } = resultContent(result, Number.POSITIVE_INFINITY);
  return toolResultText(text, media);
}

/**
 * A result's text and its media parts, within `maxMediaBytes` in all: a part that would pass the
 * limit is described in the text instead, with the limit named.
 */
export function resultContent(result: CallToolResult, maxMediaBytes: number): { text: string; media: ToolMedia[] } {
  const blocks = result.content ?? [];
  const media: ToolMedia[] = [];
  const lines: string[] = [];
  let left = maxMediaBytes;
  // The text blocks usually repeat the structured content: it stands for them.
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  for (const block of blocks) {
    if (block.type === 'text') {
      if (result.structuredContent === undefined) lines.push(block.text);
      continue;
    }
    const part = mediaOf(block);
    if (!part) {
      lines.push(describeBlock(block));
      continue;
    }
    const bytes = base64Bytes(part.data);
    if (bytes > left) {
      lines.push(`${describeMedia(part)}: not shown, past the limit of ${maxMediaBytes} bytes of media a tool result may carry`);
      continue;
    }
    left -= bytes;
    media.push(part);
  }
  return { text: lines.join('\n'), media };
}

/** An image or sound, given inline or as an embedded resource's blob. */
function mediaOf(block: CallToolResult['content'][number]): ToolMedia | undefined {
  if (block.type === 'image' || block.type === 'audio') return { type: block.type, mimeType: block.mimeType, data: block.data };
  if (block.type === 'resource' && 'blob' in block.resource && typeof block.resource.blob === 'string') {
    const mimeType = block.resource.mimeType ?? '';
    const type = mimeType.startsWith('image/') ? 'image' : mimeType.startsWith('audio/') ? 'audio' : undefined;
    if (type) return { type, mimeType, data: block.resource.blob };
  }
  return undefined;
}

function describeBlock(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'resource':
      return 'text' in block.resource ? String(block.resource.text) : `[resource ${block.resource.uri}${block.resource.mimeType ? `, ${block.resource.mimeType}` : ''}]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.description ? `: ${block.description}` : ''}]`;
    default:
      return JSON.stringify(block);
  }
}
