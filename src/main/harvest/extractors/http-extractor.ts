/**
 * The `http` backend of the harvest: the harvest prompt sent as one user message to
 * Anthropic's Messages API (`api: 'anthropic'`, POST <url>/v1/messages) or to an OpenAI-compatible
 * chat completions endpoint (`api: 'openai'`, POST <url>/chat/completions, url being the base with
 * its /v1), with Node's own fetch.
 *
 * Invariants:
 * - the API key is read from the environment variable the settings name (keyEnv) at each call,
 *   never stored, logged, or put in an error (an API's error text is scrubbed of it too);
 * - no redirect is followed (a key header must not travel to another host);
 * - a request is aborted after the timeout, or at a person's Cancel (`signal`: a CancelledError);
 *   an answer larger than MAX_HTTP_ANSWER is refused;
 * - errors name the API, its origin, the HTTP status and the API's own error message.
 */
import { excerpt } from './json-answer';
import { CancelledError, duration, realTimer, type ModelAnswer, type StartTimer } from './model-extractor';

const ANTHROPIC_VERSION = '2023-06-01';
/** Output tokens asked of an Anthropic model: room for ten candidates with their evidence. */
const ANTHROPIC_MAX_TOKENS = 4096;
export const DEFAULT_HTTP_TIMEOUT_MS = 5 * 60_000;
/** The largest response body read (bytes). */
const MAX_HTTP_ANSWER = 4 * 1024 * 1024;

export interface HttpModel {
  readonly api: 'anthropic' | 'openai';
  /** Base URL: https://api.anthropic.com, or an OpenAI-compatible server's, /v1 included. */
  readonly url: string;
  readonly model: string;
  /** The environment variable holding the API key. */
  readonly keyEnv: string;
}

export interface HttpOptions {
  readonly timeoutMs?: number;
  readonly startTimer?: StartTimer;
  /** Where the key is looked up (default: this process's environment), at each call. */
  readonly env?: NodeJS.ProcessEnv;
  /** A person's Cancel: the request is aborted and the call rejects with a CancelledError. */
  readonly signal?: AbortSignal;
}

const API_NAMES = { anthropic: 'The Anthropic API', openai: 'The OpenAI-compatible API' } as const;

