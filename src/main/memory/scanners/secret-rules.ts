/**
 * Secret rules: provider tokens and keys, private key blocks, JWTs, credentials in URLs, literal
 * values assigned to password/token/key names, and high-entropy blobs.
 *
 * The provider patterns follow maintained rule sets:
 *  - secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend 13.0.x: rules
 *    github, gitlab, slack, aws, openai, anthropic, stripe, privatekey, database-connection-string,
 *    basicauth, npm, huggingface, sendgrid, docker, hashicorp-vault, groq, shopify, linear);
 *  - gitleaks' default config (config/gitleaks.toml: aws-access-token, gcp-api-key, jwt, gitlab-*,
 *    slack-*, stripe-access-token, pypi-upload-token, digitalocean-*, twilio-api-key, new-relic-*,
 *    azure storage keys, generic-api-key with its entropy gate).
 * secretlint itself is not used at run time: its lintSource API is asynchronous (a promise per
 * scan), costs about 0.4 ms for a 10 KiB note here (the budget is 0.15 ms) and requires Node 22.
 * Added beyond both: Google OAuth client secrets and access tokens (GOCSPX-, ya29.), GCP
 * service-account JSON key ids, credentials in any URL scheme (redis://:pass@, amqp://,
 * https://user:token@), bearer and basic Authorization values, env-style *_KEY names, "the password
 * is ..." and "root pw is ..." in prose, a line of a PostgreSQL password file (.pgpass), an entry
 * of a .netrc file (machine, login, password; on one line or several), a UUID
 * named a Heroku key (gitleaks heroku-api-key, reported as password-assignment), and
 * placeholder/reference filtering so that notes such as
 * `password: <your-password>`, `API_KEY=xxxx` or `token: ${GITHUB_TOKEN}` pass.
 *
 * How a note is scanned without a whole-note regex alternation (which alone would cost most of the
 * budget): long token-like runs are found by sampling (scanRuns), and every other rule starts from
 * a short literal found with indexOf (BEGIN, ://, pass, key, ...) and confirms with a sticky regex.
 */
import { WINDOW, eachIndex, matchAt, type RawFinding, type RuleInfo, type ScanContext } from './rule-types';
import {
  DIGIT,
  LOWER,
  SYMBOL,
  UPPER,
  charClasses,
  classCount,
  classSwitchRatio,
  looksLikePlaceholder,
  shannonEntropy,
  wordyFraction,
} from './text-stats';

export const SECRET_RULES: Readonly<Record<string, RuleInfo>> = {
  'private-key': { kind: 'secret', what: 'a private key block' },
  'github-token': { kind: 'secret', what: 'a GitHub token' },
  'gitlab-token': { kind: 'secret', what: 'a GitLab token' },
  'slack-token': { kind: 'secret', what: 'a Slack token' },
  'slack-webhook': { kind: 'secret', what: 'a Slack webhook URL' },
  'aws-access-key-id': { kind: 'secret', what: 'an AWS access key ID' },
  'aws-secret-access-key': { kind: 'secret', what: 'an AWS secret access key' },
  'google-api-key': { kind: 'secret', what: 'a Google API key' },
  'google-oauth-secret': { kind: 'secret', what: 'a Google OAuth client secret or access token' },
  'gcp-service-account-key': { kind: 'secret', what: 'a GCP service-account key' },
  'stripe-key': { kind: 'secret', what: 'a Stripe secret key' },
  'openai-key': { kind: 'secret', what: 'an OpenAI API key' },
  'anthropic-key': { kind: 'secret', what: 'an Anthropic API key' },
  'npm-token': { kind: 'secret', what: 'an npm access token' },
  'huggingface-token': { kind: 'secret', what: 'a Hugging Face token' },
  'sendgrid-key': { kind: 'secret', what: 'a SendGrid API key' },
  'docker-token': { kind: 'secret', what: 'a Docker Hub access token' },
  'vault-token': { kind: 'secret', what: 'a HashiCorp Vault token' },
  'groq-key': { kind: 'secret', what: 'a Groq API key' },
  'shopify-token': { kind: 'secret', what: 'a Shopify access token' },
  'pypi-token': { kind: 'secret', what: 'a PyPI upload token' },
  'digitalocean-token': { kind: 'secret', what: 'a DigitalOcean token' },
  'linear-key': { kind: 'secret', what: 'a Linear API key' },
  'twilio-key': { kind: 'secret', what: 'a Twilio API key' },
  'newrelic-key': { kind: 'secret', what: 'a New Relic key' },
  'azure-storage-key': { kind: 'secret', what: 'an Azure storage account key' },
  jwt: { kind: 'secret', what: 'a JSON Web Token' },
  'connection-string': { kind: 'secret', what: 'a connection string with a password' },
  'url-credentials': { kind: 'secret', what: 'a URL with embedded credentials' },
  'authorization-header': { kind: 'secret', what: 'a bearer or basic authorization credential' },
  'password-assignment': { kind: 'secret', what: 'a password or token assigned a literal value' },
  'netrc-credentials': { kind: 'secret', what: 'a password in a .netrc entry (machine, login, password)' },
  'high-entropy': { kind: 'secret', what: 'a high-entropy string, likely a key or token' },
};

// ---- provider tokens: one alternation, one pass ----

interface TokenRule {
  readonly id: string;
  /** Pattern without capturing groups. */
  readonly source: string;
  /** Length of the literal prefix to skip before the placeholder check, or a pattern for it. */
  readonly prefix: number | RegExp;
  /** Extra check on the whole match. */
  readonly check?: (m: string) => boolean;
}

const digitCount = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
};

