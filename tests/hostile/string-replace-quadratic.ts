// expect: timeout
// timeout-ms: 300
return 'a'.repeat(2e6).replace('a'.repeat(1e6) + 'b', 'x').length
