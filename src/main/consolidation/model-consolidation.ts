/**
 * The consolidation's model backends: `command` and `http` propose a consolidation by asking a
 * model once with consolidationPrompt (consolidation-prompt.ts), through the harvest's runner (the Ask of
 * harvest/extractors/index.ts modelBackendFor: one runner, its timeouts, output caps and Cancel),
 * and read its reply with the harvest's reader (json-answer.ts answerList(output, 'changes')). The
 * answer carries what the call sent (ModelCost: the prompt's characters, the tokens its API reported).
 *
 * The model answers with operations on files: write (new whole text), delete (with `mergedInto`
 * when the file is merged into another), rename; each with the sha256 it was based on and a reason.
 * They are grouped here into the proposal's changes: the deletes merged into one file, with that
 * file's write, are one merge; another write to an existing file is a rewrite; a delete is a
 * delete; a rename a rename.
 *
 * Invariants: each item is read on its own (an item not in a change's shape is refused with the
 * reason, never fatal), at most CONSOLIDATION_MAX_CHANGES items are looked at (the rest refused as past the
 * cap); refused here besides: a write to a file the model was not shown whole (consolidation-prompt.ts
 * shownFiles), a write holding a redaction marker, a write creating a file nothing is merged into
 * (a consolidation adds no memory), a second change of one file. Everything returned is still
 * checked by the host (consolidations.ts: versions, protection, names, content).
 */
import { z } from 'zod';
import { formatMemoryPath } from '../../common/memory/paths';
import { CONSOLIDATION_MAX_CHANGES, type ConsolidationRefusal } from '../../common/consolidation/proposal';
import { AnswerError, answerList, excerpt } from '../harvest/extractors/json-answer';
import type { Ask } from '../harvest/extractors/model-extractor';
import type { ModelCost } from '../harvest/harvest-run';
import { holdsRedactionMarker } from '../harvest/extractors/redact';
import type { ProposedChange, ConsolidationAnswer, ConsolidationExtractor, ConsolidationInput } from './extractor';
import { shownFiles, consolidationPrompt } from './consolidation-prompt';

const sha = z.string().regex(/^[0-9a-f]{64}$/i, 'basedOn must be a sha256 (64 hexadecimal digits)');
const path = z.string().trim().min(1).max(1024);
const reason = z.string().trim().min(1).max(2000);

/** One operation of a model's answer; unknown fields are dropped. */
const modelChangeSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('write'), path, basedOn: sha.nullable(), content: z.string(), reason }),
  z.object({ op: z.literal('delete'), path, basedOn: sha, mergedInto: path.optional(), reason }),
  z.object({ op: z.literal('rename'), path, to: path, basedOn: sha, reason }),
]);
type ModelChange = z.infer<typeof modelChangeSchema>;

/** "write /memories/global/a.md", as a refusal names an item. */
function describe(item: unknown): string {
  if (typeof item === 'object' && item !== null) {
    const o = item as Record<string, unknown>;
    const op = typeof o.op === 'string' ? o.op : 'change';
    const p = typeof o.path === 'string' ? ` ${o.path}` : '';
    const to = typeof o.to === 'string' ? ` to ${o.to}` : typeof o.mergedInto === 'string' ? ` into ${o.mergedInto}` : '';
    return excerpt(`${op}${p}${to}`, 300);
  }
  return excerpt(JSON.stringify(item) ?? String(item), 120);
}

/** Why an item is not a change, from zod's first issue, as a person reads it. */
function shapeProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not in the shape of a change';
  const where = issue.path.length > 0 ? `"${issue.path.join('.')}": ` : '';
  return `not in the shape of a change (${where}${issue.message})`;
}

/** The model's answer read and grouped into proposed changes (see the header). */
function changesOfAnswer(output: string, input: ConsolidationInput): ConsolidationAnswer {
  return changesOfItems(answerList(output, 'changes'), input);
}

