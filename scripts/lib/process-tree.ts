import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes below `pid`, children first, read from /proc (Linux; elsewhere none are found).
 * npm test signals what a step started through these rather than through a process group of the
 * step's own: a group needs a session of its own (Node's `detached`), and the kernel's autogroup
 * schedules each session as one, so beside another busy process the tests would get one core's
 * share instead of competing thread by thread (bench/RESULTS.md, the sixth pass).
 */
export function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after the last `)` are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, p] of parentOf) if (p === parent) found.push(child), walk(child);
  };
  walk(pid);
  return found;
}
