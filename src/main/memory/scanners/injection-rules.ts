/**
 * Prompt-injection rules: instructions aimed at the model (override phrases, role hijacks, fake
 * system markers and chat-template tags, requests to hide things from the user), exfiltration
 * commands (a network command or a "send ... to <url>" sentence together with credentials, env files
 * or an environment dump), and invisible or bidirectional-control Unicode.
 *
 * The phrase patterns are written for notes: each needs the object that makes it an instruction
 * ("ignore previous instructions", not "ignore previous builds"; "you are now an unrestricted AI",
 * not "you are now able to ..."), and a phrase quoted in a sentence that discusses injection
 * ("beware of \"ignore previous instructions\" payloads") is taken as a mention, not an instruction.
 *
 * Speed: a whole-note regex alternation costs about as much as the whole budget, so every rule is
 * anchored on a short literal (searched with indexOf in the lower-cased note, chosen to start with
 * an uncommon character) and its sticky pattern runs only where the anchor occurs; what comes
 * before the anchor is checked with a lookbehind.
 */
import { WINDOW, eachIndex, matchAt, type RuleInfo, type ScanContext } from './rule-types';

export const INJECTION_RULES: Readonly<Record<string, RuleInfo>> = {
  'ignore-previous-instructions': { kind: 'injection', what: 'an instruction aimed at the model' },
  'role-hijack': { kind: 'injection', what: "an attempt to reassign the model's role" },
  'fake-system-tag': { kind: 'injection', what: 'a fake system or chat-template tag' },
  'system-prompt-marker': { kind: 'injection', what: 'a fake system-prompt marker' },
  'new-instructions': { kind: 'injection', what: 'a fake "new instructions" marker' },
  'conceal-from-user': { kind: 'injection', what: 'an instruction to hide something from the user' },
  exfiltration: { kind: 'injection', what: 'a command that sends credentials or environment data to a remote host' },
  'invisible-unicode': { kind: 'injection', what: 'the invisible Unicode character' },
  'bidi-control': { kind: 'injection', what: 'the bidirectional-control Unicode character' },
};

// ---- phrases ----

const ADJ = String.raw`(?:new|different|helpful|unrestricted|unfiltered|uncensored|evil|rogue|malicious|jailbroken|free|completely|totally|fully|hacked|amoral|unethical|ai|chat|large|language|independent|sentient)`;
const ROLE = String.raw`(?:assistant|ai|a\.i\.|bot|chatbot|model|llm|agent|persona|character|dan|hacker|villain|terminal|shell|interpreter)`;
const NOT = String.raw`(?:do\s+not|don['’]?t|never|must\s+not|mustn['’]?t)`;

