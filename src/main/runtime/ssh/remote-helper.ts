/**
 * The remote half of SshRuntime: a small Perl program (remote-helper.pl, this module's text of it
 * with the client's values filled in) that SshRuntime starts once per connection (`perl -e
 * BOOTSTRAP`, the program itself sent on stdin) and then talks to over that one exec channel, one
 * framed request and one framed response per operation. Perl because it is on
 * practically every host that runs sshd (Debian's essential perl-base, macOS, every BSD) and needs
 * nothing installed; only modules of perl-base are used (Cwd, Fcntl, POSIX, IO::Handle).
 *
 * Why a resident helper rather than a shell command per operation: each operation then costs one
 * round trip on the open connection (an exec channel costs two or three before it runs anything),
 * and the containment check runs in the same request as the operation it guards, on the remote
 * side, with the paths passed as data, never through a shell, so no name can inject a command.
 *
 * Wire format, both ways: a frame is a 4-byte big-endian length and a payload; a payload is a list
 * of fields, each a 4-byte big-endian length and its bytes. Requests: [op, ...args]. Responses:
 * ["ok", ...values] or [code, errno, size] with a RuntimeErrorCode. Requests are answered in order.
 *
 * Remote invariants (the same envelope as LocalRuntime): the root's components below its anchor
 * are real directories (no symbolic link, no .git; UNSAFE_ROOT otherwise, with the kind and the
 * component); every target's deepest existing ancestor is resolved with realpath and must lie
 * inside the root's realpath and out of any .git there; a final symlink is never followed for a write (temp file in the resolved parent, fsync,
 * rename over the name); the parent is pinned through /proc/self/fd where it exists and re-checked
 * otherwise; files 0600, directories 0700; names a model could not have written are skipped by
 * listings with the same rules as isListedName in src/common/memory/paths.ts.
 * Other agents' files (afiles, afile, afwrite) are reached through the workspace's checkout, which
 * is no memory root: af_root resolves it (git root of the path's realpath) and af_place checks every
 * file's realpath against it; see the comment above those ops.
 */

import * as fs from 'node:fs';
import { VERSION_SETTLE_MS } from '../runtime';

/** Bumped when the wire format or an operation changes; the client refuses a mismatch. */
export const HELPER_VERSION = '13';

/**
 * The shell command that starts the helper: reads the program's length and text from stdin and
 * runs it. Contains no single quote, so it is quoted once for the remote login shell.
 */
export const HELPER_BOOTSTRAP =
  "exec perl -e 'my $n = <STDIN>; defined $n or exit 3; my $src = q(); while (length($src) < $n) { my $r = read(STDIN, $src, $n - length($src), length($src)); exit 3 unless $r; } eval $src; print STDERR $@ if $@; exit 4;'";

/** The program's text as this module holds it: '@NAME@' placeholders not yet filled in. */
const PROGRAM_TEMPLATE: string = import.meta.env
  ? // Vite (the build, vitest) inlines the file as text, so the built CLI and app carry it.
    import.meta.glob<string>('./remote-helper.pl', { query: '?raw', import: 'default', eager: true })['./remote-helper.pl']!
  : // Plain node through tsx (the bench) imports no text: the file is read beside this module.
    fs.readFileSync(new URL('./remote-helper.pl', import.meta.url), 'utf8');

/** A Perl literal for a value: a finite number as it is, a string single-quoted. */
function perlLiteral(value: string | number): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`remote helper: ${value} is no Perl number`);
    return String(value);
  }
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}

/**
 * The program with each '@NAME@' placeholder replaced by its value. Every value must be used and
 * no placeholder left, so a renamed one fails at load rather than sending a helper that cannot run.
 */
export function fillInProgram(template: string, values: Readonly<Record<string, string | number>>): string {
  let program = template;
  for (const [name, value] of Object.entries(values)) {
    const placeholder = `'@${name}@'`;
    if (!program.includes(placeholder)) throw new Error(`remote helper: no placeholder ${placeholder}`);
    program = program.replaceAll(placeholder, perlLiteral(value));
  }
  const left = /'@[A-Z_]+@'/.exec(program);
  if (left) throw new Error(`remote helper: placeholder ${left[0]} has no value`);
  return program;
}

/** The program SshRuntime sends to the helper, with the client's values in it. */
export const HELPER_SOURCE = fillInProgram(PROGRAM_TEMPLATE, {
  HELPER_VERSION,
  VERSION_SETTLE_S: VERSION_SETTLE_MS / 1000,
});