/** The items of an answer's "changes", each read on its own and grouped (the `agent` backend's, mcp/memory-consolidate.ts, come from its tool call). */
export function changesOfItems(list: readonly unknown[], input: ConsolidationInput): ConsolidationAnswer {
  const refused: ConsolidationRefusal[] = [];
  const root = formatMemoryPath(input.scope);
  // A path given relative to the scope is taken as inside it; the host judges the rest.
  const full = (p: string) => (p.startsWith('/') ? p.replace(/\/+$/, '') : `${root}/${p.replace(/^\.\//, '')}`);
  const whole = new Set(shownFiles(input).filter((s) => s.whole).map((s) => s.file.path));
  const ops: ModelChange[] = [];
  list.forEach((item, i) => {
    if (i >= CONSOLIDATION_MAX_CHANGES) return refused.push({ change: describe(item), reason: `past the ${CONSOLIDATION_MAX_CHANGES} changes an answer may hold` });
    const parsed = modelChangeSchema.safeParse(item);
    if (!parsed.success) return refused.push({ change: describe(item), reason: shapeProblem(parsed.error) });
    const c = parsed.data;
    const basedOn = c.basedOn === null ? null : c.basedOn.toLowerCase();
    ops.push(c.op === 'delete' ? { ...c, path: full(c.path), basedOn: basedOn!, ...(c.mergedInto !== undefined ? { mergedInto: full(c.mergedInto) } : {}) } : c.op === 'rename' ? { ...c, path: full(c.path), to: full(c.to), basedOn: basedOn! } : { ...c, path: full(c.path), basedOn });
  });

  // Which paths are changed, and by which op: a path in two ops is refused the second time.
  const seen = new Set<string>();
  const kept: ModelChange[] = [];
  for (const c of ops) {
    if (seen.has(c.path)) {
      refused.push({ change: describe(c), reason: `${c.path} has another change in this answer; a file changes once` });
      continue;
    }
    seen.add(c.path);
    kept.push(c);
  }
  const writes = new Map(kept.filter((c) => c.op === 'write').map((c) => [c.path, c]));
  const mergedInto = new Map<string, Array<Extract<ModelChange, { op: 'delete' }>>>();
  for (const c of kept) if (c.op === 'delete' && c.mergedInto !== undefined) (mergedInto.get(c.mergedInto) ?? mergedInto.set(c.mergedInto, []).get(c.mergedInto)!).push(c);

  const writeProblem = (w: Extract<ModelChange, { op: 'write' }>): string | null => {
    if (holdsRedactionMarker(w.content)) return 'its content holds a "[redacted secret: ...]" marker: a secret would be replaced by the marker';
    if (w.basedOn !== null && !input.files.some((f) => f.path === w.path)) return `${w.path} is not a file of ${root}; a write into a new file is based on no file ("basedOn": null)`;
    if (w.basedOn !== null && !whole.has(w.path)) return `${w.path} was not shown whole to the model (cut, or a secret removed): writing it would lose the rest`;
    return null;
  };
  const changes: ProposedChange[] = [];
  const done = new Set<string>();
  for (const c of kept) {
    if (done.has(c.path)) continue;
    const target = c.op === 'delete' ? c.mergedInto : c.op === 'write' && mergedInto.has(c.path) ? c.path : undefined;
    if (target !== undefined) {
      // A merge: every delete into `target`, with target's write if there is one.
      const others = mergedInto.get(target) ?? [];
      const write = writes.get(target);
      for (const o of others) done.add(o.path);
      done.add(target);
      const problem = write ? writeProblem(write) : null;
      const what = `merge ${others.map((o) => o.path).join(', ')} into ${target}`;
      if (problem) {
        refused.push({ change: what, reason: problem });
        continue;
      }
      const targetOp = kept.find((k) => k.path === target);
      if (targetOp !== undefined && targetOp.op !== 'write') {
        refused.push({ change: what, reason: `${target}, the file merged into, has a ${targetOp.op} of its own in this answer` });
        continue;
      }
      if (!write && !input.files.some((f) => f.path === target)) {
        refused.push({ change: what, reason: `${target} is not a file of this scope, and the answer writes no such new file` });
        continue;
      }
      const basedOn: Record<string, string | null> = Object.fromEntries(others.map((o) => [o.path, o.basedOn]));
      if (write) basedOn[target] = write.basedOn;
      changes.push({
        kind: 'merge',
        keep: target,
        others: others.map((o) => o.path),
        ...(write ? { content: write.content } : {}),
        reason: [...others.map((o) => o.reason), ...(write ? [write.reason] : [])].filter((r, i, all) => all.indexOf(r) === i).join(' '),
        basedOn,
      });
      continue;
    }
    done.add(c.path);
    if (c.op === 'delete') changes.push({ kind: 'delete', path: c.path, reason: c.reason, basedOn: { [c.path]: c.basedOn } });
    else if (c.op === 'rename') changes.push({ kind: 'rename', path: c.path, to: c.to, reason: c.reason, basedOn: { [c.path]: c.basedOn } });
    else {
      const problem = c.basedOn === null ? `it creates ${c.path} without merging any file into it: a consolidation adds no memory` : writeProblem(c);
      if (problem) refused.push({ change: describe(c), reason: problem });
      else changes.push({ kind: 'rewrite', path: c.path, content: c.content, reason: c.reason, basedOn: { [c.path]: c.basedOn } });
    }
  }
  return { changes, refused };
}

/** A consolidation extractor asking a model through `ask` (a runner of harvest/extractors/index.ts). */
export function modelConsolidationExtractor(name: string, ask: Ask): ConsolidationExtractor {
  return {
    name,
    offline: false,
    async propose(input: ConsolidationInput): Promise<ConsolidationAnswer> {
      const prompt = consolidationPrompt(input);
      const answer = await ask(prompt, input.signal);
      // One call: its tokens are known exactly when its API reported them.
      const cost: ModelCost = { calls: 1, chars: prompt.length, inputTokens: answer.tokens?.input ?? null, outputTokens: answer.tokens?.output ?? null };
      try {
        return { ...changesOfAnswer(answer.text, input), cost };
      } catch (err) {
        if (err instanceof AnswerError && answer.cutShort) throw new AnswerError(`${err.message} (the model stopped at its output limit: its answer was cut short)`);
        throw err;
      }
    },
  };
}