const TOKEN_RULES: readonly TokenRule[] = [
  // secretlint github; gitleaks github-pat / github-fine-grained-pat / github-oauth / github-app-token.
  { id: 'github-token', source: String.raw`gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])|github_pat_[A-Za-z0-9_]{82,}(?![A-Za-z0-9_])`, prefix: /^(?:gh[pousr]_|github_pat_)/ },
  // secretlint gitlab; gitleaks gitlab-pat, gitlab-ptt, gitlab-deploy-token, gitlab-runner-*, gitlab-cicd-job-token.
  { id: 'gitlab-token', source: String.raw`gl(?:pat|ptt|dt|rt|cbt|soat|ffct|imt|agent|oas|ft)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|GR1348941[A-Za-z0-9_-]{20,}`, prefix: /^(?:gl[a-z]+-|GR1348941)/ },
  // secretlint slack; gitleaks slack-bot-token / slack-user-token / slack-app-token / slack-config-*.
  {
    id: 'slack-token',
    source: String.raw`(?:xoxe\.)?xox[abposre]-[0-9A-Za-z-]{20,}|xapp-\d-[A-Za-z0-9-]{20,}`,
    prefix: /^(?:xoxe\.)?x(?:ox[a-z]|app)-/,
    check: (m) => digitCount(m) >= 8,
  },
  { id: 'slack-webhook', source: String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}`, prefix: /^hooks\.slack\.com\/[a-z]+\// },
  // gitleaks aws-access-token (secretlint aws uses the same prefixes with [A-Z0-9]{16}).
  { id: 'aws-access-key-id', source: String.raw`(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, prefix: 4 },
  // gitleaks gcp-api-key.
  { id: 'google-api-key', source: String.raw`AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`, prefix: 4 },
  { id: 'google-oauth-secret', source: String.raw`GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])|ya29\.[0-9A-Za-z_-]{30,}`, prefix: /^(?:GOCSPX-|ya29\.)/ },
  // secretlint stripe; gitleaks stripe-access-token; plus webhook signing secrets.
  { id: 'stripe-key', source: String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,247}(?![A-Za-z0-9])|whsec_[A-Za-z0-9+/]{32,}`, prefix: /^(?:[sr]k_[a-z]+_|whsec_)/ },
  // secretlint anthropic (sk-ant-api03-...AA) widened to other key kinds (admin01, oat01).
  { id: 'anthropic-key', source: String.raw`sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])`, prefix: /^sk-ant-[a-z]+\d+-/ },
  // secretlint openai (project, service-account and admin keys, legacy T3BlbkFJ keys) widened to
  // any sk- key of 32+ alphanumerics.
  {
    id: 'openai-key',
    source: String.raw`sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])|sk-[A-Za-z0-9]{32,}(?![A-Za-z0-9_-])`,
    prefix: /^sk-(?:[a-zA-Z]+-)?/,
  },
  // gitleaks jwt.
  { id: 'jwt', source: String.raw`ey[A-Za-z0-9_-]{14,}\.ey[A-Za-z0-9_-]{14,}\.[A-Za-z0-9_-]*`, prefix: 0 },
  { id: 'npm-token', source: String.raw`npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])`, prefix: 4 },
  { id: 'huggingface-token', source: String.raw`hf_[A-Za-z]{34}(?![A-Za-z])`, prefix: 3 },
  { id: 'sendgrid-key', source: String.raw`SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{24,64}`, prefix: 3 },
  { id: 'docker-token', source: String.raw`dckr_pat_[A-Za-z0-9_-]{27}(?![A-Za-z0-9_-])`, prefix: 9 },
  { id: 'vault-token', source: String.raw`hv[sbr]\.[A-Za-z0-9_-]{90,}`, prefix: 4 },
  { id: 'groq-key', source: String.raw`gsk_[A-Za-z0-9]{52}(?![A-Za-z0-9])`, prefix: 4 },
  { id: 'shopify-token', source: String.raw`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,64}(?![A-Za-z0-9])`, prefix: 6 },
  { id: 'pypi-token', source: String.raw`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, prefix: 19 },
  { id: 'digitalocean-token', source: String.raw`do[opr]_v1_[a-f0-9]{64}(?![a-f0-9])`, prefix: 7 },
  { id: 'linear-key', source: String.raw`lin_api_[A-Za-z0-9_]{32,128}(?![A-Za-z0-9_])`, prefix: 8 },
  // gitleaks twilio-api-key, new-relic-user-api-key / new-relic-license-key (ingest).
  { id: 'twilio-key', source: String.raw`SK[0-9a-fA-F]{32}(?![A-Za-z0-9])`, prefix: 2 },
  { id: 'newrelic-key', source: String.raw`NRAK-[A-Z0-9]{27}(?![A-Za-z0-9])|[a-f0-9]{36}NRAL(?![A-Za-z0-9])`, prefix: /^(?:NRAK-)?/ },
  { id: 'azure-storage-key', source: String.raw`AccountKey=[A-Za-z0-9+/]{86}==`, prefix: 11 },
];

function countGroups(source: string): number {
  return (new RegExp(`${source}|`).exec('')?.length ?? 1) - 1;
}

for (const r of TOKEN_RULES) {
  if (countGroups(r.source) !== 0) throw new Error(`secret rule ${r.id} must not capture`);
}

// Each rule is one capturing group, so the index of the defined group names the rule. Only run
// over candidate runs (see scanRuns), never over the whole note.
const TOKEN_RE = new RegExp(`(?<![A-Za-z0-9])(?:${TOKEN_RULES.map((r) => `(${r.source})`).join('|')})`, 'g');

function prefixLength(rule: TokenRule, m: string): number {
  if (typeof rule.prefix === 'number') return rule.prefix;
  return rule.prefix.exec(m)?.[0].length ?? 0;
}

