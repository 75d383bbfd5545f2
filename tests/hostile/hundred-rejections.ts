// expect: ok
// timeout-ms: 2000
// output: unhandled rejection: Error: r0
// output: unhandled rejection: Error: r15
// output: and 84 more unhandled rejections
for (let i = 0; i < 100; i++) Promise.reject(new Error('r' + i));
await null;
return 'done'
