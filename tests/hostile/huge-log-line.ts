// expect: ok
// timeout-ms: 20000
// output: left out
console.log('w'.repeat(20 << 20)); return 1