function pushToken(out: RawFinding[], rule: TokenRule, value: string, start: number): void {
  if (looksLikePlaceholder(value, prefixLength(rule, value))) return;
  if (rule.check && !rule.check(value)) return;
  out.push({ kind: 'secret', rule: rule.id, start, end: start + value.length });
}

// ---- candidate runs: tokens, JWTs, authorization values and high-entropy blobs ----

/*
 * Every provider token the run rules look for, and every blob, is a run of at least MIN_RUN
 * characters from RUN_CHARS. Sampling every MIN_RUN-th character finds every such run (a run that
 * long always covers a sample) while touching a typical note's prose about once per word; the
 * regexes then run over the few candidate runs only. Shorter tokens (AWS key ids, GitLab tokens)
 * are found by their literal prefixes instead.
 */
const MIN_RUN = 32;
const RUN_CHARS = new Uint8Array(128);
const BLOB_CHARS = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') {
  RUN_CHARS[ch.charCodeAt(0)] = 1;
  BLOB_CHARS[ch.charCodeAt(0)] = 1;
}
RUN_CHARS['.'.charCodeAt(0)] = 1;
RUN_CHARS['='.charCodeAt(0)] = 1;

function inRun(c: number): boolean {
  return c < 128 && RUN_CHARS[c] === 1;
}

function scanRuns(ctx: ScanContext, found: RawFinding[]): void {
  const { text } = ctx;
  const n = text.length;
  for (let i = MIN_RUN - 1; i < n; i += MIN_RUN) {
    if (!inRun(text.charCodeAt(i))) continue;
    let b = i + 1;
    while (b < n && inRun(text.charCodeAt(b))) b++;
    let a = i;
    while (a > 0 && inRun(text.charCodeAt(a - 1))) a--;
    if (b - a >= MIN_RUN) checkRun(ctx, a, b, found);
    // Continue with the first sample at or after b.
    i += Math.floor((b - 1 - i) / MIN_RUN) * MIN_RUN;
  }
}

const KEY_ID_BEFORE_RE = /"private_key_id"\s{0,8}:\s{0,8}"$/;
const HEX40_RE = /^[a-f0-9]{40}$/;

function checkRun(ctx: ScanContext, a: number, b: number, found: RawFinding[]): void {
  const { text } = ctx;
  const run = text.slice(a, b);
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(run); m !== null; m = TOKEN_RE.exec(run)) {
    let k = 1;
    while (m[k] === undefined) k++;
    pushToken(found, TOKEN_RULES[k - 1]!, m[0], a + m.index);
  }
  if (HEX40_RE.test(run) && KEY_ID_BEFORE_RE.test(text.slice(Math.max(0, a - 24), a))) {
    found.push({ kind: 'secret', rule: 'gcp-service-account-key', start: a, end: b });
  }
  // Blobs: maximal sub-runs without '.' and '=', plus trailing '=' padding.
  let s = 0;
  while (s < run.length) {
    while (s < run.length && !isBlobChar(run.charCodeAt(s))) s++;
    let e = s;
    while (e < run.length && isBlobChar(run.charCodeAt(e))) e++;
    if (e - s >= 32) checkBlob(ctx, run, s, e, a, found);
    s = e;
  }
}

const WORD_BREAK_RE = /[\s"'`<>()[\]{}|]/;

/** Whether the run starting at a is part of a URL or a data: URI. */
function isInUrl(text: string, a: number): boolean {
  let w = a;
  while (w > 0 && a - w < 2048 && !WORD_BREAK_RE.test(text[w - 1]!)) w--;
  const word = text.slice(w, a + 3);
  return word.includes('://') || word.startsWith('data:');
}

function isBlobChar(c: number): boolean {
  return c < 128 && BLOB_CHARS[c] === 1;
}

// ---- short prefixed tokens that a run sample can miss ----

const AWS_KEY_ID_RE = /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/y;
const GITLAB_RE = new RegExp(`(?<![A-Za-z0-9])(?:${TOKEN_RULES.find((r) => r.id === 'gitlab-token')!.source})`, 'y');
const AWS_RULE = TOKEN_RULES.find((r) => r.id === 'aws-access-key-id')!;
const GITLAB_RULE = TOKEN_RULES.find((r) => r.id === 'gitlab-token')!;

function scanShortTokens(ctx: ScanContext, found: RawFinding[]): void {
  const { text } = ctx;
  // AKIA, ASIA, ABIA, ACCA, A3T: one scan for the rare capital A, then the next letter.
  eachIndex(text, 'A', (p) => {
    const c = text.charCodeAt(p + 1);
    if (c !== 75 && c !== 83 && c !== 66 && c !== 67 && c !== 51) return;
    const m = matchAt(AWS_KEY_ID_RE, text, p);
    if (m) pushToken(found, AWS_RULE, m[0], p);
  });
  const gitlab = (p: number): void => {
    const m = matchAt(GITLAB_RE, text, p);
    if (m) pushToken(found, GITLAB_RULE, m[0], p);
  };
  eachIndex(text, 'gl', gitlab);
  eachIndex(text, 'GR1348941', gitlab);
}

// ---- Authorization header values ----

const AUTH_RE = /(?:bearer|basic)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)/iy;

function scanAuthorization(ctx: ScanContext, found: RawFinding[]): void {
  const { text, lower } = ctx;
  const check = (p: number): void => {
    const m = matchAt(AUTH_RE, text, p);
    if (m !== null && looksLikeToken(m[1]!.replace(/=+$/, ''))) found.push({ kind: 'secret', rule: 'authorization-header', start: p, end: p + m[0].length });
  };
  eachIndex(lower, 'bearer', check);
  eachIndex(lower, 'basic', check);
}

