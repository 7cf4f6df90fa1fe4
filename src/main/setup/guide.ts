/**
 * The setup guide the UI shows when there is no memory yet: for each agent, the `cairn setup`
 * line and what it would merge into the agent's files, built from the same plans `cairn setup`
 * applies, so the UI, the CLI and the README never disagree.
 */
import type { z } from 'zod';
import type { agentGuideSchema } from '../../common/api/contract';
import { shellLine } from './launcher';
import { AGENT_NAMES, AGENTS, planSetup, type Agent, type SetupPlan } from './setup';

export type AgentGuide = z.infer<typeof agentGuideSchema>;

export interface GuideOptions {
  /** The command that runs the CLI. */
  launcher: string;
  /** Cairn's home, when it is not the default one (it then appears in the lines). */
  home?: string | undefined;
  /** The workspace's local checkout, or null (then the lines name a placeholder project). */
  checkout: string | null;
}

const PLACEHOLDER = '/path/to/your/project';

export async function agentGuides(options: GuideOptions): Promise<AgentGuide[]> {
  return Promise.all(AGENTS.map((agent) => guideFor(agent, options)));
}

async function guideFor(agent: Agent, options: GuideOptions): Promise<AgentGuide> {
  const command = shellLine([options.launcher, 'setup', agent, '--cwd', options.checkout ?? PLACEHOLDER, ...(options.home ? ['--home', options.home] : [])]);
  let plan: SetupPlan | null = null;
  if (options.checkout) {
    try {
      plan = await planSetup(agent, { launcher: options.launcher, home: options.home, cwd: options.checkout });
    } catch {
      plan = null; // the checkout is gone: the command alone still helps
    }
  }
  return {
    agent,
    name: AGENT_NAMES[agent],
    command,
    files: plan ? plan.targets.map((t) => ({ path: t.path, snippet: t.snippet })) : [],
    alternative: plan?.alternative ? { title: plan.alternative.title, line: plan.alternative.line } : null,
    nextSteps: plan?.nextSteps ?? `Run it in a terminal, then start a new ${AGENT_NAMES[agent]} session in the project.`,
  };
}
