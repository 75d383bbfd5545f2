function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>
  for (const k of keys) out[k] = obj[k]
  return out
}
type Row = { a: number; b: string; c?: boolean }
const row: Row = { a: 1, b: 'x' }
return pick(row, ['a', 'b'])