/**
 * Which properties of an answer its schema does not declare, as types. TypeScript's excess-property
 * check fires only on a fresh object literal, never on a spread or on a value a handler returns
 * from a block, so `{ ...project, price: 'free' }` type-checks and then fails the response
 * validator with a 500. These types walk the answer's own (inferred) type against the declared one.
 */

type Primitive = string | number | boolean | bigint | symbol | null | undefined;

/** How deep an answer is walked: a recursive type (a tree, a JSON value) must end somewhere. */
type Deeper = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** A child's path under its key (`project` + `price`, `items` + `[].price`), distributed over the child's paths. */
type Under<K extends string, Child> = Child extends `[]${string}` ? `${K}${Child}` : Child extends string ? `${K}.${Child}` : never;
type InArray<Child> = Child extends `[]${string}` ? `[]${Child}` : Child extends string ? `[].${Child}` : never;

type KeysOf<D> = D extends unknown ? keyof D : never;
type ValueOf<D, K> = D extends unknown ? (K extends keyof D ? D[K] : never) : never;
type ElementOf<D> = D extends readonly (infer E)[] ? E : never;
type IsAny<T> = 0 extends 1 & T ? true : false;

/** The compiler's own identity of two types: an answer typed as declared is not walked (most are). */
type Same<A, D> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends D ? 1 : 2 ? true : false;

/**
 * The dotted paths (`project.price`, `items[].price`) of `A`'s properties that `D` does not declare;
 * `never` when there are none. A declared `unknown`, `any` or index signature (additionalProperties)
 * takes any key, a union of declared shapes (oneOf, nullable) any key one of its members declares;
 * a wrong type where a key is declared is the ordinary assignability check's business. Paths are
 * built from the leaves up, so a shape met again (the same record in many answers) is walked once
 * per depth and then taken from the compiler's cache.
 */
export type Undeclared<A, D, Depth extends number = 10> = [Depth] extends [never]
  ? never
  : Same<A, D> extends true
    ? never
    : IsAny<A> extends true
      ? never
      : unknown extends D // a declared `unknown` or `any`: free-form
        ? never
        : A extends Primitive
          ? never
          : A extends readonly (infer E)[]
            ? InArray<Undeclared<E, ElementOf<D>, Deeper[Depth]>>
            : A extends object
              ? UndeclaredKeys<A, Exclude<Extract<D, object>, readonly unknown[]>, Depth>
              : never;

type UndeclaredKeys<A, D, Depth extends number> = [D] extends [never]
  ? never
  : string extends KeysOf<D>
    ? never
    : {
        // An index signature of the answer's own type names no key: only its known keys can be wrong.
        [K in keyof A & string]-?: string extends K ? never : K extends KeysOf<D> ? Under<K, Undeclared<A[K], ValueOf<D, K>, Deeper[Depth]>> : K;
      }[keyof A & string];
