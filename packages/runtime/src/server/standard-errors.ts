/**
 * @module server/standard-errors
 * The error responses every protected JSON route can give, for the OpenAPI document.
 */
import { ErrorBodySchema } from './errors.js';

const body = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBodySchema } } });

export const standardErrors = {
  400: body('Bad request (BAD_REQUEST)'),
  401: body('Missing or invalid credentials (UNAUTHENTICATED)'),
  403: body('The credentials lack a required scope (FORBIDDEN)'),
  404: body('Not found (NOT_FOUND)'),
  422: body('Validation error (VALIDATION_ERROR), with field paths in `errors`'),
  500: body('Internal error (INTERNAL_SERVER_ERROR)'),
} as const;
