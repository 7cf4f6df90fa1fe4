// The `http` backend against real loopback HTTP servers (node:http) that speak the
// Anthropic Messages and the OpenAI chat completions wire formats. No model runs here: each server
// answers with a fixed candidate, and records the request it got, so the tests check what left
// Cairn: the endpoint, the headers (the key arrived, as the API expects it), the body (the marked
// prompt as one user message), and that secrets planted in the transcript did NOT arrive. The
// timeout runs on a manual clock, advanced once the server holds the request.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusSecret, manualClock, message } from './fixtures/support';
import { askHttpModel, DEFAULT_HTTP_TIMEOUT_MS, endpointOf, type HttpModel } from './http-extractor';
import { extractorFor } from './index';
import { HARVEST_PROMPT_MARKER } from './prompt';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

type Reply = (req: Received, res: http.ServerResponse) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback server answering with `reply`; `requests` holds what it received. */
async function serve(reply: Reply): Promise<{ base: string; requests: Received[] }> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const received = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
      requests.push(received);
      reply(received, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const json = (res: http.ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const KEY = 'test-key-0123456789abcdef';
const answer = JSON.stringify({
  candidates: [{ category: 'convention', text: 'Never push to main directly.', scope: 'project', evidence: [{ messageId: 'u2', quote: 'Never push to main directly.' }], confidence: 0.9, rationale: 'A standing rule.' }],
});
const planted = [corpusSecret('github-token'), corpusSecret('aws-access-key-id'), corpusSecret('private-key')];
const segment = [
  message('u1', `Use GH_TOKEN=${planted[0]} and AWS_ACCESS_KEY_ID=${planted[1]} for the deploy.`),
  message('k1', `-----BEGIN RSA PRIVATE KEY-----\n${planted[2]}\n${planted[2]}\n-----END RSA PRIVATE KEY-----`),
  message('u2', 'Never push to main directly.'),
];

/** What the prompt sent must be: marked, and free of every planted secret. */
function expectCleanPrompt(prompt: string): void {
  expect(prompt.startsWith(`${HARVEST_PROMPT_MARKER}\n`)).toBe(true);
  expect(prompt).toContain('Never push to main directly.');
  for (const secret of planted) expect(prompt).not.toContain(secret);
  expect(prompt).toContain('[redacted secret: github-token]');
}

describe('the http backend, Anthropic Messages API', () => {
  it('posts the prompt to /v1/messages with the key, version and model, and reads content[].text', async () => {
    const api = await serve((_req, res) => json(res, 200, { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: `\`\`\`json\n${answer}` }, { type: 'text', text: '\n```' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 20 } }));
    const env: NodeJS.ProcessEnv = {};
    const extractor = extractorFor({ harvestExtractor: 'http', harvestCommand: '', harvestHttp: { api: 'anthropic', url: api.base, model: 'claude-x', keyEnv: 'CAIRN_TEST_ANTHROPIC_KEY' } }, env);
    // The key is read when the model is asked, not when the extractor is made.
    env.CAIRN_TEST_ANTHROPIC_KEY = KEY;
    const calls: unknown[] = [];
    const candidates = await extractor.extract(segment, { onCall: (call) => calls.push(call) });
    expect(candidates).toMatchObject([{ text: 'Never push to main directly.', evidence: [{ messageId: 'u2' }] }]);
    // What the call cost, as the API reported it: the prompt's characters and its tokens.
    expect(calls).toEqual([{ chars: JSON.parse(api.requests[0]!.body).messages[0].content.length, tokens: { input: 10, output: 20 } }]);

    expect(api.requests).toHaveLength(1);
    const [req] = api.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/messages' });
    expect(req!.headers['x-api-key']).toBe(KEY);
    expect(req!.headers['anthropic-version']).toBe('2023-06-01');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBeUndefined();
    const body = JSON.parse(req!.body) as { model: string; max_tokens: number; messages: Array<{ role: string; content: string }> };
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model']);
    expect(body).toMatchObject({ model: 'claude-x', max_tokens: 4096 });
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]!.role).toBe('user');
    expectCleanPrompt(body.messages[0]!.content);
    expect(req!.body).not.toContain(planted[2]!.slice(0, 20));
  });

  it("reports the API's error message, never the key", async () => {
    const api = await serve((req, res) => json(res, 401, { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${String(req.headers['x-api-key'])}` } }));
    const model: HttpModel = { api: 'anthropic', url: api.base, model: 'claude-x', keyEnv: 'K' };
    const failing = askHttpModel(model, 'prompt', { env: { K: KEY } });
    await expect(failing).rejects.toThrow(`The Anthropic API at ${api.base} answered 401: invalid x-api-key [key]`);
    await failing.catch((err: Error) => expect(`${err.message} ${String(err.cause)}`).not.toContain(KEY));
  });

  it('says so when an answer it cannot read was cut at max_tokens', async () => {
    const api = await serve((_req, res) => json(res, 200, { type: 'message', content: [{ type: 'text', text: answer.slice(0, 40) }], stop_reason: 'max_tokens' }));
    const extractor = extractorFor({ harvestExtractor: 'http', harvestCommand: '', harvestHttp: { api: 'anthropic', url: `${api.base}/v1/`, model: 'claude-x', keyEnv: 'K' } }, { K: KEY });
    await expect(extractor.extract(segment)).rejects.toThrow(/holds no JSON object.*the model stopped at its output limit/);
    // A base URL given with its /v1 is not doubled.
    expect(api.requests[0]!.url).toBe('/v1/messages');
  });
});

describe('the http backend, OpenAI-compatible chat completions', () => {
  it('posts the prompt to <base>/chat/completions with a bearer key and reads choices[0].message.content', async () => {
    const api = await serve((_req, res) => json(res, 200, { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: `Here it is: ${answer}` }, finish_reason: 'stop' }] }));
    const extractor = extractorFor({ harvestExtractor: 'http', harvestCommand: '', harvestHttp: { api: 'openai', url: `${api.base}/v1`, model: 'gpt-x', keyEnv: 'OPENAI_TEST_KEY' } }, { OPENAI_TEST_KEY: KEY });
    const calls: Array<{ tokens?: unknown }> = [];
    expect(await extractor.extract(segment, { onCall: (call) => calls.push(call) })).toMatchObject([{ text: 'Never push to main directly.' }]);
    // An API that reports no usage: the call is counted, its tokens unknown.
    expect(calls).toHaveLength(1);
    expect(calls[0]!.tokens).toBeUndefined();

    const [req] = api.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(req!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req!.headers['x-api-key']).toBeUndefined();
    const body = JSON.parse(req!.body) as { model: string; messages: Array<{ role: string; content: string }> };
    expect(Object.keys(body).sort()).toEqual(['messages', 'model']);
    expect(body.model).toBe('gpt-x');
    expect(body.messages.map((m) => m.role)).toEqual(['user']);
    expectCleanPrompt(body.messages[0]!.content);
  });

  it.each([
    [429, { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }, '429: Rate limit reached for requests'],
    [404, { error: { message: 'The model `gpt-x` does not exist', type: 'invalid_request_error' } }, '404: The model `gpt-x` does not exist'],
  ])('reports a %i with the API error message', async (status, body, said) => {
    const api = await serve((_req, res) => json(res, status, body));
    await expect(askHttpModel({ api: 'openai', url: `${api.base}/v1`, model: 'gpt-x', keyEnv: 'K' }, 'p', { env: { K: KEY } })).rejects.toThrow(`The OpenAI-compatible API at ${api.base} answered ${said}`);
  });

  it('reports a proxy page that is not JSON with its first words', async () => {
    const api = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad Gateway</body></html>');
    });
    await expect(askHttpModel({ api: 'openai', url: api.base, model: 'm', keyEnv: 'K' }, 'p', { env: { K: KEY } })).rejects.toThrow('answered 502: <html><body>Bad Gateway</body></html>');
  });

  it('refuses a 200 that is not its wire format', async () => {
    const api = await serve((_req, res) => json(res, 200, { result: 'hello' }));
    await expect(askHttpModel({ api: 'openai', url: api.base, model: 'm', keyEnv: 'K' }, 'p', { env: { K: KEY } })).rejects.toThrow('answered in a shape that is not its API\'s (no choices[0].message.content)');
  });
});

describe('the http backend, whatever the API', () => {
  it('names the missing environment variable and sends nothing', async () => {
    const api = await serve((_req, res) => json(res, 500, {}));
    const extractor = extractorFor({ harvestExtractor: 'http', harvestCommand: '', harvestHttp: { api: 'anthropic', url: api.base, model: 'm', keyEnv: 'CAIRN_UNSET_KEY' } }, { CAIRN_UNSET_KEY: '' });
    await expect(extractor.extract(segment)).rejects.toThrow('The environment variable CAIRN_UNSET_KEY is not set');
    expect(api.requests).toEqual([]);
  });

  it('stops waiting after the timeout', async () => {
    let held: http.ServerResponse | null = null;
    let arrived = (): void => {};
    const got = new Promise<void>((r) => (arrived = r));
    const api = await serve((_req, res) => {
      held = res;
      arrived();
    });
    const clock = manualClock();
    const asking = askHttpModel({ api: 'anthropic', url: api.base, model: 'm', keyEnv: 'K' }, 'p', { env: { K: KEY }, startTimer: clock.startTimer });
    await got;
    clock.advance(DEFAULT_HTTP_TIMEOUT_MS);
    await expect(asking).rejects.toThrow(`The Anthropic API at ${api.base} did not answer within 5 minutes; the request was stopped.`);
    expect(held).not.toBeNull();
    expect(clock.pending()).toBe(0);
  });

  it("aborts the request at a person's Cancel; a call already cancelled sends nothing", async () => {
    let closed = (): void => {};
    const gone = new Promise<void>((r) => (closed = r));
    let arrived = (): void => {};
    const got = new Promise<void>((r) => (arrived = r));
    const api = await serve((_req, res) => {
      res.on('close', () => closed());
      arrived();
    });
    const clock = manualClock();
    const cancel = new AbortController();
    const model = { api: 'openai', url: api.base, model: 'm', keyEnv: 'K' } as const;
    const asking = askHttpModel(model, 'p', { env: { K: KEY }, startTimer: clock.startTimer, signal: cancel.signal });
    await got;
    cancel.abort();
    await expect(asking).rejects.toThrow(expect.objectContaining({ name: 'CancelledError', message: `Cancelled: the request to The OpenAI-compatible API at ${api.base} was stopped before it answered.` }) as Error);
    await gone;
    expect(clock.pending()).toBe(0);
    await expect(askHttpModel(model, 'p', { env: { K: KEY }, signal: cancel.signal })).rejects.toThrow('Cancelled: nothing was sent');
    expect(api.requests).toHaveLength(1);
  });

  it('follows no redirect: the key never travels to another address', async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, {}));
    const api = await serve((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.base}/v1/messages` });
      res.end();
    });
    await expect(askHttpModel({ api: 'anthropic', url: api.base, model: 'm', keyEnv: 'K' }, 'p', { env: { K: KEY } })).rejects.toThrow('answered 307 (a redirect, not followed');
    expect(elsewhere.requests).toEqual([]);
  });

  it('says when the server cannot be reached', async () => {
    const gone = await serve(() => {});
    const server = servers.pop()!;
    await new Promise((r) => server.close(r));
    await expect(askHttpModel({ api: 'openai', url: gone.base, model: 'm', keyEnv: 'K' }, 'p', { env: { K: KEY } })).rejects.toThrow(`The OpenAI-compatible API at ${gone.base} could not be reached: ECONNREFUSED`);
  });

  it('builds each endpoint from its base URL', () => {
    expect(endpointOf({ api: 'anthropic', url: 'https://api.anthropic.com' }).href).toBe('https://api.anthropic.com/v1/messages');
    expect(endpointOf({ api: 'anthropic', url: 'https://api.anthropic.com/v1/' }).href).toBe('https://api.anthropic.com/v1/messages');
    expect(endpointOf({ api: 'openai', url: 'https://api.openai.com/v1' }).href).toBe('https://api.openai.com/v1/chat/completions');
    expect(endpointOf({ api: 'openai', url: 'http://localhost:11434/v1/' }).href).toBe('http://localhost:11434/v1/chat/completions');
  });
});
