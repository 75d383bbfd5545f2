// expect: timeout
// timeout-ms: 300
return 'a'.repeat(2e6).split('a'.repeat(1e6) + 'b').length
