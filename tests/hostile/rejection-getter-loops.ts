// expect: timeout
// timeout-ms: 300
Promise.reject({ get name() { for (;;) {} } });
await null;
return 1
