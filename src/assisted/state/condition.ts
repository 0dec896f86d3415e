/**
 * Named predicates for the transition tables. A row's condition carries a readable name built
 * from its parts (`connected ∧ ¬has-valid-inventory`), so a reviewer can hold a row against the
 * upstream rule it mirrors and a test failure says which guard decided.
 */

/** A guard over the facts `F` one event is judged on. */
export interface Condition<F> {
  readonly name: string;
  readonly test: (facts: F) => boolean;
}

/** The fact `key` of `F` (a boolean). */
export function fact<F>(key: keyof F & string): Condition<F> {
  return { name: key, test: (facts) => facts[key] === true };
}

/** Every condition holds (an empty list holds). */
export function all<F>(...conditions: readonly Condition<F>[]): Condition<F> {
  return {
    name:
      conditions.length === 1
        ? conditions[0]!.name
        : `(${conditions.map((c) => c.name).join(' ∧ ')})`,
    test: (facts) => conditions.every((c) => c.test(facts)),
  };
}

/** At least one condition holds. */
export function any<F>(...conditions: readonly Condition<F>[]): Condition<F> {
  return {
    name:
      conditions.length === 1
        ? conditions[0]!.name
        : `(${conditions.map((c) => c.name).join(' ∨ ')})`,
    test: (facts) => conditions.some((c) => c.test(facts)),
  };
}

/** The condition does not hold. */
export function not<F>(condition: Condition<F>): Condition<F> {
  return { name: `¬${condition.name}`, test: (facts) => !condition.test(facts) };
}
