// Deliberately fails to typecheck; it feeds diagnostics tests.
export function quantity(): number {
  const count: number = "three";
  return count;
}
