// expect: ok
// timeout-ms: 2000
// output: INVALID_ARGUMENTS
// output: deeper than 128
let a: any = 1;
for (let i = 0; i < 200; i++) a = [a];
try { await tools.echo({ a }) } catch (e: any) { return e.code + ' ' + e.message }
