interface Row { id: string; n?: number }
type Pair<T> = [T, T];
function first<T>(pair: Pair<T>): T { return pair[0] }
const rows: Row[] = [{ id: 'a', n: 2 }];
let total!: number;
total = rows.reduce((sum: number, row: Row): number => sum + (row.n ?? 0), 0);
abstract class Base { abstract f(): void }
return [first<string>(['x', 'y']), total!, rows[0]!.id satisfies string]