// ---- private key blocks (secretlint privatekey, gitleaks private-key) ----

const PRIVATE_KEY_RE = /-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;
// After the header: blank space (also JSON-escaped newlines), optional armor headers
// (Proc-Type:, Version:), then the first 40 characters of base64 body.
const KEY_BODY_RE = /(?:[ \t\r\n]|\\[rn])*(?:[A-Za-z-]+:[^\n\\]*(?:\r?\n|\\n)(?:[ \t\r\n]|\\[rn])*)*([A-Za-z0-9+/=]{40})/y;
const PLACEHOLDER_BODY_RE = /x{4}|X{4}|\.{3}|example|redacted/i;

function scanPrivateKeys(ctx: ScanContext, found: RawFinding[]): void {
  const { text } = ctx;
  eachIndex(text, 'BEGIN', (p) => {
    const m = matchAt(PRIVATE_KEY_RE, text, p - 5);
    if (m === null) return;
    const body = matchAt(KEY_BODY_RE, text, p - 5 + m[0].length);
    if (body === null || PLACEHOLDER_BODY_RE.test(body[1]!)) return;
    // The finding covers the whole block, so that its body lines are not reported again as blobs.
    const bodyEnd = KEY_BODY_RE.lastIndex;
    const ends = (ctx.memo.pemEnds ??= allIndexes(text, '-----END'));
    const end = ends.find((e) => e >= bodyEnd);
    found.push({ kind: 'secret', rule: 'private-key', start: p - 5, end: end !== undefined && end - bodyEnd < 65536 ? end + 8 : bodyEnd });
  });
}

// ---- credentials inside URLs (secretlint database-connection-string and basicauth) ----

const URL_CRED_RE = /:\/\/([^\s:/@?#]{0,128}):([^\s@/?#]{1,256})@(?=[^\s@/])/y;
const WEB_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps', 'sftp', 'ssh', 'git', 'git+ssh', 'git+https', 'ws', 'wss', 'svn', 'svn+ssh', 'webdav', 'dav']);
const METAVARIABLE_RE = /^[A-Z][A-Z0-9_]*$/;
const PLACEHOLDER_PASSWORDS = new Set(['password', 'passwd', 'pwd', 'secret', 'pw', 'changeme', 'yourpassword', 'your-password', 'your_password', 'mypassword', 'my-password', 'xxx', 'redacted', 'hidden', 'masked']);

// Whole-value placeholders: <password>, ${PASS}, $PASS, {{pass}}, {pass}, %s, %(pw)s, %PASS%, [pw], (pw), ***.
const WRAPPED_PLACEHOLDER_RE = /^(?:<[^>]*>|\$\{[^}]*\}|\$\w+|\{\{[^}]*\}\}|\{[^}]*\}|%s|%\(\w+\)s|%\w+%|\[[^\]]*\]|\([^)]*\)|\*+)$/;

function isPlaceholderPassword(pw: string): boolean {
  if (WRAPPED_PLACEHOLDER_RE.test(pw) || METAVARIABLE_RE.test(pw)) return true;
  if (PLACEHOLDER_PASSWORDS.has(pw.toLowerCase())) return true;
  if (/^(?:x+|\.+|…)$/i.test(pw) || pw.includes('...') || pw.includes('…')) return true;
  return /your[_-]?pass|example/i.test(pw);
}

function schemeBefore(text: string, at: number): string {
  let i = at;
  while (i > 0 && at - i < 30) {
    const c = text.charCodeAt(i - 1);
    const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 43 || c === 46 || c === 45 || c === 58;
    if (!ok) break;
    i--;
  }
  return text.slice(i, at).toLowerCase();
}

function scanUrlCredentials(ctx: ScanContext, found: RawFinding[]): void {
  const { text } = ctx;
  eachIndex(text, '://', (p) => {
    const m = matchAt(URL_CRED_RE, text, p);
    if (m === null) return;
    const scheme = schemeBefore(text, p);
    if (scheme === '' || isPlaceholderPassword(m[2]!)) return;
    const rule = WEB_SCHEMES.has(scheme) ? 'url-credentials' : 'connection-string';
    // Web URLs in docs use short stand-ins (https://abc:xyz@host); a real one holds a password or a
    // token. Database URLs are flagged with any non-placeholder password, as the issue asks.
    if (rule === 'url-credentials' && !looksLikePassword(m[2]!)) return;
    found.push({ kind: 'secret', rule, start: p - scheme.length, end: p + m[0].length });
  });
}

// ---- literal values assigned to password / token / key names (gitleaks generic-api-key) ----

