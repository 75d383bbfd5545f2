// expect: ok
// timeout-ms: 2000
// output: RangeError
const f = (n: number): number => f(n + 1) + 1;
try { f(0) } catch (e: any) { return e.name }
