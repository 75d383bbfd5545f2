// expect: timeout
// timeout-ms: 300
setTimeout(() => { for (;;) {} }, 1);
await new Promise(() => {})
