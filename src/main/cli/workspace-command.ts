/**
 * `cairn workspace add|list|remove|trust`: the registry of checkouts (local, or remote over SSH)
 * from the command line. Trusting a host key always shows its fingerprint first and records it
 * only when the person confirms (or passes --yes); nothing is ever trusted silently.
 */
import * as path from 'node:path';
import * as readline from 'node:readline';
import { scanHostKey } from '../runtime/ssh/ssh-connection';
import { parseSshLocation, formatHostSpec } from '../runtime/ssh/ssh-target';
import { openMemoryHome } from '../host/memory-home';
import { resolveHome } from '../workspaces/home-dir';
import { RegistryError, workspaceInfo } from '../workspaces/registry';
import { reportSettingsProblems } from './session-flags';
import type { CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { UsageError, WORKSPACE_HELP } from './usage';

async function ask(io: CliIo, question: string): Promise<boolean> {
  io.stdout.write(question);
  const rl = readline.createInterface({ input: io.stdin });
  try {
    for await (const line of rl) return /^\s*y(es)?\s*$/i.test(line);
    return false;
  } finally {
    rl.close();
  }
}

export async function workspaceCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, WORKSPACE_HELP, {
    home: { type: 'string' },
    name: { type: 'string' },
    path: { type: 'string' },
    ssh: { type: 'string' },
    identity: { type: 'string' },
    'known-hosts': { type: 'string' },
    id: { type: 'string' },
    json: { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (sub === undefined) {
    io.stderr.write(WORKSPACE_HELP);
    return 2;
  }
  const services = openMemoryHome(resolveHome(values.home));
  const { registry } = services;
  reportSettingsProblems(registry, (text) => io.stderr.write(text));
  try {
    switch (sub) {
      case 'add': {
        if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
        if ((values.path === undefined) === (values.ssh === undefined)) throw new UsageError('workspace add takes one of --path DIR or --ssh [USER@]HOST[:PORT]:/ABS/PATH');
        if (values.ssh !== undefined) {
          let location: ReturnType<typeof parseSshLocation>;
          try {
            location = parseSshLocation(values.ssh);
          } catch (err) {
            throw new UsageError((err as Error).message);
          }
          const { entry, warning } = await registry.addSsh({
            name: values.name ?? '',
            host: formatHostSpec(location),
            path: location.path,
            identity: values.identity ?? null,
            knownHosts: values['known-hosts'] ?? null,
            id: values.id,
          });
          io.stdout.write(`${entry.id}\n`);
          if (warning) io.stderr.write(`cairn: registered, but ${warning}\n`);
          return 0;
        }
        if (values.identity !== undefined || values['known-hosts'] !== undefined) throw new UsageError('--identity and --known-hosts go with --ssh');
        // A terminal's relative --path means the shell's directory (the registry takes absolute paths only).
        const entry = await registry.add(values.name ?? '', path.resolve(values.path!), values.id);
        io.stdout.write(`${entry.id}\n`);
        return 0;
      }
      case 'list': {
        const all = registry.list().map(workspaceInfo);
        if (values.json) io.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
        else if (all.length === 0) io.stdout.write('No workspaces are registered; add one with `cairn workspace add`.\n');
        else for (const w of all) io.stdout.write(`${w.id}\t${w.kind}\t${w.host ? `${w.host}:` : ''}${w.path}\t${w.name}\n`);
        return 0;
      }
      case 'remove': {
        const id = rest[0];
        if (id === undefined || rest.length > 1) throw new UsageError('workspace remove takes one workspace id');
        if (!(await registry.remove(id))) throw new RegistryError(`No workspace ${id} is registered.`);
        io.stdout.write(`Removed ${id} (its checkout and project memory are untouched).\n`);
        return 0;
      }
      case 'trust': {
        const id = rest[0];
        if (id === undefined || rest.length > 1) throw new UsageError('workspace trust takes one workspace id');
        const entry = registry.get(id);
        if (!entry) throw new RegistryError(`No workspace ${id} is registered.`);
        if (entry.kind !== 'ssh') throw new RegistryError(`${id} is a local workspace; only SSH hosts have host keys.`);
        const key = await scanHostKey(registry.ssh.targetOf(entry));
        if (key.state === 'trusted') {
          io.stdout.write(`${key.host} is already trusted (${key.keyType} ${key.fingerprint}).\n`);
          return 0;
        }
        io.stdout.write(
          key.state === 'changed'
            ? `WARNING: the host key of ${key.host} has CHANGED. It now presents:\n  ${key.keyType} ${key.fingerprint}\nThis can mean someone is intercepting the connection. Trust it only if you know why it changed.\n`
            : `The host key of ${key.host} is not known yet. It presents:\n  ${key.keyType} ${key.fingerprint}\nCompare it with the host's own (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on that host).\n`,
        );
        if (!values.yes && !(await ask(io, 'Trust this key? [y/N] '))) {
          io.stdout.write('Not trusted; nothing was recorded.\n');
          return 1;
        }
        io.stdout.write(`${await registry.trust(id, key.fingerprint)}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown workspace command ${JSON.stringify(sub)}; use add, list, remove or trust`);
    }
  } catch (err) {
    if (err instanceof RegistryError) {
      io.stderr.write(`cairn: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await services.close();
  }
}
