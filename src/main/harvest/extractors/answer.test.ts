// Reading a model's answer: the candidates come out whatever wraps them (prose, a
// fence, Claude Code's json and stream-json output, Codex's last message and --json events);
// invalid items are dropped and counted, at most 50 are looked at, and an answer with no JSON
// answer object, or a run the tool reports as failed, is an error a person can read.
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../inbox/candidate';
import { MAX_ANSWER_CANDIDATES, parseAnswer } from './answer';
import { AnswerError } from './json-answer';

const good: Candidate = {
  category: 'convention',
  text: 'Always squash merge pull requests.',
  scope: 'project',
  evidence: [{ messageId: 'u1', quote: 'We always squash merge.' }],
  confidence: 0.9,
  rationale: 'Said as a standing rule.',
};
const answer = JSON.stringify({ candidates: [good] });

describe('parseAnswer', () => {
  it.each([
    ['the JSON alone', answer],
    ['prose around it', `Sure! Here is what I found:\n${answer}\nLet me know if you need more.`],
    ['a ```json fence', `Here you go:\n\`\`\`json\n${JSON.stringify({ candidates: [good] }, null, 2)}\n\`\`\`\n`],
    ['a bare ``` fence', `\`\`\`\n${answer}\n\`\`\``],
    ['Claude Code --output-format json', JSON.stringify({ type: 'result', subtype: 'success', is_error: false, duration_ms: 2100, num_turns: 1, result: `\`\`\`json\n${answer}\n\`\`\``, session_id: 's', total_cost_usd: 0.01 })],
    ['Claude Code --output-format json --verbose (an array)', JSON.stringify([{ type: 'system', subtype: 'init' }, { type: 'assistant', message: {} }, { type: 'result', subtype: 'success', is_error: false, result: answer }])],
    ['Claude Code --output-format stream-json', [{ type: 'system', subtype: 'init' }, { type: 'assistant', message: { content: [] } }, { type: 'result', subtype: 'success', is_error: false, result: answer }].map((e) => JSON.stringify(e)).join('\n')],
    ['codex exec (its last message)', `${answer}\n`],
    ['codex exec --json events', [{ type: 'thread.started', thread_id: 't' }, { type: 'turn.started' }, { type: 'item.completed', item: { id: 'i0', type: 'reasoning', text: 'thinking' } }, { type: 'item.completed', item: { id: 'i1', type: 'agent_message', text: answer } }, { type: 'turn.completed', usage: {} }].map((e) => JSON.stringify(e)).join('\n')],
    ['an example echoed before the answer', `The shape is {"candidates":[{"category":"fact","text":"x","scope":"project","evidence":[],"confidence":1,"rationale":""}]} and my answer is:\n${answer}`],
    ['a bare array', JSON.stringify([good])],
  ])('reads %s', (_how, output) => {
    expect(parseAnswer(output)).toEqual({ candidates: [good], dropped: 0, ignored: 0 });
  });

  it('reads an empty answer object as no candidates', () => {
    expect(parseAnswer('{"candidates":[]}')).toEqual({ candidates: [], dropped: 0, ignored: 0 });
  });

  it('drops and counts invalid candidates, keeping the valid ones', () => {
    const items = [
      good,
      { ...good, category: 'opinion' },
      { ...good, scope: 'team' },
      { ...good, confidence: 1.5 },
      { ...good, confidence: '0.9' },
      { ...good, text: 'x'.repeat(1001) },
      { ...good, text: '   ' },
      { ...good, evidence: [] },
      { ...good, evidence: [{ messageId: 'u1' }] },
      'just a string',
      null,
      { ...good, text: 'A second one.', rationale: undefined, speaker: 'person', extra: 1 },
    ];
    const parsed = parseAnswer(JSON.stringify({ candidates: items }));
    expect(parsed.dropped).toBe(10);
    // Unknown fields are dropped; a missing rationale is empty.
    expect(parsed.candidates).toEqual([good, { ...good, text: 'A second one.', rationale: '' }]);
  });

  it(`looks at no more than ${MAX_ANSWER_CANDIDATES} items`, () => {
    const items = Array.from({ length: 60 }, (_, i) => ({ ...good, text: `Rule ${i}.` }));
    const parsed = parseAnswer(JSON.stringify({ candidates: items }));
    expect(parsed.candidates).toHaveLength(50);
    expect(parsed.candidates[49]!.text).toBe('Rule 49.');
    expect(parsed.ignored).toBe(10);
  });

  it.each([
    ['prose only', "I'm sorry, I can't help with that.", /holds no JSON object \{"candidates":\[\.\.\.\]\}; it began: "I'm sorry, I can't help with that\."/],
    ['JSON of another shape', '{"memories":[]}', /holds no JSON object/],
    ['nothing', '  \n', /empty answer/],
    ['a broken object', '{"candidates":[{"category":', /holds no JSON object/],
    ['a Claude Code error', JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 3 }), /Claude Code reported an error: error_max_turns/],
    ['a Claude Code error with its text', JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'Credit balance is too low' }), /Claude Code reported an error: Credit balance is too low/],
    ['a Codex failure', [{ type: 'thread.started' }, { type: 'error', message: "You've hit your usage limit." }, { type: 'turn.failed', error: { message: 'usage limit' } }].map((e) => JSON.stringify(e)).join('\n'), /Codex reported an error: usage limit/],
  ])('refuses %s with a clear message', (_what, output, message) => {
    expect(() => parseAnswer(output)).toThrow(AnswerError);
    expect(() => parseAnswer(output)).toThrow(message);
  });
});
