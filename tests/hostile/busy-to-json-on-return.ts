// expect: timeout
// timeout-ms: 300
return { toJSON() { for (;;) {} } }