const IGNORE_RE = new RegExp(
  String.raw`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|each|every|of|the|your|my|these|those|this|everything|that|you|were|was|given|told)\s+){0,4}?(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|existing|old|developer|safety)\s+(?:instructions?|prompts?|rules|directives?|guidelines|guidance|constraints|programming|commands|orders|system\s+prompt)\b` +
    String.raw`|\b(?:ignore|disregard|forget)\s+(?:(?:all|everything)\s+(?:of\s+)?)?(?:the\s+|what\s+(?:is|was)\s+)?(?:above|foregoing|preceding|previous|prior|before\s+this)(?=[ \t]*(?:[.!;:,)\r\n]|$|and\b|then\b|instead\b|text\b|content\b|lines?\b|messages?\b))`,
  'iy',
);
const YOU_RE = new RegExp(
  String.raw`(?<!\w)you\s+are\s+now\s+(?:(?:a|an|the|my|your)\s+(?:${ADJ}\s+){0,2}(?:[\w-]+\s+)?|(?:${ADJ}\s+){1,3})?${ROLE}\b` +
    String.raw`|(?<!\w)you\s+are\s+now\s+(?:(?:operating|running|working)\s+)?(?:in\s+)?(?:developer|god|admin|dev|jailbreak|jailbroken|dan|unrestricted|sudo)\s+mode\b` +
    String.raw`|(?<!\w)you\s+are\s+now\s+(?:completely\s+|totally\s+|fully\s+)?(?:jailbroken|unrestricted|unfiltered|uncensored|free\s+(?:from|of)\s+(?:all\s+|any\s+|your\s+)?(?:restrictions|rules|guidelines|filters|limits|constraints)|no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:ai|assistant|model)|claude|chatgpt))` +
    String.raw`|(?<=\b(?:from\s+now\s+on|henceforth|starting\s+now),?\s+)you\s+(?:are|will\s+be|shall\s+be)\s+(?:(?:a|an|the|my|your)\s+)?(?:${ADJ}\s+){0,3}${ROLE}\b`,
  'iy',
);
const ACT_AS_RE = /(?<=\b(?:act|behave|respond|roleplay|role-play|pretend)\s+(?:as|like|to\s+be)\s+(?:[\w-]+\s+){0,3}?)(?:unrestricted|jailbroken|jailbreak)\b/iy;
const MODE_RE = /(?<=\b(?:enter|enable|activate|switch\s+(?:to|into)|turn\s+on)\s+(?:developer|god|dan|jailbreak|unrestricted)\s+)mode\b/iy;
const TAG_RE = /<\s*\/?\s*(?:system|system[_-]?prompt|sys|instructions?|assistant|im_start|im_end)\s*>|<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id)\s*\|>|<<\s*\/?\s*SYS\s*>>/iy;
// Llama's [INST] markers are upper case; [inst] is ordinary code.
const INST_RE = /\[\s*\/?\s*INST\s*\]/y;
// At the start of a line or sentence, optionally after markdown bullets, quotes or emphasis.
const SYSTEM_MARKER_RE = /(?<=(?:^|[\n.!?])[ \t>*#_-]*(?:(?:new|updated|real|actual|true|hidden|secret)\s+)?)(?:system|developer)\s+(?:prompt|message|instructions?|override)(?:\*\*|__)?[ \t]*:/iy;
const NEW_INSTRUCTIONS_RE = /(?<=\b(?:new|override|overriding|secret|hidden|real|revised)\s+)instructions?(?:\*\*|__)?[ \t]*:/iy;
const CONCEAL_RE = new RegExp(
  String.raw`(?<=\b(?:(?:${NOT}|without)\s+(?:ever\s+)?(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?)|${NOT}\s+(?:ever\s+)?(?:mention|reveal|disclose|show|report)\s+(?:this|these|it|that|them|anything|any\s+of\s+this)(?:\s+instructions?)?\s+to|(?:hide|conceal|keep)\s+(?:this|these)(?:\s+(?:instructions?|messages?|notes?|text|rules?|steps?))?\s+(?:hidden\s+|secret\s+)?from)\s+the\s+)(?:user|human)(?![\w-])` +
    String.raw`|(?<=\bwithout\s+the\s+)(?:user|human)(?:['’]s)?\s+(?:knowing|knowledge|noticing)` +
    String.raw`|(?<=\b(?:${NOT}|without)\s+let(?:ting)?\s+the\s+)(?:user|human)\s+(?:know|notice|find\s+out)\b`,
  'iy',
);

/** One phrase anchor: a literal to find in the lower-cased note, where the pattern starts relative to it. */
interface PhraseAnchor {
  readonly literal: string;
  /** The pattern starts this many characters before the literal... */
  readonly back: number;
  /** ...where the lower-cased note must read this. */
  readonly lead: string;
  readonly rule: string;
  readonly re: RegExp;
  /** Whether a match inside a `code span` is a mention regardless of the line's wording. */
  readonly codeSpanIsMention?: boolean;
  /** A further check on the match. */
  readonly verify?: (match: string) => boolean;
}

// The jailbreak persona is written DAN; "you are now Dan's backup" is about a colleague.
const notColleagueDan = (m: string): boolean => !/dan$/i.test(m) || m.endsWith('DAN');

const PHRASE_ANCHORS: readonly PhraseAnchor[] = [
  { literal: 'gnore', back: 1, lead: 'i', rule: 'ignore-previous-instructions', re: IGNORE_RE },
  { literal: 'disreg', back: 0, lead: '', rule: 'ignore-previous-instructions', re: IGNORE_RE },
  { literal: 'forget', back: 0, lead: '', rule: 'ignore-previous-instructions', re: IGNORE_RE },
  { literal: 'verrid', back: 1, lead: 'o', rule: 'ignore-previous-instructions', re: IGNORE_RE },
  { literal: 'ypass', back: 1, lead: 'b', rule: 'ignore-previous-instructions', re: IGNORE_RE },
  { literal: 'you', back: 0, lead: '', rule: 'role-hijack', re: YOU_RE, verify: notColleagueDan },
  { literal: 'unre', back: 0, lead: '', rule: 'role-hijack', re: ACT_AS_RE },
  { literal: 'jailb', back: 0, lead: '', rule: 'role-hijack', re: ACT_AS_RE },
  { literal: 'mode', back: 0, lead: '', rule: 'role-hijack', re: MODE_RE },
  { literal: '<', back: 0, lead: '', rule: 'fake-system-tag', re: TAG_RE, codeSpanIsMention: true },
  { literal: '[', back: 0, lead: '', rule: 'fake-system-tag', re: INST_RE, codeSpanIsMention: true },
  { literal: 'ystem', back: 1, lead: 's', rule: 'system-prompt-marker', re: SYSTEM_MARKER_RE },
  { literal: 'velop', back: 2, lead: 'de', rule: 'system-prompt-marker', re: SYSTEM_MARKER_RE },
  { literal: 'uctio', back: 5, lead: 'instr', rule: 'new-instructions', re: NEW_INSTRUCTIONS_RE },
  { literal: 'user', back: 0, lead: '', rule: 'conceal-from-user', re: CONCEAL_RE },
];

// Words showing that a line discusses injection rather than performing it.
const META_RE = /\b(?:inject\w*|attack\w*|jailbreak\w*|payloads?|phrases?|patterns?|examples?|e\.g\.|such\s+as|detect\w*|scanner\w*|scan\w*|flag\w*|block\w*|reject\w*|refus\w*|filter\w*|escap\w*|neutrali[sz]\w*|sanitiz\w*|strip\w*|malicious|adversarial|red[- ]team\w*|quot\w*|mention\w*|wrapper|tags?)\b/i;

function countChar(text: string, from: number, to: number, ch: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === ch) n++;
  return n;
}

/** Whether a phrase at start is quoted in a line that talks about injection, or a tag in a code span. */
function isMention(ctx: ScanContext, start: number, codeSpanIsMention: boolean): boolean {
  const { text } = ctx;
  const line = ctx.lines.at(start);
  const ls = Math.max(line.start, start - WINDOW);
  const code = countChar(text, ls, start, 96) % 2 === 1;
  if (code && codeSpanIsMention) return true;
  const prev = start > 0 ? text.charCodeAt(start - 1) : 0;
  const quoted =
    code ||
    countChar(text, ls, start, 34) % 2 === 1 ||
    countChar(text, ls, start, 0x201c) > countChar(text, ls, start, 0x201d) ||
    prev === 39 ||
    prev === 0x2018;
  return quoted && META_RE.test(text.slice(ls, Math.min(line.end, start + WINDOW)));
}

/** Reports a rule at most once per line: the end of the last line it was reported on. */
type Reported = Map<string, number>;

function report(ctx: ScanContext, reported: Reported, rule: string, start: number, end: number, detail?: string): void {
  ctx.out.push(detail === undefined ? { kind: 'injection', rule, start, end } : { kind: 'injection', rule, start, end, detail });
  reported.set(rule, ctx.lines.at(start).end);
}

function alreadyOnLine(ctx: ScanContext, reported: Reported, rule: string, p: number): boolean {
  const until = reported.get(rule);
  return until !== undefined && ctx.lines.at(p).end === until;
}

function scanPhrases(ctx: ScanContext, reported: Reported): void {
  const { text, lower } = ctx;
  for (const a of PHRASE_ANCHORS) {
    eachIndex(lower, a.literal, (p) => {
      const start = p - a.back;
      if (start < 0 || (a.back > 0 && !lower.startsWith(a.lead, start))) return;
      if (alreadyOnLine(ctx, reported, a.rule, start)) return;
      const m = matchAt(a.re, text, start);
      if (m === null || (a.verify && !a.verify(m[0])) || isMention(ctx, start, a.codeSpanIsMention === true)) return;
      report(ctx, reported, a.rule, start, start + m[0].length);
    });
  }
}

// ---- exfiltration ----

/** A sensitive source: a literal anchor and the sticky pattern confirming it at the anchor. */
interface SourceAnchor {
  readonly literal: string;
  readonly re: RegExp;
  /** Search and match in the original text (case matters) rather than the lower-cased one. */
  readonly cased?: boolean;
}

// Credentials, env files and environment dumps. Dot-files share one anchor, the dot, and are told
// apart by the character after it before any pattern runs.
const DOT_SOURCE_RE = /\.(?:ssh(?!\/(?:[\w.-]+\.pub|known_hosts|authorized_keys)\b)(?![\w-])|env(?:rc)?(?!\.(?:example|sample|template|dist|defaults)\b)(?:\.[\w-]+)?(?![\w-])|environ(?!\s*[.[\w])|netrc\b|aws\/(?:credentials|config)\b|kube\/config\b|(?:bash|zsh)_history\b|git-credentials\b|docker\/config\.json\b|npmrc\b)/y;
// First letters after the dot of the names above: s e n a k b z g d.
const DOT_SOURCE_NEXT = new Set([115, 101, 110, 97, 107, 98, 122, 103, 100]);
// `.env` right after a word is a property (import.meta.env, config.env.X), not a file; a bare
// process.env or os.environ is the whole environment.
const DOT_ENV_OWNER_RE = /(?:\bprocess|\bos)$/;
const WORD_CHAR_RE = /[\w$.-]/;

const SOURCE_ANCHORS: readonly SourceAnchor[] = [
  { literal: '/etc/', re: /\/etc\/(?:passwd|shadow)\b/y },
  { literal: '$', re: /\$\(\s*(?:env|printenv|set|export\s+-p)\b|\$\{?[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|KEY|PASSWORD|PASSWD|PASS|CREDENTIALS?)\}?(?!\w)/y, cased: true },
];
const BACKTICK_ENV_RE = /`\s*(?:env|printenv)\s*[|`]/y;

// Any sensitive source, for checking the command that pipes into a network client.
const SOURCE_ANY_RE = /\.ssh(?!\/(?:[\w.-]+\.pub|known_hosts|authorized_keys)\b)(?![\w-])|\bid_(?:rsa|dsa|ecdsa|ed25519)(?![\w.-]*\.pub)\b|(?<![\w.$-])\.env(?:rc)?(?!\.(?:example|sample|template|dist|defaults)\b)|\.netrc\b|\.aws\/(?:credentials|config)\b|\.kube\/config\b|\.(?:bash|zsh)_history\b|\/etc\/(?:passwd|shadow)\b|\.git-credentials\b|\.docker\/config\.json\b|\.npmrc\b|\$\(\s*(?:env|printenv|set)\b|(?:^|[\s;&(`])(?:env|printenv|set|export\s+-p)\s*$/i;
// Network clients and HTTP calls (not `http`/`https` alone: a URL is not a command).
const NET_RE = /(?<![\w./-])(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|sftp|ftp|tftp|telnet|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)(?![\w-])|\bfetch\s*\(|\b(?:requests|axios|httpx|urllib\.request|http|https)\s*\.\s*(?:post|put|patch|get|request|urlopen)\s*\(|\bnavigator\.sendBeacon\s*\(|\bXMLHttpRequest\b/;
const PIPE_BACK = 256;
const PIPE_NET_RE = /\|(?:\s|\\\r?\n)*(?:curl|wget|nc|ncat|netcat|socat|telnet|openssl\s+s_client)(?![\w-])/y;
// "send/post/upload ... to <destination>" in prose.
const SEND_VERB_RE = /\b(?:send|sends|sending|post|posts|posting|upload|uploads|uploading|exfiltrat\w*|transmit\w*|forward|forwards|forwarding|leak|leaks|email|e-mail|paste|pastes|pasting|beam|ship)\b/gi;
const DESTINATION_RE = /https?:\/\/|(?<=[\w.+-])@[\w-]+\.[\w.-]+|\b(?:webhook|pastebin|requestbin|hookbin|ngrok|pipedream|transfer\.sh|interact\.sh|burpcollaborator)\b/i;
const NEGATION_RE = /\b(?:never|don['’]?t|do\s+not|must\s+not|mustn['’]?t|should\s+not|shouldn['’]?t|avoid|nobody|no\s+one)\b/i;
const OUTPUT_FLAG_RE = /(?:^|\s)(?:-o|-O|--output|--output-document|>>?)[=\s]*$/;

/**
 * What the exfiltration checks need to know about the command text around a hit: where network
 * clients, pipes into them and command separators are, and whether its prose sends something to a
 * destination. Computed once per window and reused by every hit in it, so a line full of sources
 * costs one pass over each window, not one per source.
 */
interface CommandFacts {
  readonly start: number;
  readonly end: number;
  /** Starts of network clients and HTTP calls. */
  readonly nets: number[];
  /** Starts of pipes into a network client. */
  readonly pipes: number[];
  /** Separators (; && ||) as start, end pairs, in order. */
  readonly stops: number[];
  prose?: boolean;
}

const NET_ALL_RE = new RegExp(NET_RE.source, 'g');
const PIPE_NET_ALL_RE = new RegExp(PIPE_NET_RE.source, 'g');
const STOP_RE = /;|&&|\|\|/g;

function allStarts(re: RegExp, text: string, offset: number, out: number[], withEnds = false): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(offset + m.index);
    if (withEnds) out.push(offset + m.index + m[0].length);
  }
}

/**
 * The window of the logical line (joined across `\` continuations) around q. Lines longer than the
 * window are cut into fixed blocks of WINDOW, and a hit sees its block and the ones on either side.
 */
function commandFacts(ctx: ScanContext, q: number, memo: { facts?: CommandFacts }): CommandFacts {
  const { text } = ctx;
  const line = ctx.lines.at(q);
  let s = line.start;
  let e = line.end;
  while (s >= 2 && q - s < WINDOW && text.charCodeAt(s - 2) === 92) s = text.lastIndexOf('\n', s - 3) + 1;
  while (e < text.length && e - q < WINDOW && text.charCodeAt(e - 1) === 92) {
    const next = text.indexOf('\n', e + 1);
    e = next === -1 ? text.length : next;
  }
  const block = s + Math.floor((q - s) / WINDOW) * WINDOW;
  const start = Math.max(s, block - WINDOW);
  const end = Math.min(e, block + 2 * WINDOW);
  const cached = memo.facts;
  if (cached !== undefined && cached.start === start && cached.end === end) return cached;
  const slice = text.slice(start, end);
  const facts: CommandFacts = { start, end, nets: [], pipes: [], stops: [] };
  allStarts(NET_ALL_RE, slice, start, facts.nets);
  allStarts(PIPE_NET_ALL_RE, slice, start, facts.pipes);
  allStarts(STOP_RE, slice, start, facts.stops, true);
  memo.facts = facts;
  return facts;
}

/** Start and end of the shell command holding q: between the separators around it. */
function commandBounds(f: CommandFacts, q: number): [number, number] {
  let cs = f.start;
  let ce = f.end;
  for (let i = 0; i < f.stops.length; i += 2) {
    const stopStart = f.stops[i]!;
    const stopEnd = f.stops[i + 1]!;
    if (stopEnd <= q) cs = stopEnd;
    else if (stopStart >= q) {
      ce = stopStart;
      break;
    }
  }
  return [cs, ce];
}

const anyIn = (positions: readonly number[], from: number, to: number): boolean => positions.some((p) => p >= from && p < to);

/**
 * Whether a source in a network command's arguments is being sent: an output target (-o .env) is
 * not, nor a file name in a URL path (https://host/.env.example); a secret-named variable
 * ($GITHUB_TOKEN) is sent only when spliced into a URL, since passing it in a header to its own API
 * is ordinary use.
 */
function isSent(text: string, at: number, segStart: number): boolean {
  const before = text.slice(Math.max(segStart, at - 24), at);
  if (OUTPUT_FLAG_RE.test(before)) return false;
  let w = at;
  const min = Math.max(segStart, at - 256);
  while (w > min && !/[\s"']/.test(text[w - 1]!)) w--;
  const word = text.slice(w, at);
  const inUrl = word.includes('://');
  if (text.startsWith('$(', at) || text.charCodeAt(at) === 96) return true;
  if (text.charCodeAt(at) === 36) return inUrl;
  if (inUrl && !word.includes('$(') && !word.includes('`') && !word.includes('@')) return false;
  return true;
}

/** Whether the window's prose sends something to a destination ("post ~/.netrc to https://..."). */
function sendsInProse(text: string): boolean {
  if (!DESTINATION_RE.test(text)) return false;
  SEND_VERB_RE.lastIndex = 0;
  for (let m = SEND_VERB_RE.exec(text); m !== null; m = SEND_VERB_RE.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (!NEGATION_RE.test(text.slice(lineStart, m.index))) return true;
  }
  return false;
}

/** Whether the source at q is being sent somewhere. */
function isExfiltration(ctx: ScanContext, q: number, memo: { facts?: CommandFacts }): boolean {
  const { text } = ctx;
  const f = commandFacts(ctx, q, memo);
  const [cs, ce] = commandBounds(f, q);
  if (anyIn(f.nets, cs, q) && isSent(text, q, cs)) return true;
  if (anyIn(f.pipes, q, ce)) return true;
  f.prose ??= sendsInProse(text.slice(f.start, f.end));
  return f.prose;
}

function scanExfiltration(ctx: ScanContext, reported: Reported): void {
  const { text, lower } = ctx;
  const rule = 'exfiltration';
  const memo: { facts?: CommandFacts } = {};
  const check = (p: number, end: number): void => {
    if (isExfiltration(ctx, p, memo)) report(ctx, reported, rule, p, end);
  };
  eachIndex(lower, '.', (p) => {
    if (!DOT_SOURCE_NEXT.has(lower.charCodeAt(p + 1)) || alreadyOnLine(ctx, reported, rule, p)) return;
    const m = matchAt(DOT_SOURCE_RE, lower, p);
    if (m === null) return;
    if (p > 0 && WORD_CHAR_RE.test(lower[p - 1]!)) {
      // name.env.X is a property; process.env and os.environ alone are the whole environment;
      // other dot-files after a word (foo.netrc) are not the user's files.
      const owner = DOT_ENV_OWNER_RE.test(lower.slice(Math.max(0, p - 8), p));
      if (!owner || (m[0] !== '.env' && m[0] !== '.environ')) return;
    }
    check(p, p + m[0].length);
  });
  for (const a of SOURCE_ANCHORS) {
    const hay = a.cased ? text : lower;
    eachIndex(hay, a.literal, (p) => {
      if (alreadyOnLine(ctx, reported, rule, p)) return;
      const m = matchAt(a.re, hay, p);
      if (m !== null) check(p, p + m[0].length);
    });
  }
  eachIndex(text, '`', (p) => {
    const c = text.charCodeAt(p + 1);
    // `env`, `printenv`, ` env`: only then run the pattern.
    if ((c !== 101 && c !== 112 && c !== 32) || alreadyOnLine(ctx, reported, rule, p)) return;
    const m = matchAt(BACKTICK_ENV_RE, text, p);
    if (m !== null) check(p, p + m[0].length);
  });
  // `printenv | nc host`, `cat id_rsa | curl -d @- url`: a pipe into a network client from a
  // command that reads a source (at most PIPE_BACK characters back).
  eachIndex(text, '|', (p) => {
    if (alreadyOnLine(ctx, reported, rule, p) || matchAt(PIPE_NET_RE, text, p) === null) return;
    const [cs] = commandBounds(commandFacts(ctx, p, memo), p);
    const from = Math.max(cs, p - PIPE_BACK);
    if (SOURCE_ANY_RE.test(text.slice(from, p))) report(ctx, reported, rule, from, p + 1);
  });
}

// ---- invisible and bidirectional-control characters ----

const INVISIBLE_RE = /[\u200B-\u200D\u2060-\u2064\uFEFF]|\uDB40[\uDC00-\uDC7F]/g;
const BIDI_RE = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

function isEmojiSide(c: number): boolean {
  return (c >= 0xd800 && c <= 0xdfff) || c === 0xfe0f || (c >= 0x2600 && c <= 0x27bf) || (c >= 0x2190 && c <= 0x21ff);
}

/** A joiner between letters of a script that needs it (Arabic, Persian, Indic), or inside an emoji. */
function isLegitimateJoiner(text: string, i: number): boolean {
  const prev = i > 0 ? text.charCodeAt(i - 1) : 0;
  const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
  if (text.charCodeAt(i) === 0x200d && isEmojiSide(prev) && isEmojiSide(next)) return true;
  const scriptLetter = (c: number): boolean => c >= 0x0590 && c < 0x2000;
  return scriptLetter(prev) && scriptLetter(next);
}

/** End of a subdivision-flag tag sequence (black flag, tag letters, cancel tag) starting at i, or -1. */
function flagTagEnd(text: string, i: number): number {
  if (i < 2 || text.charCodeAt(i - 2) !== 0xd83c || text.charCodeAt(i - 1) !== 0xdff4) return -1;
  for (let j = i, n = 0; j + 1 < text.length && n < 8; j += 2, n++) {
    if (text.charCodeAt(j) !== 0xdb40) return -1;
    const lo = text.charCodeAt(j + 1);
    if (lo === 0xdc7f) return j + 2;
    if (lo < 0xdc20 || lo > 0xdc7e) return -1;
  }
  return -1;
}

function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

function scanInvisible(ctx: ScanContext, reported: Reported): void {
  const { text } = ctx;
  for (const [re, rule] of [
    [INVISIBLE_RE, 'invisible-unicode'],
    [BIDI_RE, 'bidi-control'],
  ] as const) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const i = m.index;
      const c = text.charCodeAt(i);
      if (c === 0xfeff && i === 0) continue;
      if ((c === 0x200c || c === 0x200d) && isLegitimateJoiner(text, i)) continue;
      if (c === 0xdb40) {
        const flagEnd = flagTagEnd(text, i);
        if (flagEnd !== -1) {
          re.lastIndex = flagEnd;
          continue;
        }
      }
      report(ctx, reported, rule, i, i + m[0].length, codePointLabel(text.codePointAt(i)!));
      // One finding per line: go on from the next line.
      re.lastIndex = Math.max(re.lastIndex, ctx.lines.end);
    }
  }
}

export function scanInjection(ctx: ScanContext): void {
  const reported: Reported = new Map();
  scanPhrases(ctx, reported);
  scanExfiltration(ctx, reported);
  scanInvisible(ctx, reported);
}
