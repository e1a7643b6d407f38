import type { Clock } from './clock.js';

/**
 * One service's state (CONVENTIONS §5): named collections and cells registered once, so reset,
 * snapshot, restore, export, import and persistence are written here and nowhere else. Rows and
 * cell values are plain JSON (objects, arrays, strings, numbers, booleans, null): a store keeps
 * times as epoch milliseconds or ISO strings and sets as arrays, so a snapshot is the data itself.
 */
export class StateStore {
  private readonly collections = new Map<string, Collection<unknown>>();
  private readonly cells = new Map<string, Cell<unknown>>();
  private readonly seeders: Array<() => void> = [];
  private readonly replacedListeners: Array<() => void> = [];

  constructor(readonly clock: Clock) {}

  /** The store's time as ISO 8601 (rows record times from the injectable clock, never `Date.now()`). */
  now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** A keyed collection, registered under a name unique in this store. */
  collection<Row>(name: string, options: CollectionOptions<Row> = {}): Collection<Row> {
    if (this.collections.has(name) || this.cells.has(name)) throw new Error(`State "${name}" is registered twice`);
    const collection = new Collection<Row>(name, options);
    this.collections.set(name, collection as Collection<unknown>);
    return collection;
  }

  /** A single value (a counter, a sequence, a setting), back to `initial()` on reset. */
  cell<T>(name: string, initial: () => T): Cell<T> {
    if (this.collections.has(name) || this.cells.has(name)) throw new Error(`State "${name}" is registered twice`);
    const cell = new Cell<T>(initial);
    this.cells.set(name, cell as Cell<unknown>);
    return cell;
  }

  /** Seeds run now and again after every reset, in the order they were registered. */
  seed(seeder: () => void): void {
    this.seeders.push(seeder);
    seeder();
  }

  /**
   * Work that belongs to the state being replaced (queued retries, hand-overs in flight) is dropped
   * by `listener`, which runs after every reset and every restore.
   */
  onReplaced(listener: () => void): void {
    this.replacedListeners.push(listener);
  }

  /** Back to the seeds: every collection emptied, every cell to its initial value, then the seeders. */
  reset(): void {
    for (const collection of this.collections.values()) collection.clear();
    for (const cell of this.cells.values()) cell.reset();
    for (const seeder of this.seeders) seeder();
    for (const listener of this.replacedListeners) listener();
  }

  snapshot(): StateSnapshot {
    return {
      collections: Object.fromEntries([...this.collections].map(([name, c]) => [name, c.entries()])),
      cells: Object.fromEntries([...this.cells].map(([name, c]) => [name, c.get()])),
    };
  }

  /**
   * Replaces the whole state with a snapshot; a collection or cell the snapshot leaves out is
   * empty or initial. A snapshot that does not fit throws {@link StateRejected} naming the
   * problem, before anything changed.
   */
  restore(snapshot: unknown): void {
    const checked = this.check(snapshot);
    for (const [name, collection] of this.collections) collection.load(checked.collections[name] ?? []);
    for (const [name, cell] of this.cells) {
      // Copied like rows: a cell holding an array or object must not share it with the caller's snapshot.
      if (name in checked.cells) cell.set(structuredClone(checked.cells[name]));
      else cell.reset();
    }
    for (const listener of this.replacedListeners) listener();
  }

  private check(snapshot: unknown): StateSnapshot {
    if (!isRecord(snapshot)) throw new StateRejected('the state must be an object with "collections" and "cells"');
    const { collections = {}, cells = {}, ...rest } = snapshot;
    const extra = Object.keys(rest);
    if (extra.length > 0) throw new StateRejected(`unknown member "${extra[0]}" (the state has "collections" and "cells")`);
    if (!isRecord(collections)) throw new StateRejected('"collections" must be an object');
    if (!isRecord(cells)) throw new StateRejected('"cells" must be an object');
    for (const [name, entries] of Object.entries(collections)) {
      if (!this.collections.has(name)) throw new StateRejected(`unknown collection "${name}" (known: ${[...this.collections.keys()].join(', ') || 'none'})`);
      if (!Array.isArray(entries)) throw new StateRejected(`collection "${name}" must be an array of [key, row] pairs`);
      entries.forEach((entry, at) => {
        if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') throw new StateRejected(`collection "${name}", entry ${at}: must be a [key, row] pair with a string key`);
        if (entry[1] === undefined || entry[1] === null || typeof entry[1] !== 'object') throw new StateRejected(`collection "${name}", entry ${at} ("${entry[0]}"): the row must be an object or an array`);
      });
    }
    for (const name of Object.keys(cells)) {
      if (!this.cells.has(name)) throw new StateRejected(`unknown cell "${name}" (known: ${[...this.cells.keys()].join(', ') || 'none'})`);
    }
    return { collections: collections as StateSnapshot['collections'], cells };
  }
}