// Run at a keyword found by its anchor; the full key name is read backwards from there.
// Separators: = : => := and, in prose, "is" / "was" (the admin password is Summer2024!, root pw is
// ...). `heroku` is a keyword only for a UUID (gitleaks heroku-api-key: Heroku's API keys are bare
// UUIDs, so the name beside one is all that marks it).
const ASSIGN_RE = /(?:pass(?:word|wd|phrase|code)?|pwd?|secret|token|key|cred(?:ential)?s?|heroku)[\w.-]{0,30}["'`*\]]{0,3}[ \t]{0,5}(?:=>|:=|[:=]|(?<=[ \t])(?:is|was)(?=[ \t]))[ \t]{0,5}["'`*]{0,3}([^\s"'`,;&]{1,300})/iy;
const PASSWORD_KEY_RE = /pass(?:word|wd|phrase|code)?(?![a-z])|pwd?(?![a-z])/;
const HEROKU_KEY_RE = /heroku/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN_KEY_RE = /secret|token|api_?key|apikey|access_?key|private_?key|credential|(?:auth|signing|encryption|master)_?key/;
// Keys that describe a secret rather than hold one: DB_PASSWORD_FILE, token_url, secret_name.
const DESCRIPTIVE_KEY_RE = /(?:name|names|id|ids|path|file|files|dir|env|var|variable|ref|arn|url|uri|type|count|length|len|ttl|expiry|expires|expiration|header|prefix|policy|rotation|format|hint|field|label|hash|hashed|salt|digest|limit|timeout|enabled|required|scope|scopes|usage|kind|location|store|storage|manager|provider|source|endpoint|host|port|user|username|login|email|strength|min|max|chars|regex|pattern|reset|expired|budget|tokens|estimate|counter)$/;
// Environment-variable style names ending in KEY hold keys (LICENSE_KEY, STRIPE_KEY), except these.
const ENV_KEY_NAME_RE = /^[A-Z][A-Z0-9_]*KEY$/;
const NOT_SECRET_KEY_RE = /PUBLIC|PUB_|PRIMARY|FOREIGN|SORT|PARTITION|CACHE|IDEMPOTENCY|ROUTING|HOTKEY|MONKEY|_ID_KEY/;
const AWS_SECRET_KEY_RE = /secret_?access_?key|aws_?secret/;
const AWS_SECRET_VALUE_RE = /^[A-Za-z0-9/+]{40}$/;
const REFERENCE_RE = /process\.env|os\.environ|getenv|env\(|env\[|secrets\.|vars\.|op:\/\/|vault:|arn:|ssm:|1password|keychain|bitwarden|lastpass|keepass|doppler|\$\{|\{\{|\$\(|[()[\]]/i;
const NON_VALUES = new Set(['true', 'false', 'null', 'nil', 'none', 'undefined', 'string', 'str', 'number', 'int', 'bytes', 'boolean', 'bool', 'optional', 'required', 'hidden', 'masked', 'redacted', 'empty', 'unset', 'n/a', 'na', 'tbd', 'todo', 'see', 'ask', 'same', 'env', 'secret', 'password', 'passwd', 'token', 'changeme', 'default', 'any', 'object', 'unknown']);
const DOTTED_IDENTIFIER_RE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const ENV_NAME_RE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]+$/;
const TRAILING_PUNCT_RE = /[.)\]}>:!?]+$/;

function keyStart(text: string, at: number): number {
  let i = at;
  while (i > 0 && at - i < 60) {
    const c = text.charCodeAt(i - 1);
    const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46;
    if (!ok) break;
    i--;
  }
  return i;
}

// YAML tags, anchors and aliases (!Ref Name, !secret db, &anchor, *alias) name a value elsewhere.
const YAML_INDIRECTION_RE = /^[!&*][A-Za-z_][\w.-]*$/;

function isReferenceOrPlaceholder(value: string): boolean {
  const c = value.charCodeAt(0);
  // $ % < { [ ( @ / ~ : start a reference, a placeholder, a path or a type.
  if (c === 36 || c === 37 || c === 60 || c === 123 || c === 91 || c === 40 || c === 64 || c === 47 || c === 126 || c === 58) return true;
  if (YAML_INDIRECTION_RE.test(value) || /^\*+$/.test(value)) return true;
  if (value.startsWith('./') || value.startsWith('../')) return true;
  if (NON_VALUES.has(value.toLowerCase())) return true;
  if (REFERENCE_RE.test(value)) return true;
  // config.github.token is a reference; s.PwnwNXssL46DZ3pE6bFZb8fY (a Vault token) is not.
  if ((DOTTED_IDENTIFIER_RE.test(value) && wordyFraction(value) >= 0.6) || ENV_NAME_RE.test(value)) return true;
  return looksLikePlaceholder(value);
}

/** Slugs and names (prod-db-password-2024, my_api_key): every segment is a plain word or number. */
function isSlug(value: string): boolean {
  const parts = value.split(/[-_./:]/);
  if (parts.length < 2) return false;
  for (const p of parts) {
    if (p === '') continue;
    if (/^\d+$/.test(p) || /^[A-Za-z][a-z]*$/.test(p) || /^[A-Z]+$/.test(p)) continue;
    return false;
  }
  return true;
}

/** A value that reads like a token: long, letters and digits, not a name or a placeholder. */
function looksLikeToken(value: string): boolean {
  if (value.length < 16) return false;
  if (isReferenceOrPlaceholder(value) || isSlug(value)) return false;
  const classes = charClasses(value);
  if ((classes & DIGIT) === 0 || (classes & (LOWER | UPPER)) === 0) return false;
  return shannonEntropy(value) >= 3;
}

/** Character classes, counting an initial capital as lower case and not counting _ - . as symbols. */
function passwordClasses(value: string): number {
  let set = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 97 && c <= 122) set |= LOWER;
    else if (c >= 65 && c <= 90) set |= i === 0 ? LOWER : UPPER;
    else if (c >= 48 && c <= 57) set |= DIGIT;
    else if (c !== 95 && c !== 45 && c !== 46) set |= SYMBOL;
  }
  return classCount(set);
}

function looksLikePassword(value: string): boolean {
  if (value.length < 6) return false;
  if (isReferenceOrPlaceholder(value) || isSlug(value)) return false;
  return passwordClasses(value) >= 2 || value.length >= 20;
}

/** Checks the assignment whose keyword starts at `at`; returns where the examined text ends. */
function checkAssignment(text: string, at: number, found: RawFinding[]): number {
  const m = matchAt(ASSIGN_RE, text, at);
  if (m === null) return at;
  const start = keyStart(text, at);
  const keyEnd = at + /^[\w.-]+/.exec(m[0])![0].length;
  const rawKey = text.slice(start, keyEnd);
  const key = rawKey.toLowerCase().replace(/[-.]/g, '_');
  const end = at + m[0].length;
  if (DESCRIPTIVE_KEY_RE.test(key)) return end;
  let value = m[1]!;
  const stripped = value.replace(TRAILING_PUNCT_RE, '');
  if (stripped !== '' && !stripped.startsWith('<')) value = stripped;
  if (AWS_SECRET_KEY_RE.test(key) && AWS_SECRET_VALUE_RE.test(value) && !isReferenceOrPlaceholder(value)) {
    found.push({ kind: 'secret', rule: 'aws-secret-access-key', start, end });
    return end;
  }
  if (HEROKU_KEY_RE.test(key) && UUID_RE.test(value) && !looksLikePlaceholder(value)) {
    found.push({ kind: 'secret', rule: 'password-assignment', start, end });
    return end;
  }
  const isPassword = PASSWORD_KEY_RE.test(key);
  const isEnvKey = ENV_KEY_NAME_RE.test(rawKey) && !NOT_SECRET_KEY_RE.test(rawKey);
  if (!isPassword && !isEnvKey && !TOKEN_KEY_RE.test(key)) return end;
  if (isPassword ? looksLikePassword(value) : looksLikeToken(value)) {
    found.push({ kind: 'secret', rule: 'password-assignment', start, end });
  }
  return end;
}

function scanAssignments(ctx: ScanContext, found: RawFinding[]): void {
  const { text, lower } = ctx;
  // Keyword starts from all anchors, in text order, so that a keyword inside an assignment already
  // examined (password=token:secret=...) is not examined again.
  const starts: number[] = [];
  for (const p of passesOf(ctx)) starts.push(p);
  eachIndex(lower, 'pw', (p) => starts.push(p));
  eachIndex(lower, 'heroku', (p) => starts.push(p));
  eachIndex(lower, 'key', (p) => starts.push(p));
  eachIndex(lower, 'ken', (p) => {
    if (lower.startsWith('to', p - 2)) starts.push(p - 2);
  });
  eachIndex(lower, 'cre', (p) => {
    if (lower.startsWith('se', p - 2)) starts.push(p - 2);
    else if (lower.startsWith('cred', p)) starts.push(p);
  });
  if (starts.length === 0) return;
  starts.sort((a, b) => a - b);
  let covered = -1;
  for (const p of starts) {
    if (p < covered) continue;
    covered = Math.max(covered, checkAssignment(text, p, found));
  }
}

// ---- an entry of a .netrc file (machine HOST login USER password PASS, tokens split by any whitespace) ----

// An entry starts at `machine <host>` or `default`, a token of its own (lower case, as netrc reads
// it); its pairs follow, in any order, on one line or several. The keywords must follow each other
// with only whitespace between, so prose ("the machine learning login page") is no entry.
const NETRC_ENTRY_RE = /(?<![\w.@/-])(?:machine[ \t\r\n]+[A-Za-z0-9_][\w.:-]*|default)(?=[ \t\r\n])/y;
const NETRC_PAIR_RE = /[ \t\r\n]+(login|password|account|port|protocol)[ \t\r\n]+([^\s]{1,300})/y;
// What follows `password` in prose, not a password.
const NETRC_PROSE = new Set(['is', 'was', 'are', 'the', 'a', 'an', 'in', 'for', 'from', 'of', 'here', 'there', 'and', 'or', 'with', 'goes', 'lives', 'stored', 'kept', 'field', 'line', 'entry']);
const NETRC_TRIM_RE = /^[`'"]+|[`'".,;)\]}>!?]+$/g;
// `password <value>` alone on its line (indented, quoted or listed), other pairs of the entry after it at most.
const NETRC_INDENT_RE = /^[ \t>*+-]*$/;
const NETRC_LINE_RE = /password[ \t]+([^\s]{1,300})(?:[ \t]+(?:login|account|port)[ \t]+[^\s]{1,300}){0,3}[ \t]*(?=\r?\n|$)/y;

/** Every `pass` in the lower-cased note, found once for the rules that start there. */
function passesOf(ctx: ScanContext): number[] {
  if (ctx.memo.passes === undefined) {
    const out: number[] = [];
    eachIndex(ctx.lower, 'pass', (p) => out.push(p));
    ctx.memo.passes = out;
  }
  return ctx.memo.passes;
}

function scanNetrc(ctx: ScanContext, found: RawFinding[]): void {
  const { text } = ctx;
  // netrc's keyword is `password`, in lower case: a note without one holds no entry.
  const keywords = passesOf(ctx).filter((p) => text.startsWith('password', p));
  if (keywords.length === 0) return;
  const check = (p: number): void => {
    const entry = matchAt(NETRC_ENTRY_RE, text, p);
    if (entry === null) return;
    let at = p + entry[0].length;
    let login = false;
    let password: { start: number; end: number; value: string } | null = null;
    for (let n = 0; n < 8; n++) {
      const pair = matchAt(NETRC_PAIR_RE, text, at);
      if (pair === null) break;
      if (pair[1] === 'login') login = true;
      if (pair[1] === 'password' && password === null) {
        const start = at + pair[0].indexOf('password');
        password = { start, end: at + pair[0].length, value: pair[2]!.replace(NETRC_TRIM_RE, '') };
      }
      at += pair[0].length;
    }
    if (password === null) return;
    const { value } = password;
    if (value === '' || NETRC_PROSE.has(value.toLowerCase()) || isReferenceOrPlaceholder(value)) return;
    // With a login the shape is the file's: any literal is a password. Without one, only a value
    // that reads like a password or a token.
    if (login || looksLikePassword(value) || looksLikeToken(value)) found.push({ kind: 'secret', rule: 'netrc-credentials', start: password.start, end: password.end });
  };
  eachIndex(text, 'machine', check);
  eachIndex(text, 'default', check);
  // A `password` line of an entry written over several lines, seen without its `machine` line.
  for (const p of keywords) {
    const lineStart = ctx.lines.at(p).start;
    if (p - lineStart > 16 || !NETRC_INDENT_RE.test(text.slice(lineStart, p))) continue;
    const line = matchAt(NETRC_LINE_RE, text, p);
    if (line === null) continue;
    const value = line[1]!.replace(NETRC_TRIM_RE, '');
    if (value === '' || NETRC_PROSE.has(value.toLowerCase()) || isReferenceOrPlaceholder(value) || !looksLikePassword(value)) continue;
    found.push({ kind: 'secret', rule: 'netrc-credentials', start: p, end: p + line[0].length });
  }
}

// ---- a line of a PostgreSQL password file (.pgpass: host:port:database:user:password) ----

// Exactly five colon-separated fields (a colon in the password is written \:), the port a number
// or `*`; the database and the user are `*` or names as PostgreSQL writes them unquoted, so never
// a number (12:30:45:... is a time, fe80:0:0:... an address, "T14:30:41.772Z","uuid":... a JSON
// timestamp), and nothing but whitespace may follow the password (a sixth field makes it something else).
const PGPASS_RE = /(?:\*|[A-Za-z0-9][\w.-]*):(?:\*|\d{1,5}):(?:\*|[A-Za-z_][\w$.-]*):(?:\*|[A-Za-z_][\w$.-]*):((?:\\:|[^\s:\\])+)(?=\s|$)/y;
const PGPASS_TRAILING_RE = /[.,;)\]}>!?]+$/;
const PGPASS_PORT_RE = /:(?:\d{1,5}|\*):/g;

