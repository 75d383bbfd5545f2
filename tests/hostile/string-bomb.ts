// expect: memory
// timeout-ms: 20000
let s = 'x';
for (;;) s += s;