/** What {@link StateStore.snapshot} answers and {@link StateStore.restore} takes: plain JSON. */
export interface StateSnapshot {
  collections: Record<string, Array<[string, unknown]>>;
  cells: Record<string, unknown>;
}

/** A snapshot that does not fit the store it is restored into; the message names the problem. */
export class StateRejected extends Error {}

export interface CollectionOptions<Row> {
  /** whose row it is (organization, user, account): {@link Collection.ownedBy} and {@link Collection.of} keep tenants apart */
  tenantOf?: (row: Row) => string;
  /** when the row was created (epoch ms or ISO 8601): {@link Collection.newest} sorts on it */
  createdAtOf?: (row: Row) => number | string;
}

/** Rows by key, in insertion order, with the tenant-scoped reads every service makes. */
export class Collection<Row> implements Iterable<Row> {
  private readonly rows = new Map<string, Row>();

  constructor(
    readonly name: string,
    private readonly options: CollectionOptions<Row>,
  ) {}

  get size(): number {
    return this.rows.size;
  }

  get(key: string): Row | undefined {
    return this.rows.get(key);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  set(key: string, row: Row): Row {
    this.rows.set(key, row);
    return row;
  }

  delete(key: string): boolean {
    return this.rows.delete(key);
  }

  clear(): void {
    this.rows.clear();
  }

  keys(): string[] {
    return [...this.rows.keys()];
  }

  values(): Row[] {
    return [...this.rows.values()];
  }

  [Symbol.iterator](): Iterator<Row> {
    return this.rows.values();
  }

  find(where: (row: Row) => boolean): Row | undefined {
    for (const row of this.rows.values()) if (where(row)) return row;
    return undefined;
  }

  filter(where: (row: Row) => boolean): Row[] {
    return this.values().filter(where);
  }

  /** The row if it exists and belongs to the tenant: another tenant's row reads as missing. */
  ownedBy(tenant: string, key: string): Row | undefined {
    const row = this.rows.get(key);
    return row !== undefined && this.tenantOf(row) === tenant ? row : undefined;
  }

  /** The tenant's rows (those `where` keeps), in insertion order. */
  of(tenant: string, where: (row: Row) => boolean = () => true): Row[] {
    return this.filter((row) => this.tenantOf(row) === tenant && where(row));
  }

  /** The tenant's rows (those `where` keeps), newest first; rows created at the same time, the later inserted first. */
  newest(tenant: string, where: (row: Row) => boolean = () => true): Row[] {
    const createdAtOf = this.options.createdAtOf;
    if (!createdAtOf) throw new Error(`Collection "${this.name}" has no createdAtOf`);
    const time = (row: Row) => {
      const at = createdAtOf(row);
      return typeof at === 'number' ? at : Date.parse(at);
    };
    return this.of(tenant, where)
      .map((row, order) => ({ row, order, at: time(row) }))
      .sort((a, b) => b.at - a.at || b.order - a.order)
      .map(({ row }) => row);
  }

  /** `[key, row]` pairs in insertion order, as a snapshot holds them (rows are shared, not copied). */
  entries(): Array<[string, Row]> {
    return [...this.rows];
  }

  /** Replaces every row (restore); rows are copied so the snapshot given stays the caller's. */
  load(entries: ReadonlyArray<[string, unknown]>): void {
    this.rows.clear();
    for (const [key, row] of entries) this.rows.set(key, structuredClone(row) as Row);
  }

  private tenantOf(row: Row): string {
    const tenantOf = this.options.tenantOf;
    if (!tenantOf) throw new Error(`Collection "${this.name}" has no tenantOf`);
    return tenantOf(row);
  }
}

/** One value of a store's state. */
export class Cell<T> {
  private value: T;

  constructor(private readonly initial: () => T) {
    this.value = initial();
  }

  get(): T {
    return this.value;
  }

  set(value: T): void {
    this.value = value;
  }

  reset(): void {
    this.value = this.initial();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