/** The endpoint for a base URL; an Anthropic base given with its /v1 is not doubled. */
export function endpointOf(model: Pick<HttpModel, 'api' | 'url'>): URL {
  const base = model.url.replace(/\/+$/, '');
  if (model.api === 'anthropic') return new URL(/\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`);
  return new URL(`${base}/chat/completions`);
}

/** The key, read now from the environment; a clear error naming the variable when it is not set. */
function keyFrom(model: HttpModel, env: NodeJS.ProcessEnv): string {
  const key = env[model.keyEnv];
  if (key === undefined || key.trim() === '') {
    throw new Error(`The environment variable ${model.keyEnv} is not set: the http harvest backend reads its API key from it (harvestHttp.keyEnv). Set it in the environment Cairn runs in, or name another variable.`);
  }
  return key.trim();
}

class TooLarge extends Error {}

/** The response body as text, refused past MAX_HTTP_ANSWER. */
async function bodyText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_HTTP_ANSWER) {
      await reader.cancel();
      throw new TooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The API's own error message in a body ({"error":{"message"}} for both APIs), or an excerpt. */
function apiMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'object' && typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: a proxy's page, say.
  }
  return body.trim() === '' ? '(no body)' : excerpt(body, 300);
}

function requestOf(model: HttpModel, key: string, prompt: string): { headers: Record<string, string>; body: unknown } {
  if (model.api === 'anthropic') {
    return {
      headers: { 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json' },
      body: { model: model.model, max_tokens: ANTHROPIC_MAX_TOKENS, messages: [{ role: 'user', content: prompt }] },
    };
  }
  return {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: { model: model.model, messages: [{ role: 'user', content: prompt }] },
  };
}

/** The model's text in a successful response body. */
/** The tokens an API reports it used, when it reports both counts. */
function tokensOf(input: unknown, output: unknown): { tokens?: { input: number; output: number } } {
  return typeof input === 'number' && typeof output === 'number' ? { tokens: { input, output } } : {};
}

function answerOf(model: HttpModel, body: string): ModelAnswer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (model.api === 'anthropic') {
    const r = parsed as { content?: Array<{ type?: unknown; text?: unknown }>; stop_reason?: unknown; usage?: { input_tokens?: unknown; output_tokens?: unknown } };
    if (!Array.isArray(r.content)) return null;
    const text = r.content
      .filter((b) => b.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text as string)
      .join('');
    return { text, cutShort: r.stop_reason === 'max_tokens', ...tokensOf(r.usage?.input_tokens, r.usage?.output_tokens) };
  }
  const r = parsed as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
  const choice = Array.isArray(r.choices) ? r.choices[0] : undefined;
  if (!choice || typeof choice.message?.content !== 'string') return null;
  return { text: choice.message.content, cutShort: choice.finish_reason === 'length', ...tokensOf(r.usage?.prompt_tokens, r.usage?.completion_tokens) };
}

/** Sends the prompt to the model; its answer, or an Error naming what went wrong (never the key). */
export async function askHttpModel(model: HttpModel, prompt: string, options: HttpOptions = {}): Promise<ModelAnswer> {
  const key = keyFrom(model, options.env ?? process.env);
  const endpoint = endpointOf(model);
  const who = `${API_NAMES[model.api]} at ${endpoint.origin}`;
  const scrub = (text: string): string => text.split(key).join('[key]');
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  if (options.signal?.aborted) throw new CancelledError(`Cancelled: nothing was sent to ${who}.`);
  const controller = new AbortController();
  let timedOut = false;
  const stopTimer = (options.startTimer ?? realTimer)(timeoutMs, () => {
    timedOut = true;
    controller.abort();
  });
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const cancel = (): void => {
    stopTimer();
    options.signal?.removeEventListener('abort', onAbort);
  };
  const { headers, body } = requestOf(model, key, prompt);
  try {
    let response: Response;
    let text: string;
    try {
      response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body), redirect: 'manual', signal: controller.signal });
      text = await bodyText(response);
    } catch (err) {
      if (options.signal?.aborted) throw new CancelledError(`Cancelled: the request to ${who} was stopped before it answered.`, { cause: err });
      if (timedOut) throw new Error(`${who} did not answer within ${duration(timeoutMs)}; the request was stopped.`, { cause: err });
      if (err instanceof TooLarge) throw new Error(`${who} answered with more than ${MAX_HTTP_ANSWER / (1024 * 1024)} MiB; the answer was refused.`, { cause: err });
      const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
      const why = typeof cause?.code === 'string' ? cause.code : err instanceof Error ? err.message : String(err);
      throw new Error(`${who} could not be reached: ${scrub(why)}`, { cause: err });
    }
    if (response.status >= 300 && response.status < 400) {
      throw new Error(`${who} answered ${response.status} (a redirect, not followed: an API key is never sent on to another address). Set harvestHttp.url to the address it redirects to.`);
    }
    if (!response.ok) throw new Error(`${who} answered ${response.status}: ${scrub(apiMessage(text))}`);
    const answer = answerOf(model, text);
    if (answer === null) throw new Error(`${who} answered in a shape that is not its API's (${model.api === 'anthropic' ? 'no content[]' : 'no choices[0].message.content'}): ${scrub(excerpt(text))}`);
    return answer;
  } finally {
    cancel();
  }
}

/** The runner of the `http` backend: one prompt, one request (see the header). */
export function httpAsk(model: HttpModel, options: HttpOptions = {}): (prompt: string, signal?: AbortSignal) => Promise<ModelAnswer> {
  return (prompt, signal) => askHttpModel(model, prompt, signal ? { ...options, signal } : options);
}
