// expect: ok
// timeout-ms: 20000
// output: unhandled rejection: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
// output: more unhandled rejections
const big = 'x'.repeat(16 << 20);
for (let i = 0; i < 100; i++) Promise.reject(big)
