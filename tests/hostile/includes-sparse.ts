// expect: timeout
// timeout-ms: 300
const a: number[] = [];
a.length = 2 ** 32 - 1;
return a.includes(1)
