/**
 * Requests whose params do not fit their method's schema (a tools/call whose `arguments` is a
 * string or an array, a resources/read without a uri) are answered -32602 Invalid params with a
 * short message naming the field, before the SDK sees them. The SDK checks the same schemas, but
 * its check throws the schema error, which it answers as -32603 Internal error with the whole list
 * of zod issues, as JSON, for a message. Installed on a transport once the server is connected to
 * it, for stdio and HTTP alike (./memory-mcp-server.ts, `connect`).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, type JSONRPCErrorResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The schema of each method a client may call, by method. */
const SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

const EXPECTED: Record<string, string> = {
  object: 'an object',
  record: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: string;
}

/** One line naming the field and what it must be, e.g. `params.arguments must be an object, not a string.` */
function describe(method: string, request: unknown, issue: Issue): string {
  const field = issue.path.map(String).join('.') || 'params';
  const value = valueAt(request, issue.path);
  const expected = issue.expected === undefined ? undefined : (EXPECTED[issue.expected] ?? issue.expected);
  const what =
    issue.code === 'invalid_type' && expected !== undefined
      ? value === undefined
        ? `${field} is missing; it must be ${expected}.`
        : `${field} must be ${expected}, not ${kindOf(value)}.`
      : `${field}: ${issue.message}.`;
  return `Invalid params for ${method}: ${what}`.slice(0, 300);
}

/** The -32602 answer `message` gets, if it is a request whose params its method's schema refuses; else null. */
function invalidParamsAnswer(message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!('method' in message) || !('id' in message)) return null;
  const schema = SCHEMAS.get(message.method);
  if (!schema) return null; // an unknown method: the SDK answers -32601
  const parsed = schema.safeParse(message);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0] as Issue;
  return { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: describe(message.method, message, issue) } };
}

/** Puts the check in front of the handler the server installed on `transport` (call after connect). */
export function refuseInvalidParams(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const answer = invalidParamsAnswer(message);
    if (answer) transport.send(answer).catch((err: unknown) => transport.onerror?.(err instanceof Error ? err : new Error(String(err))));
    else deliver?.(message, extra);
  };
}