/** Index where the host name (or `*`) that ends at `colon` begins, or -1 when something glues it to what comes before. */
function pgpassHostStart(text: string, colon: number): number {
  const i = text.charCodeAt(colon - 1) === 42 ? colon - 1 : keyStart(text, colon);
  if (i === colon) return -1;
  // After a path, a URL or another field (src/a.ts:12:..., user@host:..., a:b:c:...), it is no host.
  const before = i > 0 ? text.charCodeAt(i - 1) : 0;
  return before === 47 || before === 58 || before === 64 || before === 92 ? -1 : i;
}

function scanPgpass(ctx: ScanContext, found: RawFinding[]): void {
  const { text } = ctx;
  // The colons around the port, found in one regex pass: a time (12:30) or a host and port
  // (host:8080) is passed over without a call per colon.
  PGPASS_PORT_RE.lastIndex = 0;
  for (let m = PGPASS_PORT_RE.exec(text); m !== null; m = PGPASS_PORT_RE.exec(text)) {
    const p = m.index;
    PGPASS_PORT_RE.lastIndex = p + 1;
    const start = pgpassHostStart(text, p);
    if (start === -1) continue;
    const line = matchAt(PGPASS_RE, text, start);
    if (line === null) continue;
    const end = start + line[0].length;
    PGPASS_PORT_RE.lastIndex = end;
    const password = line[1]!.replace(PGPASS_TRAILING_RE, '');
    if (password !== '' && looksLikePassword(password)) found.push({ kind: 'secret', rule: 'password-assignment', start, end });
  }
}

