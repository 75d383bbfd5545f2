// expect: ok
// timeout-ms: 20000
// output: bytes
// output: left out
return 'z'.repeat(40 << 20)
