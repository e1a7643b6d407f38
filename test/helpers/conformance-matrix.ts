import type { Operation } from '../../server-stubs/lib/openapi/document.js';
import { declaredStatuses } from '../../server-stubs/lib/contract.js';
import type { Regime } from '../../scripts/lib/scenarios/index.js';

const regimeLabels: Record<Regime, string> = {
  scenario: 'scenario: every declared status',
  examples: 'no scenario: each example request answers a success',
};

/** What the conformance test saw of one operation: the statuses answered, and whether a success body was verified. */
interface Seen {
  statuses: Set<string>;
  verifiedSuccess: boolean;
  notImplemented: boolean;
}

/**
 * Operation x declared status, exercised or not, for one service. Only answers checked against the
 * contract are recorded; an error answer never counts as a verified success.
 */
export function conformanceMatrix(operations: Operation[]) {
  const seen = new Map<string, Seen>(operations.map((o) => [o.id, { statuses: new Set(), verifiedSuccess: false, notImplemented: false }]));
  const entry = (id: string) => seen.get(id)!;
  /**
   * An alias (`x-alias-of`: its twin served at a second path, mail's `/api/v1/...`, DECISIONS P-2) is
   * the twin's operation: the same handler, the same declared statuses (test/mail/api-aliases.test.ts
   * holds both). The framework's probes call it at its own path; what the scenario reaches through
   * the twin counts for it too, so a scenario is not written twice.
   */
  const twinOf = new Map(
    operations.flatMap((o) => {
      const twin: unknown = o.op['x-alias-of'];
      return typeof twin === 'string' && seen.has(twin) ? [[o.id, twin] as const] : [];
    }),
  );
  const idsOf = (id: string) => [id, ...(twinOf.has(id) ? [twinOf.get(id)!] : [])];
  const statusesOf = (id: string) => new Set(idsOf(id).flatMap((i) => [...entry(i).statuses]));
  const verified = (id: string) => idsOf(id).some((i) => entry(i).verifiedSuccess);
  return {
    /** a checked answer: its status is declared and its body valid (the caller asserted both) */
    record(id: string, status: number) {
      const e = entry(id);
      if (status === 501) e.notImplemented = true;
      else e.statuses.add(String(status));
      if (status >= 200 && status < 400) e.verifiedSuccess = true;
    },
    /** implemented operations without a verified success body */
    unverified(): string[] {
      return operations.filter((o) => !entry(o.id).notImplemented && !verified(o.id)).map((o) => o.id);
    },
    /**
     * Declared statuses of implemented operations never seen. Every one is reachable and must be
     * exercised (by the framework checks or the service scenario's calls and refusals), except 500,
     * which only a bug answers, and those the scenario lists as reached only under a test switch.
     */
    unexercised(underSwitch: ReadonlyArray<{ id: string; status: number }> = []): string[] {
      return operations.flatMap((o) => {
        const e = entry(o.id);
        if (e.notImplemented) return [];
        const statuses = statusesOf(o.id);
        const switched = new Set(underSwitch.filter((u) => idsOf(o.id).includes(u.id)).map((u) => String(u.status)));
        return declaredStatuses(o)
          .filter((s) => s !== '500' && s !== 'default' && !statuses.has(s) && !switched.has(s))
          .map((s) => `${o.id} ${s}`);
      });
    },
    /** the matrix as text, and its figures */
    render(slug: string, regime: Regime, underSwitch: ReadonlyArray<{ id: string; status: number }> = []): string {
      const rows = operations.map((o) => {
        const e = entry(o.id);
        const statuses = statusesOf(o.id);
        const switched = (s: string) => underSwitch.some((u) => idsOf(o.id).includes(u.id) && String(u.status) === s);
        const cells = declaredStatuses(o).map((s) => `${s}${statuses.has(s) ? '✓' : switched(s) ? '⚙' : '·'}`);
        const mark = e.notImplemented ? '501 not implemented' : e.verifiedSuccess ? 'success verified' : verified(o.id) ? 'verified as its twin' : 'NO VERIFIED SUCCESS';
        return `  ${o.id.padEnd(34)} ${mark.padEnd(20)} ${cells.join(' ')}`;
      });
      const implemented = operations.filter((o) => !entry(o.id).notImplemented);
      const verifiedCount = implemented.filter((o) => verified(o.id)).length;
      const declared = implemented.flatMap((o) => declaredStatuses(o).map((s) => statusesOf(o.id).has(s)));
      return [
        `${slug} (${regimeLabels[regime]}): ${verifiedCount}/${implemented.length} implemented operations with a verified success (${operations.length - implemented.length} not implemented); ` +
          `${declared.filter(Boolean).length}/${declared.length} declared statuses of implemented operations exercised (✓ exercised, ⚙ only under a test switch, · not)`,
        ...rows,
      ].join('\n');
    },
  };
}