// ---- high-entropy blobs (gitleaks generic-api-key's entropy gate; detect-secrets' base64 plugin) ----

const HEX_RE = /^[0-9a-fA-F-]+$/;
// Digests and public keys that are long and random but not secret.
const DIGEST_PREFIX_RE = /(?:sha\d{0,3}|md5|h1|blake\d\w*)[-:=] ?$/i;
const DATA_URI_BEFORE_RE = /base64(?:,|%2C|%)$/i;
// Named public values and digests: pubkey256 = '...', fingerprint: ..., integrity=...
const PUBLIC_VALUE_BEFORE_RE = /(?:pub(?:lic)?[_-]?key|fingerprint|hash|digest|checksum|integrity|\bpin)\w*["'`]?\s*[:=]{0,2}\s*["'`]?$/i;
const DIGEST_LEAD_RE = /^(?:sha\d{1,3}|md5|blake\d\w*)-/i;
const SSH_PUBLIC_KEY_RE = /^AAAA(?:B3NzaC1yc2E|C3NzaC1lZDI1NTE5|E2VjZHNh|B3NzaC1kc3M|C3NzaC1lZDQ0OA|B3NzaC1)/;
const SECRET_WORD_RE = /key|secret|token|passw|credential|bearer|signing|hmac|private/i;
const DIGEST_WORD_RE = /sha|hash|digest|commit|checksum|integrity|\brev|etag|md5|fingerprint|\bsum\b|\bid\b|uuid|object|blob|tree|gpg|pgp|keyserver|recv-keys|keyid|key id/i;

function entropyThreshold(n: number): number {
  if (n < 40) return 3.9;
  if (n < 64) return 4.1;
  return 4.4;
}

/** run[s, e) is a blob-character sequence of 32+; offset maps run indices to text indices. */
function checkBlob(ctx: ScanContext, run: string, s: number, e: number, offset: number, found: RawFinding[]): void {
  const { text } = ctx;
  let end = e;
  while (end < run.length && run.charCodeAt(end) === 61 && end - e < 2) end++;
  const value = run.slice(s, e);
  const n = value.length;
  const at = offset + s;
  if (DIGEST_PREFIX_RE.test(text.slice(Math.max(0, at - 8), at)) || DIGEST_LEAD_RE.test(value)) return;
  if (HEX_RE.test(value)) {
    // Hashes (git SHAs, sha256 in lockfiles, UUIDs) are hex too: only hex next to a secret word
    // and no digest word counts.
    const bounds = ctx.lines.at(at);
    const line = text.slice(Math.max(bounds.start, at - WINDOW), Math.min(bounds.end, at + WINDOW));
    if (SECRET_WORD_RE.test(line) && !DIGEST_WORD_RE.test(line) && shannonEntropy(value) >= 3.3) {
      found.push({ kind: 'secret', rule: 'high-entropy', start: at, end: offset + end });
    }
    return;
  }
  if (SSH_PUBLIC_KEY_RE.test(value)) return;
  const classes = charClasses(value);
  const letterDigit = classes & (LOWER | UPPER | DIGIT);
  if (n < 64 ? letterDigit !== (LOWER | UPPER | DIGIT) : classCount(letterDigit) < 2) return;
  if (classSwitchRatio(value) < 0.3) return;
  if (shannonEntropy(value) < entropyThreshold(n)) return;
  if (wordyFraction(value) >= 0.88 || isNameWithHash(value) || value.startsWith('_Z')) return;
  if (value.includes('/') && isPathLike(value)) return;
  if (isCertificateBody(ctx, at)) return;
  if (looksLikePlaceholder(value)) return;
  // A URL's path and a data: URI are not secrets by themselves (a secret-named query parameter is
  // an assignment).
  const before = text.slice(Math.max(0, at - 40), at);
  if (DATA_URI_BEFORE_RE.test(before) || PUBLIC_VALUE_BEFORE_RE.test(before) || before.endsWith('%') || isInUrl(text, at)) return;
  found.push({ kind: 'secret', rule: 'high-entropy', start: at, end: offset + end });
}

/**
 * A path: absolute or home-relative with two or more slashes (/var/folders/jf/x7.../T), or with two
 * or more slashes and mostly words (NDKROOT/platforms/android-9/arch-x86), or one whose every long
 * segment reads like a word, a name or a hash (src/mainWindow/ab12cd34.../x).
 */
function isPathLike(s: string): boolean {
  const first = s.indexOf('/');
  const twoSlashes = s.indexOf('/', first + 1) !== -1;
  const c = s.charCodeAt(0);
  if (twoSlashes && (c === 47 || c === 126 || wordyFraction(s) >= 0.6)) return true;
  let segStart = 0;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && s.charCodeAt(i) !== 47) continue;
    if (i - segStart >= 8 && wordyFraction(s, segStart, i) < 0.88 && !HEX_RE.test(s.slice(segStart, i))) return false;
    segStart = i + 1;
  }
  return true;
}

