// expect: memory
// timeout-ms: 20000
let o: any = {};
for (;;) o = { o }
