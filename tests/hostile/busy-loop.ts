// expect: timeout
// timeout-ms: 300
for (;;) {}