/** A name with a hash in it: NODE_SEA_FUSE_fce680ab..., build-2024-9f86d081884c7d65. */
function isNameWithHash(s: string): boolean {
  const parts = s.split(/[_-]/);
  if (parts.length < 2) return false;
  for (const p of parts) {
    if (p === '' || /^[0-9a-fA-F]+$/.test(p) || /^[A-Z]+$/.test(p) || /^[A-Za-z][a-z]*$/.test(p)) continue;
    return false;
  }
  return true;
}

// A PEM block that is not a private key (a certificate, a public key): its body is public.
const PEM_BEGIN_RE = /^-----BEGIN ([A-Z0-9 ]+)-----/;

function isCertificateBody(ctx: ScanContext, at: number): boolean {
  const { text } = ctx;
  const begins = (ctx.memo.pemBegins ??= allIndexes(text, '-----BEGIN '));
  let begin = -1;
  for (const b of begins) {
    if (b > at) break;
    begin = b;
  }
  if (begin === -1 || at - begin > 16384) return false;
  const end = text.indexOf('-----END ', begin);
  if (end !== -1 && end < at) return false;
  const m = PEM_BEGIN_RE.exec(text.slice(begin, begin + 80));
  return m !== null && !m[1]!.includes('PRIVATE');
}

function allIndexes(text: string, literal: string): number[] {
  const out: number[] = [];
  eachIndex(text, literal, (i) => out.push(i));
  return out;
}

// ---- all secret rules ----

/** Generic rules yield to a more specific rule covering the same characters (lower rank wins). */
const RANK: Readonly<Record<string, number>> = { 'password-assignment': 1, 'authorization-header': 1, 'netrc-credentials': 1, 'high-entropy': 2 };
const rankOf = (rule: string): number => RANK[rule] ?? 0;

export function scanSecrets(ctx: ScanContext): void {
  const found: RawFinding[] = [];
  scanRuns(ctx, found);
  scanShortTokens(ctx, found);
  scanPrivateKeys(ctx, found);
  scanUrlCredentials(ctx, found);
  scanAuthorization(ctx, found);
  scanAssignments(ctx, found);
  scanPgpass(ctx, found);
  scanNetrc(ctx, found);
  found.sort((a, b) => a.start - b.start);
  // A generic finding is dropped when a lower-ranked one overlaps it: one before it that ends after
  // its start (tracked as the furthest end per rank), or one starting inside it.
  const furthest = [-1, -1, -1];
  for (let i = 0; i < found.length; i++) {
    const f = found[i]!;
    const r = rankOf(f.rule);
    let covered = false;
    for (let k = 0; k < r && !covered; k++) covered = furthest[k]! > f.start;
    for (let j = i + 1; j < found.length && !covered && found[j]!.start < f.end; j++) covered = rankOf(found[j]!.rule) < r;
    furthest[r] = Math.max(furthest[r]!, f.end);
    if (!covered) ctx.out.push(f);
  }
}
