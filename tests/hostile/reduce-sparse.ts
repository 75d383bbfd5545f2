// expect: timeout
// timeout-ms: 300
const a: number[] = [];
a.length = 2 ** 32 - 1;
a[2 ** 32 - 2] = 1;
return a.reduce((x, y) => x + y)
