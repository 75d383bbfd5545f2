// expect: timeout
// timeout-ms: 300
Promise.reject(new Proxy({}, { get() { for (;;) {} } }));
await null;
return 1
